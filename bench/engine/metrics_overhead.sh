#!/usr/bin/env bash
# The cost of per-task metrics: the keyed-sum job of steady_state.sh (sequence 1..RECORDS, key =
# n mod KEYS, running sum per key, discard sink, parallelism 2, max parallelism 128, a checkpoint
# every INTERVAL_MS) run with `--task-metrics on` and `--task-metrics off` taking turns, RUNS
# rounds, in one run; medians of wall time and of records per CPU-second (user + sys of the whole
# process, /usr/bin/time), and the ratio on/off (target: within 3 %). A BASELINE ckpt-engine (a
# build without task metrics, e.g. main's) joins the turns when given: with metrics off the
# runtime still keeps its plain per-record counts, which only that comparison shows.
# Results in steady-state.md.
# Usage: bench/engine/metrics_overhead.sh CKPT_ENGINE [BASELINE_CKPT_ENGINE]
# Env: RECORDS (default 40000000), KEYS (default 10000), RUNS (default 5), INTERVAL_MS (default
# 1000), SCRAPE_MS (default 0: no scraping; else `--metrics-port 0` and /metrics fetched every
# SCRAPE_MS ms while the metrics-on runs last, as a Prometheus server would).
set -euo pipefail
(( $# >= 1 && $# <= 2 )) || { echo "usage: $0 CKPT_ENGINE [BASELINE_CKPT_ENGINE]" >&2; exit 2; }
for e in "$@"; do
  [[ -x "$e" ]] || { echo "metrics_overhead: ckpt-engine not found: $e" >&2; exit 2; }
done
command -v /usr/bin/time > /dev/null || { echo "metrics_overhead: /usr/bin/time not found" >&2; exit 2; }
engine="$1"
baseline="${2:-}"
records="${RECORDS:-40000000}"
keys="${KEYS:-10000}"
runs="${RUNS:-5}"
interval="${INTERVAL_MS:-1000}"
scrape_ms="${SCRAPE_MS:-0}"
work="$(mktemp -d "${TMPDIR:-/tmp}/metrics-overhead.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cat > "$work/job.json" <<JSON
{
  "name": "metrics-overhead-keyed-sum",
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

# run LABEL ENGINE EXTRA_ARGS...: one run, appending "LABEL wall user sys" to results.
run() {
  local label="$1" bin="$2"
  shift 2
  rm -rf "$work/ck"
  local scraper=""
  if [[ "$label" == on && "$scrape_ms" != 0 ]]; then
    set -- "$@" --metrics-port 0
  fi
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$bin" run "$work/job.json" \
    --checkpoint-dir "$work/ck" --interval "$interval" "$@" > "$work/log" 2>&1 &
  local pid=$!
  if [[ "$label" == on && "$scrape_ms" != 0 ]]; then
    python3 - "$work/log" "$scrape_ms" "$pid" <<'PY' &
import os, re, sys, time, urllib.request
log, every, pid = sys.argv[1], int(sys.argv[2]) / 1000.0, int(sys.argv[3])
url = None
while url is None:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(0)
    m = re.search(r"Metrics endpoint: (\S+)", open(log).read())
    url = m.group(1) if m else None
    time.sleep(0.01)
while True:
    try:
        urllib.request.urlopen(url, timeout=2).read()
    except Exception:
        sys.exit(0)
    time.sleep(every)
PY
    scraper=$!
  fi
  wait "$pid" || { tail -20 "$work/log" >&2; echo "metrics_overhead: $bin failed" >&2; exit 1; }
  [[ -n "$scraper" ]] && { kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; }
  read -r wall user sys < "$work/time"
  echo "$label $wall $user $sys" >> "$work/results"
  echo "  round $round $label: wall $wall s, user $user s, sys $sys s" >&2
}

echo "keyed-sum: $records records, $keys keys, p2, heap, checkpoint every $interval ms;" \
  "$runs rounds of on/off${baseline:+/baseline} in turns; scrape every ${scrape_ms} ms (0: none);" \
  "$(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 1; round <= runs; round++)); do
  # Alternate the order so that neither variant always runs first in a round.
  if ((round % 2)); then
    run on "$engine" --task-metrics on
    run off "$engine" --task-metrics off
  else
    run off "$engine" --task-metrics off
    run on "$engine" --task-metrics on
  fi
  [[ -n "$baseline" ]] && run baseline "$baseline"
done
python3 - "$work/results" "$records" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import statistics, sys
path, records, load = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [l.split() for l in open(path)]
med = {}
print(f"{'variant':<10} {'wall s':>8} {'cpu s':>8} {'M rec/s':>8} {'M rec/CPU-s':>12}  (medians; per run)")
for label in ("on", "off", "baseline"):
    mine = [r for r in rows if r[0] == label]
    if not mine:
        continue
    wall = statistics.median(float(r[1]) for r in mine)
    per_cpu = [records / (float(r[2]) + float(r[3])) / 1e6 for r in mine]
    cpu = statistics.median(float(r[2]) + float(r[3]) for r in mine)
    med[label] = (wall, statistics.median(per_cpu))
    print(f"{label:<10} {wall:8.2f} {cpu:8.2f} {records / wall / 1e6:8.2f} "
          f"{statistics.median(per_cpu):12.2f}  ({', '.join(f'{x:.2f}' for x in per_cpu)})")
for other in ("off", "baseline"):
    if other in med:
        on, ref = med["on"], med[other]
        print(f"on/{other}: records per CPU-second {on[1] / ref[1]:.3f}, wall time "
              f"{on[0] / ref[0]:.3f} (target: records per CPU-second >= 0.97)")
print(f"load after: {load}")
PY
