#!/usr/bin/env bash
# ckpt-tool ls of a Flink savepoint vs the same listing through Flink's own
# Checkpoints.loadCheckpointMetadata on the JVM (tests/interop/flink JvmLs), both timed as whole
# processes, side by side in one run; then ckpt-tool ls of a 10,000-subtask Flink _metadata
# (written by Flink's own MetadataSerializer, GenMetadata).
#   bench/flink-ls-vs-jvm.sh [CKPT_TOOL [FLINK_SNAPSHOT]]
# CKPT_TOOL defaults to build/release/ckpt-tool/ckpt-tool (then build/dev). Without
# FLINK_SNAPSHOT the harness makes one (stop-with-savepoint of the main job). Targets: ratio >= 10x,
# 10,000-subtask ls < 100 ms. Env: CKPT_MAVEN_REPO (Maven local repository), REPS (default 15),
# JVM_REPS (default 5), FLINK_PROFILE (flink-1.20 | flink-2, default flink-2), CKPT_HARNESS_BUILD.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
tool="${1:-}"
if [[ -z "$tool" ]]; then
  for t in build/release/ckpt-tool/ckpt-tool build/dev/ckpt-tool/ckpt-tool; do
    [[ -x "$t" ]] && { tool="$t"; break; }
  done
fi
[[ -x "$tool" ]] || { echo "flink-ls-vs-jvm: build ckpt-tool first (or pass its path)" >&2; exit 2; }
snapshot="${2:-}"
repo="${CKPT_MAVEN_REPO:-$HOME/.m2/repository}"
profile="${FLINK_PROFILE:-flink-2}"
line="${profile#flink-}"
work="$(mktemp -d "${TMPDIR:-/tmp}/flink-ls-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
h="$root/tests/interop/flink"

# CKPT_HARNESS_BUILD: a harness build root the interop test already made (its target-<line>/ is
# reused, Maven not run again).
broot="${CKPT_HARNESS_BUILD:-$work/build}"
if [[ ! -f "$broot/target-$line/classpath.txt" ]]; then
  mvn -B -q -f "$h/pom.xml" -Dmaven.repo.local="$repo" -Dharness.build.root="$broot" -P"$profile" package \
    >"$work/mvn.log" 2>&1 || { tail -30 "$work/mvn.log" >&2; echo "flink-ls-vs-jvm: Maven build failed" >&2; exit 1; }
fi
build="$broot/target-$line"
mapfile -t jvm_opts < "$h/jvm-opts.txt"
cp="$build/classes:$(cat "$build/classpath.txt")"

if [[ -z "$snapshot" ]]; then
  java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.Harness --out "$work/snapshots" --only stop-with-savepoint \
    > "$work/harness.log" 2>&1 || { tail -30 "$work/harness.log" >&2; exit 1; }
  snapshot="$(ls -d "$work"/snapshots/*/stop-with-savepoint/savepoint-* | head -1)"
fi
java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.GenMetadata "$work/big" >&2

python3 - "$tool" "$snapshot" "$work/big" "${REPS:-15}" "${JVM_REPS:-5}" "$cp" "${jvm_opts[@]}" <<'PY'
import statistics, subprocess, sys, time
tool, snap, big, reps, jvm_reps, cp, *jvm_opts = sys.argv[1:]
reps, jvm_reps = int(reps), int(jvm_reps)

def timed(cmd, n):
    out = None
    times = []
    for _ in range(n):
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if p.returncode != 0:
            sys.exit(f"flink-ls-vs-jvm: {' '.join(cmd[:3])}... exited {p.returncode}: {p.stderr[-800:]}")
        out = p.stdout
    return statistics.median(times), min(times), out

jvm = ["java", *jvm_opts, "-cp", cp, "ckpt.interop.JvmLs"]
print(f"snapshot: {snap}")
j_med, j_min, j_out = timed(jvm + [snap], jvm_reps)
print("--- JVM (Flink's Checkpoints.loadCheckpointMetadata) ---"); print(j_out.rstrip())
print(f"{'':34}{'median':>10}{'min':>10}  runs")
print(f"{'JVM listing (whole process)':34}{j_med*1e3:9.1f}ms{j_min*1e3:9.1f}ms  {jvm_reps}", flush=True)
c_med, c_min, c_out = timed([tool, "ls", snap], reps)
print(f"{'ckpt-tool ls (whole process)':34}{c_med*1e3:9.1f}ms{c_min*1e3:9.1f}ms  {reps}")
print("--- ckpt-tool ls ---"); print(c_out.rstrip())
ratio = j_med / c_med
print(f"ratio JVM / ckpt-tool (median): {ratio:.1f}x  (target >= 10x: {'met' if ratio >= 10 else 'NOT met'})")
bj_med, _, _ = timed(jvm + [big], max(1, jvm_reps // 2))
b_med, b_min, b_out = timed([tool, "ls", big], reps)
print(f"10,000-subtask _metadata: ckpt-tool ls median {b_med*1e3:.1f} ms (min {b_min*1e3:.1f} ms; "
      f"target < 100 ms: {'met' if b_med < 0.1 else 'NOT met'}); JVM listing median {bj_med*1e3:.1f} ms; "
      f"ratio {bj_med / b_med:.1f}x")
PY
