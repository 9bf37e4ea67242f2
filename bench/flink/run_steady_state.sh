#!/usr/bin/env bash
# Steady-state side by side with Apache Flink: the same jobs on ckpt-engine and on a Flink
# MiniCluster (BenchSteady), each side alone, never concurrently, measured by one method on both.
# A sampler (steady_sampler.py) reads, every 0.25 s while the process runs, the records its
# source vertices have emitted (numRecordsOut over REST, the same request on both sides) and the
# process's CPU time (utime + stime of all threads, /proc/PID/stat). Steady numbers are taken
# between two marks: when the sources have emitted WARM_FRACTION of the records (default 0.15:
# start-up and warm-up are before it, reported apart) and the last sample before END_FRACTION
# (default 0.9); rec/s = records between the marks / wall between them, rec/CPU-s = records /
# CPU between them. The whole-process numbers (/usr/bin/time: JVM and MiniCluster start-up
# included) stay in the table, labelled as such.
# Configurations (CONFIGS, space-separated, default all of these):
#   sum-heap-p1  sum-heap-p2  sum-heap-p2-nockpt  sum-heap-p1-nockpt  sum-rocksdb-p1  sum-rocksdb-p2
#   window-heap-p2  join-heap-p2   (and any JOB-BACKEND-pN[-nockpt] of keyed-sum, window, join;
#   one named twice runs twice, each side alone in turn)
# keyed-sum: numbers 1..N, key = n mod KEYS, running sum per key (value state), discard sink.
# window: the same numbers at event time (n - 1) * STEP_MS, tumbling event-time windows of
#   WINDOW_MS with a sum reduce, each window's (key, start, end, sum) to a discard sink.
# join: sources left and right, 1..N/2 each at event time (n - 1) * STEP_MS, key = n mod KEYS,
#   interval join on the key within +-JOIN_BOUND_MS, each pair (key, left, right) to a discard sink.
# Max parallelism 128, p splits per keyed-sum source (window and join: sources of parallelism 1,
# one split, so event time advances steadily; the keyed operator and sink of parallelism p), a checkpoint every INTERVAL_MS (1000) unless -nockpt.
# Usage: bench/flink/run_steady_state.sh [CKPT_ENGINE]
# Env: RECORDS (keyed-sum heap, default 60000000), RECORDS_ROCKSDB (default 6000000),
# RECORDS_WINDOW (default 30000000), RECORDS_JOIN (default 4000000), KEYS (10000), STEP_MS (1),
# WINDOW_MS (1000000), JOIN_BOUND_MS (1000), INTERVAL_MS (1000), WARM_FRACTION, END_FRACTION,
# FLINK_PROFILE (flink-2 | flink-1.20), CKPT_MAVEN_REPO, CKPT_HARNESS_BUILD (see harness_env.sh),
# KEEP_WORK=1 (keep the samples; the directory is printed).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
engine="${1:-build/release/engine/ckpt-engine}"
[[ -x "$engine" ]] || { echo "run_steady_state: ckpt-engine not found: $engine (build it or pass its path)" >&2; exit 2; }
engine="$(cd "$(dirname "$engine")" && pwd)/$(basename "$engine")"
configs="${CONFIGS:-sum-heap-p1 sum-heap-p2 sum-heap-p2-nockpt sum-rocksdb-p2 window-heap-p2 join-heap-p2}"
keys="${KEYS:-10000}"
step="${STEP_MS:-1}"
window_ms="${WINDOW_MS:-1000000}"
bound="${JOIN_BOUND_MS:-1000}"
interval="${INTERVAL_MS:-1000}"
work="$(mktemp -d "${TMPDIR:-/tmp}/flink-steady.XXXXXX")"
if [[ "${KEEP_WORK:-0}" == 1 ]]; then echo "work directory: $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
me=run_steady_state
source "$root/bench/flink/harness_env.sh"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

# source_json ID FROM TO P: a sequence source of the spec, of parallelism P and P splits; the event
# time jobs' sources are of parallelism 1 (one split, so event time advances with the whole stream).
source_json() {
  local ts="" p=$4
  [[ "$job" != keyed-sum ]] && ts=", \"timestamp_step_ms\": $step" && p=1
  echo "{\"id\": \"$1\", \"kind\": \"sequence-source\", \"uid\": \"$1\", \"parallelism\": $p,
     \"params\": {\"from\": $2, \"to\": $3, \"splits\": $p, \"keys\": $keys$ts}}"
}

