#!/usr/bin/env bash
# Engine demo (the classic checkpoint lab): the keyed-sum job of examples/keyed_sum_2pc.json writes through
# the two-phase-commit file sink with a checkpoint every second; after a few seconds it is
# stopped with a savepoint, restored from it at another parallelism, stopped again, and the
# committed output (part-* files only, never the dot files) is checked: for every source split
# the committed inputs are one contiguous range from the split's start (no gap) and no input
# appears twice (no duplicate). Builds nothing.
#
# Usage: scripts/engine-demo.sh PATH/TO/ckpt-engine [SECONDS_PER_RUN]
# Exit: 0 exact output, 1 a gap or duplicate (or a run failed), 2 usage.
set -euo pipefail

engine=${1:-}
seconds=${2:-4}
if [[ -z "$engine" || ! -x "$engine" ]]; then
  echo "usage: $0 PATH/TO/ckpt-engine [SECONDS_PER_RUN]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
spec_in="$here/examples/keyed_sum_2pc.json"
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-engine-demo.XXXXXX")
out="$work/out"
spec="$work/keyed_sum_2pc.json"
# Same job, output redirected into the demo's own directory.
sed "s#\"path\": *\"[^\"]*\"#\"path\": \"$out\"#" "$spec_in" > "$spec"
echo "== work dir: $work"

run() {  # run LOG ARGS...: runs the engine, echoes its output, fails the demo on a non-zero exit
  local log=$1
  shift
  echo "\$ ckpt-engine $*"
  if ! "$engine" "$@" > "$log" 2>&1; then
    cat "$log"
    echo "FAILED: ckpt-engine exited non-zero" >&2
    exit 1
  fi
  sed 's/^/  | /' "$log"
}

echo "== 1. run at the spec's parallelism (2), checkpoint every 1 s, stop with a savepoint after ${seconds}s"
run "$work/run1.log" run "$spec" --checkpoint-dir "$work/checkpoints" --savepoint-dir "$work/savepoints" \
  --interval 1000 --stop-with-savepoint-after "$seconds"
savepoint=$(sed -n 's/^Savepoint completed. Path: //p' "$work/run1.log")
[[ -n "$savepoint" ]] || { echo "FAILED: no savepoint path printed" >&2; exit 1; }
echo "   committed files: $(find "$out" -name 'part-*' | wc -l), in-progress/pending dot files: $(find "$out" -name '.part-*' | wc -l)"

echo "== 2. restore from $savepoint at parallelism 3, stop again after ${seconds}s"
run "$work/run2.log" run "$spec" -s "$savepoint" -p 3 --checkpoint-dir "$work/checkpoints" \
  --savepoint-dir "$work/savepoints" --interval 1000 --stop-with-savepoint-after "$seconds"
echo "   committed files: $(find "$out" -name 'part-*' | wc -l)"

echo "== 3. verify the committed output (lines 'key,input,running sum')"
# Split layout of sequence-source (from..to cut into `splits` contiguous ranges) from the spec.
from=$(sed -n 's/.*"from": *\([0-9]*\),.*"to".*/\1/p' "$spec" | head -1)
to=$(sed -n 's/.*"to": *\([0-9]*\),.*/\1/p' "$spec" | head -1)
splits=$(sed -n 's/.*"splits": *\([0-9]*\),.*/\1/p' "$spec" | head -1)
find "$out" -name 'part-*' -type f -print0 | xargs -0 cat | awk -F, -v from="$from" -v to="$to" -v splits="$splits" '
  function split_of(v,   n, base, rem, off, long_part) {
    n = to - from + 1; base = int(n / splits); rem = n % splits; off = v - from
    long_part = rem * (base + 1)
    if (off < long_part) return int(off / (base + 1))
    return rem + int((off - long_part) / base)
  }
  function split_start(s,   n, base, rem) {
    n = to - from + 1; base = int(n / splits); rem = n % splits
    return from + s * base + (s < rem ? s : rem)
  }
  {
    v = $2 + 0; lines++
    if (v in seen) { dups++; next }
    seen[v] = 1; s = split_of(v); count[s]++
    if (!(s in hi) || v > hi[s]) hi[s] = v
  }
  END {
    gaps = 0
    for (s = 0; s < splits; s++) {
      lo = split_start(s)
      if (!(s in count)) { printf "   split %d: nothing committed\n", s; continue }
      missing = (hi[s] - lo + 1) - count[s]
      gaps += missing
      printf "   split %d: committed %d..%d (%d inputs, %d missing)\n", s, lo, hi[s], count[s], missing
    }
    printf "   committed lines: %d, gaps: %d, duplicates: %d\n", lines, gaps, dups + 0
    if (lines == 0 || gaps != 0 || dups != 0) { print "FAILED: committed output is not exact"; exit 1 }
    print "OK: no gap and no duplicate across the stop, the savepoint and the rescaled restore"
  }'
rm -rf "$work"
