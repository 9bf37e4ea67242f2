#!/usr/bin/env bash
# `ckpt-tool ls` of a 10,000-subtask Apache Flink `_metadata` (10 operators x 1000 subtasks,
# maxParallelism 32768, written by gen_flink_metadata.py), whole process, best and median of N runs, side by
# side with a baseline measured in the same run: `cat` of the same file (process start + reading
# the bytes). Target: < 100 ms. Median and best wall time, and the CPU time of one run (on a
# shared machine wall time includes waiting for a core).
# Usage: run_flink_ls_bench.sh CKPT_TOOL [RUNS=7]
set -euo pipefail
tool="$1"
runs="${2:-7}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen_flink_metadata.py" "$tmp/sp" 10 1000 32768
size=$(stat -c %s "$tmp/sp/_metadata")

# Wall times in ns of "$@" over $runs runs, then "best median" of them.
run_times() {
  local all=()
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1 || { echo "command failed: $*" >&2; exit 2; }
    t1=$(date +%s%N)
    all+=($((t1 - t0)))
  done
  printf '%s\n' "${all[@]}" | sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : int((v[NR/2]+v[NR/2+1])/2); print v[1], m}'
}
median() { echo "$1" | cut -d' ' -f2; }
ms() { echo "$1 / 1000000" | bc -l; }

ls_t=$(run_times "$tool" ls "$tmp/sp"); ls_ns=${ls_t% *}; ls_med=$(median "$ls_t")
cat_t=$(run_times cat "$tmp/sp/_metadata"); cat_ns=${cat_t% *}
# CPU time of one more run (the machine may be shared: wall time includes waiting for a core).
cpu=$( { /usr/bin/time -f '%U %S' "$tool" ls "$tmp/sp" > /dev/null; } 2>&1 | tail -1)
subtasks=$("$tool" --format json ls "$tmp/sp" | python3 -c 'import json,sys; print(sum(json.loads(l).get("operator_subtask_state_count", 0) for l in sys.stdin if l.strip()))' 2>/dev/null || echo "?")
printf 'flink _metadata: %d bytes, %s subtask states, %s runs each\n' "$size" "$subtasks" "$runs"
printf 'ckpt-tool ls   : %8.2f ms best, %8.2f ms median (target < 100 ms); one run: %s s user, %s s sys\n' \
  "$(ms "$ls_ns")" "$(ms "$ls_med")" "${cpu% *}" "${cpu#* }"
printf 'baseline cat   : %8.2f ms best\n' "$(ms "$cat_ns")"
printf 'ratio ls / cat : %8.2f (best)\n' "$(echo "$ls_ns / $cat_ns" | bc -l)"
# Flink's own reader cannot load this file (the generator writes no CheckpointProperties trailer,
# which Flink's MetadataV4+ deserializer requires): the JVM side-by-side, on a 10,000-subtask
# _metadata written by Flink's MetadataSerializer, is bench/flink-ls-vs-jvm.sh.
echo "JVM side-by-side: bench/flink-ls-vs-jvm.sh (Flink-written 10,000-subtask _metadata)"
