#!/usr/bin/env bash
# Per-record CPU budget of the keyed-sum job on ckpt-engine: instructions per record and system
# calls per record, each the marginal cost between a small and a large run (so process start,
# setup and teardown cancel out), compared with the budget recorded in per_record_budget.txt.
# Fails (exit 1) when a change adds a system call per record (measured > budget + 0.5) or
# doubles the instructions per record (measured > 2 x budget). Counts, not times: the machine's
# load does not move them much, so this is a check, not a benchmark (steady-state.md has those).
#
# Instructions come from `perf stat -e instructions:u` where the CPU exposes the counter, else
# from valgrind (cachegrind without cache simulation: every instruction executed, all threads).
# System calls come from `strace -f -c` (all threads). Job: sequence 1..N, key = n mod KEYS,
# keyed-sum, discard sink, parallelism P (default 2), max parallelism 128, no checkpoints (their
# cost is per second, not per record), heap backend unless BACKEND=rocksdb.
#
# Usage: bench/engine/per_record_budget.sh [CKPT_ENGINE]
# Env: SMALL / LARGE (records of the two runs, default 50000 / 300000), KEYS (default 10000),
# P (default 2), BACKEND (heap | rocksdb, default heap), BUDGET (file, default
# bench/engine/per_record_budget.txt), RECORD=1 (write the measured numbers as the new budget),
# ENGINE_ARGS (more `run` flags, e.g. "--task-metrics off" to count what task metrics cost).
set -euo pipefail
cd "$(dirname "$0")/../.."
engine="${1:-build/release/engine/ckpt-engine}"
[[ -x "$engine" ]] || { echo "per_record_budget: ckpt-engine not found: $engine (build it or pass its path)" >&2; exit 2; }
for c in strace python3; do
  command -v "$c" > /dev/null || { echo "per_record_budget: $c not found" >&2; exit 2; }
done
small="${SMALL:-50000}"
large="${LARGE:-300000}"
keys="${KEYS:-10000}"
par="${P:-2}"
backend="${BACKEND:-heap}"
budget_file="${BUDGET:-bench/engine/per_record_budget.txt}"
(( large > small )) || { echo "per_record_budget: LARGE ($large) must be > SMALL ($small)" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/per-record-budget.XXXXXX")"
trap 'rm -rf "$work"' EXIT

spec() {  # spec RECORDS FILE
  cat > "$2" <<JSON
{
  "name": "budget-keyed-sum",
  "parallelism": $par,
  "max_parallelism": 128,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
     "params": {"from": 1, "to": $1, "splits": $par, "keys": $keys}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "sum"}},
    {"id": "sink", "kind": "discard", "uid": "sink"}
  ],
  "edges": [
    {"from": "numbers", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}
  ]
}
JSON
}

run_engine() {  # run_engine RECORDS TAG WRAPPER...: the job under WRAPPER, output in $work/TAG.log
  local records=$1 tag=$2
  shift 2
  spec "$records" "$work/$tag.json"
  rm -rf "$work/$tag-ck"
  "$@" "$engine" run "$work/$tag.json" --checkpoint-dir "$work/$tag-ck" --interval 0 \
    --state-backend "$backend" ${ENGINE_ARGS:-} > "$work/$tag.log" 2>&1 ||
    { tail -20 "$work/$tag.log" >&2; echo "per_record_budget: ckpt-engine run ($tag) failed" >&2; exit 1; }
}

# instructions RECORDS TAG: instructions executed in user space by the whole run.
use_perf=0
if perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep -q '^[0-9]'; then use_perf=1; fi
instructions() {
  local records=$1 tag=$2
  if (( use_perf )); then
    run_engine "$records" "$tag" perf stat -x, -e instructions:u -o "$work/$tag.perf"
    sed -n 's/^\([0-9]*\),.*instructions.*/\1/p' "$work/$tag.perf" | head -1
  else
    command -v valgrind > /dev/null || { echo "per_record_budget: no instruction counter (perf stat) and no valgrind" >&2; exit 2; }
    run_engine "$records" "$tag" valgrind --tool=cachegrind --cache-sim=no \
      --cachegrind-out-file="$work/$tag.cg" --log-file="$work/$tag.vg"
    sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$work/$tag.cg" | head -1
  fi
}

# syscalls RECORDS TAG: system calls of all threads of the run.
syscalls() {
  local records=$1 tag=$2
  run_engine "$records" "$tag" strace -f -c -o "$work/$tag.strace"
  awk '$NF == "total" { print $(NF-2) }' "$work/$tag.strace" | head -1
}

i_small=$(instructions "$small" i-small)
i_large=$(instructions "$large" i-large)
s_small=$(syscalls "$small" s-small)
s_large=$(syscalls "$large" s-large)
[[ -n "$i_small" && -n "$i_large" && -n "$s_small" && -n "$s_large" ]] ||
  { echo "per_record_budget: could not read the counts (instructions $i_small/$i_large, syscalls $s_small/$s_large)" >&2; exit 1; }

python3 - "$budget_file" "$small" "$large" "$i_small" "$i_large" "$s_small" "$s_large" \
  "$backend" "$par" "$keys" "$use_perf" "${RECORD:-0}" <<'PY'
import sys
(budget_file, small, large, i_small, i_large, s_small, s_large, backend, par, keys, use_perf,
 record) = sys.argv[1:]
small, large = int(small), int(large)
d = large - small
ipr = (int(i_large) - int(i_small)) / d
spr = (int(s_large) - int(s_small)) / d
src = "perf stat instructions:u" if use_perf == "1" else "valgrind cachegrind"
print(f"keyed-sum, {backend}, p{par}, {keys} keys, runs of {small} and {large} records")
print(f"instructions per record: {ipr:10.1f}   ({src}; {i_small} / {i_large} in all)")
print(f"system calls per record: {spr:10.4f}   (strace -f -c; {s_small} / {s_large} in all)")
key = f"{backend}_p{par}"
if record == "1":
    lines = []
    try:
        lines = [l for l in open(budget_file) if not l.startswith(key + " ")]
    except FileNotFoundError:
        pass
    lines.append(f"{key} {ipr:.1f} {spr:.4f}\n")
    with open(budget_file, "w") as f:
        f.writelines(lines)
    print(f"recorded as the budget of {key} in {budget_file}")
    sys.exit(0)
budget = None
for line in open(budget_file):
    parts = line.split()
    if line.startswith("#") or len(parts) != 3 or parts[0] != key:
        continue
    budget = (float(parts[1]), float(parts[2]))
if budget is None:
    print(f"per_record_budget: no budget for {key} in {budget_file} (RECORD=1 records one)",
          file=sys.stderr)
    sys.exit(2)
b_ipr, b_spr = budget
print(f"budget ({budget_file}): {b_ipr:.1f} instructions, {b_spr:.4f} system calls per record")
failed = False
if ipr > 2 * b_ipr:
    print(f"FAIL: {ipr:.1f} instructions per record is more than twice the budget ({b_ipr:.1f})")
    failed = True
if spr > b_spr + 0.5:
    print(f"FAIL: {spr:.4f} system calls per record: at least one more per record than the "
          f"budget ({b_spr:.4f})")
    failed = True
print("FAIL" if failed else "OK")
sys.exit(1 if failed else 0)
PY
