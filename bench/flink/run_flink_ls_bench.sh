#!/usr/bin/env bash
# `ckpt-tool ls` of a 10,000-subtask Apache Flink `_metadata` (10 operators x 1000 subtasks,
# maxParallelism 32768, written by gen_flink_metadata.py), whole process, side by side with a
# baseline measured in the same run: `cat` of the same file (process start + reading the bytes),
# and optionally another ckpt-tool (e.g. the build before a change). The commands take turns, RUNS
# times each; printed per command: median and best wall time, and the median user+sys CPU time
# (on a shared machine wall time includes waiting for a core; CPU time much less so). Target:
# < 100 ms wall.
# Usage: run_flink_ls_bench.sh CKPT_TOOL [RUNS=15] [OTHER_CKPT_TOOL]
set -euo pipefail
tool="$1"
runs="${2:-15}"
other="${3:-}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen_flink_metadata.py" "$tmp/sp" 10 1000 32768
subtasks=$("$tool" --format json ls "$tmp/sp" | python3 -c 'import json,sys; print(sum(json.loads(l).get("operator_subtask_state_count", 0) for l in sys.stdin if l.strip()))' 2>/dev/null || echo "?")

python3 - "$tmp/sp" "$runs" "$subtasks" "$tool" "$other" <<'PY'
import datetime, os, statistics, sys, time
sp, runs, subtasks, tool, other = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
cmds = [("ckpt-tool ls", [tool, "ls", sp])]
if other:
    cmds.append(("other ckpt-tool ls", [other, "ls", sp]))
cmds.append(("baseline cat", ["cat", sp + "/_metadata"]))

def run(argv):
    """Wall time and user+sys CPU time (s) of one whole process, output to /dev/null."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"command failed ({status}): {' '.join(argv)}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

times = {name: [] for name, _ in cmds}
for _ in range(runs):
    for name, argv in cmds:  # taking turns: a change in load hits every command alike
        times[name].append(run(argv))

load = os.getloadavg()
print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, load average "
      f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores")
print(f"flink _metadata: {os.path.getsize(sp + '/_metadata')} bytes, {subtasks} subtask states, "
      f"{runs} runs each")
print(f"{'':20}{'wall median':>12}{'best':>10}{'user+sys median':>17}")
med = {}
for name, _ in cmds:
    wall = [w for w, _ in times[name]]
    cpu = [c for _, c in times[name]]
    med[name] = statistics.median(wall)
    print(f"{name:20}{med[name] * 1e3:9.1f} ms{min(wall) * 1e3:7.1f} ms"
          f"{statistics.median(cpu) * 1e3:14.1f} ms")
verdict = "met" if med["ckpt-tool ls"] < 0.1 else "NOT met"
print(f"target: ckpt-tool ls wall median < 100 ms: {verdict}")
PY
# Flink's own reader cannot load this file (the generator writes no CheckpointProperties trailer,
# which Flink's MetadataV4+ deserializer requires): the JVM side-by-side, on a 10,000-subtask
# _metadata written by Flink's MetadataSerializer, is bench/flink-ls-vs-jvm.sh.
echo "JVM side-by-side: bench/flink-ls-vs-jvm.sh (Flink-written 10,000-subtask _metadata)"
