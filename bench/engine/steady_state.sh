#!/usr/bin/env bash
# Steady-state throughput of the keyed-sum job on ckpt-engine (the job of
# bench/flink/run_side_by_side.sh: sequence 1..RECORDS, key = n mod KEYS, running sum per key,
# discard sink, parallelism 2, max parallelism 128, a checkpoint every 1 s): records per second
# and records per CPU-second (user + sys of the whole process, /usr/bin/time), RUNS runs of each
# engine given, taking turns, and the median of each. Results in steady-state.md.
# Usage: bench/engine/steady_state.sh CKPT_ENGINE [OTHER_CKPT_ENGINE ...]
# Env: RECORDS (default 40000000), KEYS (default 10000), RUNS (default 3), BACKEND (heap |
# rocksdb, default heap), INTERVAL_MS (checkpoint interval, default 1000).
set -euo pipefail
(( $# >= 1 )) || { echo "usage: $0 CKPT_ENGINE [OTHER_CKPT_ENGINE ...]" >&2; exit 2; }
for e in "$@"; do
  [[ -x "$e" ]] || { echo "steady_state: ckpt-engine not found: $e" >&2; exit 2; }
done
command -v /usr/bin/time > /dev/null || { echo "steady_state: /usr/bin/time not found" >&2; exit 2; }
records="${RECORDS:-40000000}"
keys="${KEYS:-10000}"
runs="${RUNS:-3}"
backend="${BACKEND:-heap}"
interval="${INTERVAL_MS:-1000}"
work="$(mktemp -d "${TMPDIR:-/tmp}/steady-state.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cat > "$work/job.json" <<JSON
{
  "name": "steady-state-keyed-sum",
  "parallelism": 2,
  "max_parallelism": 128,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
     "params": {"from": 1, "to": $records, "splits": 2, "keys": $keys}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "sum"}},
    {"id": "sink", "kind": "discard", "uid": "sink"}
  ],
  "edges": [
    {"from": "numbers", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}
  ],
  "checkpointing": {"interval_ms": $interval, "num_retained": 2}
}
JSON
echo "keyed-sum: $records records, $keys keys, p2, $backend, checkpoint every $interval ms;" \
  "$runs runs each, in turns; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((run = 1; run <= runs; run++)); do
  i=0
  for e in "$@"; do
    rm -rf "$work/ck"
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$e" run "$work/job.json" \
      --checkpoint-dir "$work/ck" --interval "$interval" --state-backend "$backend" \
      > "$work/log" 2>&1 || { tail -20 "$work/log" >&2; echo "steady_state: $e failed" >&2; exit 1; }
    read -r wall user sys < "$work/time"
    echo "$i $wall $user $sys" >> "$work/results"
    echo "  run $run $e: wall $wall s, user $user s, sys $sys s" >&2
    i=$((i + 1))
  done
done
python3 - "$work/results" "$records" "$(cut -d' ' -f1-3 /proc/loadavg)" "$@" <<'PY'
import statistics, sys
path, records, load, engines = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
rows = [l.split() for l in open(path)]
print(f"{'engine':<48} {'wall s':>8} {'cpu s':>8} {'M rec/s':>8} {'M rec/CPU-s':>12}  (medians)")
for i, e in enumerate(engines):
    mine = [r for r in rows if int(r[0]) == i]
    wall = statistics.median(float(r[1]) for r in mine)
    cpu = statistics.median(float(r[2]) + float(r[3]) for r in mine)
    per_cpu = [records / (float(r[2]) + float(r[3])) / 1e6 for r in mine]
    print(f"{e[-48:]:<48} {wall:8.2f} {cpu:8.2f} {records / wall / 1e6:8.2f} "
          f"{statistics.median(per_cpu):12.2f}  (runs: {', '.join(f'{x:.2f}' for x in per_cpu)})")
print(f"load after: {load}")
PY