# spec FILE: the ckpt-engine job spec of $job, $records, $p, $ival.
spec() {
  local ops edges
  case "$job" in
    keyed-sum)
      ops="$(source_json numbers 1 "$records" "$p"),
    {\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"sum\", \"params\": {\"emit\": \"sum\"}}"
      edges='{"from": "numbers", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}' ;;
    window)
      ops="$(source_json numbers 1 "$records" "$p"),
    {\"id\": \"window\", \"kind\": \"tumbling-window\", \"uid\": \"window\",
     \"params\": {\"size_ms\": $window_ms, \"aggregate\": \"sum\", \"state\": \"reducing\"}}"
      edges='{"from": "numbers", "to": "window", "partitioning": "HASH"},
    {"from": "window", "to": "sink", "partitioning": "FORWARD"}' ;;
    join)
      ops="$(source_json left 1 $((records / 2)) "$p"), $(source_json right 1 $((records / 2)) "$p"),
    {\"id\": \"join\", \"kind\": \"interval-join\", \"uid\": \"join\",
     \"params\": {\"lower_ms\": -$bound, \"upper_ms\": $bound}}"
      edges='{"from": "left", "to": "join", "partitioning": "HASH", "input": 0},
    {"from": "right", "to": "join", "partitioning": "HASH", "input": 1},
    {"from": "join", "to": "sink", "partitioning": "FORWARD"}' ;;
  esac
  cat > "$1" <<JSON
{
  "name": "bench-$job",
  "parallelism": $p,
  "max_parallelism": 128,
  "operators": [
    $ops,
    {"id": "sink", "kind": "discard", "uid": "sink"}
  ],
  "edges": [
    $edges
  ],
  "checkpointing": {"interval_ms": $ival, "num_retained": 2}
}
JSON
}

# measure NAME CMD...: CMD under /usr/bin/time (whole process) with the sampler beside it.
measure() {
  local name=$1
  shift
  echo "  $name ..." >&2
  /usr/bin/time -f "%e %U %S" -o "$work/$name.time" "$@" > "$work/$name.log" 2>&1 &
  local wrapper=$!
  python3 "$root/bench/flink/steady_sampler.py" "$wrapper" "$work/$name.log" "$work/$name.samples" &
  local sampler=$!
  if ! wait "$wrapper"; then
    wait "$sampler" || true
    tail -20 "$work/$name.log" >&2
    echo "run_steady_state: $name failed" >&2
    exit 1
  fi
  wait "$sampler"
}

: > "$work/configs"
for c in $configs; do
  [[ "$c" =~ ^(sum|keyed-sum|window|join)-(heap|rocksdb)-p([0-9]+)(-nockpt)?$ ]] ||
    { echo "run_steady_state: bad configuration '$c' (JOB-BACKEND-pN[-nockpt], e.g. sum-heap-p2)" >&2; exit 2; }
  job="${BASH_REMATCH[1]/#sum/keyed-sum}"
  backend="${BASH_REMATCH[2]}"
  p="${BASH_REMATCH[3]}"
  ival=$interval
  [[ -n "${BASH_REMATCH[4]}" ]] && ival=0
  case "$job-$backend" in
    keyed-sum-heap) records="${RECORDS:-60000000}" ;;
    *-rocksdb) records="${RECORDS_ROCKSDB:-6000000}" ;;
    window-heap) records="${RECORDS_WINDOW:-30000000}" ;;
    join-heap) records="${RECORDS_JOIN:-4000000}" ;;
  esac
  [[ "$job" == join ]] && records=$((records / 2 * 2))
  arg=0
  [[ "$job" == window ]] && arg=$window_ms
  [[ "$job" == join ]] && arg=$bound
  # A configuration named twice is run twice: the second run's files are NAME.2, and so on.
  name=$c
  for ((n = 2; ; n++)); do grep -q "^$name " "$work/configs" || break; name="$c.$n"; done
  echo "== $name: $job, $records records, $backend, p$p, checkpoint interval $ival ms (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  spec "$work/$name.json"
  rm -rf "$work/ck"
  measure "$name.engine" "$engine" run "$work/$name.json" --checkpoint-dir "$work/ck" --interval "$ival" \
    --state-backend "$backend" --rest-port 0
  rm -rf "$work/ck"
  fbackend=$backend
  [[ "$backend" == heap ]] && fbackend=hashmap
  measure "$name.flink" java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.BenchSteady "$job" "$records" "$keys" "$p" \
    "$fbackend" "$ival" "$work/ck" "$step" "$arg"
  rm -rf "$work/ck"
  echo "$name $job $backend $p $ival $records" >> "$work/configs"
done

python3 "$root/bench/flink/steady_table.py" "$work" "$(nproc)" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "${WARM_FRACTION:-0.15}" "${END_FRACTION:-0.9}" "$profile"
