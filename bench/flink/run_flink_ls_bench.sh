#!/usr/bin/env bash
# `ckpt-tool ls` of a 10,000-subtask Apache Flink `_metadata` (10 operators x 1000 subtasks,
# maxParallelism 32768, written by gen_flink_metadata.py), whole process, best of N runs, side by
# side with a baseline measured in the same run: `cat` of the same file (process start + reading
# the bytes). Target: < 100 ms. If the interop harness's JVM lister is built
# (tests/interop/flink/target/flink-ls.jar, Flink's Checkpoints.loadCheckpointMetadata), it is
# run on the same file and the ratio printed; otherwise that is said.
# Usage: run_flink_ls_bench.sh CKPT_TOOL [RUNS=7]
set -euo pipefail
tool="$1"
runs="${2:-7}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen_flink_metadata.py" "$tmp/sp" 10 1000 32768
size=$(stat -c %s "$tmp/sp/_metadata")

best() {  # best wall time in ms of "$@" over $runs runs
  local best_ns=""
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1 || { echo "command failed: $*" >&2; exit 2; }
    t1=$(date +%s%N)
    local d=$((t1 - t0))
    if [ -z "$best_ns" ] || [ "$d" -lt "$best_ns" ]; then best_ns=$d; fi
  done
  echo "$best_ns"
}

ls_ns=$(best "$tool" ls "$tmp/sp")
cat_ns=$(best cat "$tmp/sp/_metadata")
subtasks=$("$tool" --format json ls "$tmp/sp" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(o.get("subtask_states", 0) for o in d["operators"]) if isinstance(d, dict) and "operators" in d else "?")' 2>/dev/null || echo "?")
printf 'flink _metadata: %d bytes, %s subtask states\n' "$size" "$subtasks"
printf 'ckpt-tool ls   : %8.2f ms (target < 100 ms)\n' "$(echo "$ls_ns / 1000000" | bc -l)"
printf 'baseline cat   : %8.2f ms\n' "$(echo "$cat_ns / 1000000" | bc -l)"
printf 'ratio ls / cat : %8.2f\n' "$(echo "$ls_ns / $cat_ns" | bc -l)"
jar="$here/../../tests/interop/flink/target/flink-ls.jar"
if [ -f "$jar" ] && command -v java > /dev/null; then
  jvm_ns=$(best java -jar "$jar" "$tmp/sp")
  printf 'JVM (Flink Checkpoints.loadCheckpointMetadata): %8.2f ms\n' "$(echo "$jvm_ns / 1000000" | bc -l)"
  printf 'ratio JVM / ckpt-tool: %8.2f (target >= 10)\n' "$(echo "$jvm_ns / $ls_ns" | bc -l)"
else
  echo "JVM side-by-side: not run ($jar not built; the interop harness builds it)"
fi
