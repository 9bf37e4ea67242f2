#!/usr/bin/env bash
# Side by side with Apache Flink in one run (each side alone, never concurrently):
#  1. remap of a 10,000-subtask Flink savepoint (GenMetadata: 10 operators x 1000 subtasks, written
#     by Flink's own MetadataSerializer, plus its 10,000 relative state files so Flink can copy
#     them): `ckpt-tool remap --map uid:A=B` vs the State Processor API job
#     SavepointWriter.fromExistingSavepoint(...).changeOperatorIdentifier(A, B).write(OUT)
#     (BenchRemapSpa) — whole-process wall and CPU (user+sys) of each; target >= 20x.
#  2. the keyed-sum job (sequence 1..RECORDS, key = n mod KEYS, running sum per key, discard sink,
#     parallelism 2, max parallelism 128, heap backend, a checkpoint every 1 s) on ckpt-engine vs
#     the same job on a Flink MiniCluster (BenchKeyedSum): records/s (whole process and, for Flink,
#     its job's net runtime), records per CPU-second; target ckpt-engine >= 2x Flink per core; and
#     the checkpoint end-to-end duration of both from their REST /jobs/:id/checkpoints (Flink's
#     after the job finished; ckpt-engine's polled while it runs, last answer kept).
# Usage: bench/flink/run_side_by_side.sh [CKPT_TOOL [CKPT_ENGINE]]
# Env: CKPT_MAVEN_REPO (Maven local repository, default ~/.m2/repository), FLINK_PROFILE
# (flink-2 | flink-1.20, default flink-2), RECORDS (default 1500000), KEYS (default 10000),
# CKPT_HARNESS_BUILD (a harness build root to reuse), SKIP_REMAP=1 / SKIP_KEYED=1, REMAP_RUNS
# (runs of each remap, default 3: the table shows the medians).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
tool="${1:-build/release/ckpt-tool/ckpt-tool}"
engine="${2:-build/release/engine/ckpt-engine}"
[[ -x "$tool" ]] || { echo "run_side_by_side: ckpt-tool not found: $tool (build it or pass its path)" >&2; exit 2; }
[[ -x "$engine" ]] || { echo "run_side_by_side: ckpt-engine not found: $engine (build it or pass its path)" >&2; exit 2; }
tool="$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")"
engine="$(cd "$(dirname "$engine")" && pwd)/$(basename "$engine")"
records="${RECORDS:-1500000}"
keys="${KEYS:-10000}"
work="$(mktemp -d "${TMPDIR:-/tmp}/flink-side-by-side.XXXXXX")"
trap 'rm -rf "$work"' EXIT
me=run_side_by_side
source "$root/bench/flink/harness_env.sh"
res="$work/results"
: > "$res"

timed() {  # timed NAME LOG CMD...: whole-process wall/user/sys of CMD into $res as "NAME wall user sys"
  local name=$1 log=$2
  shift 2
  /usr/bin/time -f "%e %U %S" -o "$work/$name.time" "$@" > "$log" 2>&1 ||
    { tail -20 "$log" >&2; echo "run_side_by_side: $name failed" >&2; exit 1; }
  echo "$name $(cat "$work/$name.time")" >> "$res"
}

if [[ "${SKIP_REMAP:-0}" != 1 ]]; then
  echo "== 1. remap of a 10,000-subtask Flink savepoint" >&2
  java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.GenMetadata "$work/sp" 10 1000 >&2
  python3 - "$work/sp" <<'PY'
import sys
# GenMetadata's handles name OPERATOR-SUBTASK files of 4096 + subtask bytes next to _metadata.
for o in range(10):
    for s in range(1000):
        with open(f"{sys.argv[1]}/synthetic-{o}-{s:04d}", "wb") as f:
            f.truncate(4096 + s)
PY
  sync
  # Flink 1.20's _metadata carries no uids: ckpt-tool maps the old operator ID (Flink's hash of
  # uid synthetic-3) to the new uid; both outputs must then hold the new uid's operator ID.
  mapfile -t ids < <(java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.BenchRemapSpa --uid-hash synthetic-3 synthetic-3-v2 2>/dev/null)
  # REMAP_RUNS runs of each, taking turns (the table takes the median): one JVM run can be 25%
  # faster or slower than the next on an idle machine.
  for ((run = 1; run <= ${REMAP_RUNS:-3}; run++)); do
    rm -rf "$work/out-ckpt" "$work/out-spa"
    timed remap_ckpt "$work/remap-ckpt.log" "$tool" -q remap "$work/sp" --to "$work/out-ckpt" --map "id:${ids[0]}=synthetic-3-v2"
    timed remap_spa "$work/remap-spa.log" java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.BenchRemapSpa \
      "$work/sp" "$work/out-spa" synthetic-3 synthetic-3-v2
  done
  for o in out-ckpt out-spa; do
    "$tool" ls "$work/$o" | grep -q "${ids[1]}" || { echo "run_side_by_side: $o lacks operator ${ids[1]} (uid synthetic-3-v2)" >&2; exit 1; }
    if "$tool" ls "$work/$o" | grep -q "${ids[0]}"; then
      echo "run_side_by_side: $o still has operator ${ids[0]}" >&2; exit 1
    fi
  done
  rm -rf "$work/out-ckpt" "$work/out-spa"
fi

# keyed_json FILE RATE: the keyed-sum job spec (RATE records/s in all, 0 = as fast as it goes).
keyed_json() {
  cat > "$1" <<JSON
{
  "name": "bench-keyed-sum",
  "parallelism": 2,
  "max_parallelism": 128,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
     "params": {"from": 1, "to": $records, "splits": 2, "keys": $keys, "rate_per_second": $2}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "sum"}},
    {"id": "sink", "kind": "discard", "uid": "sink"}
  ],
  "edges": [
    {"from": "numbers", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}
  ],
  "checkpointing": {"interval_ms": 1000, "num_retained": 2}
}
JSON
}

# run_engine NAME SPEC: ckpt-engine in the background under /usr/bin/time; its REST
# /jobs/:id/checkpoints polled every 0.2 s (curl is another process: not in the engine's CPU
# time), the last answer kept as NAME-cp.json.
run_engine() {
  local name=$1 spec=$2
  ( /usr/bin/time -f "%e %U %S" -o "$work/$name.time" "$engine" run "$spec" \
      --checkpoint-dir "$work/$name-ck" --interval 1000 --state-backend heap --rest-port 0 > "$work/$name.log" 2>&1
    echo $? > "$work/$name.rc" ) &
  while [[ ! -f "$work/$name.rc" ]]; do
    url=$(sed -n 's#^REST endpoint: ##p' "$work/$name.log" | head -1)
    id=$(sed -n 's#^Job \([0-9a-f]\{32\}\) .*#\1#p' "$work/$name.log" | head -1)
    if [[ -n "$url" && -n "$id" ]]; then
      curl -sf "$url/jobs/$id/checkpoints" > "$work/$name-cp.tmp" 2>/dev/null && mv "$work/$name-cp.tmp" "$work/$name-cp.json" || true
    fi
    sleep 0.2
  done
  wait
  [[ "$(cat "$work/$name.rc")" == 0 ]] || { tail -20 "$work/$name.log" >&2; echo "run_side_by_side: ckpt-engine ($name) failed" >&2; exit 1; }
  echo "$name $(cat "$work/$name.time")" >> "$res"
}

if [[ "${SKIP_KEYED:-0}" != 1 ]]; then
  echo "== 2. keyed-sum, $records records, $keys keys, parallelism 2, checkpoint every 1 s, heap" >&2
  keyed_json "$work/keyed-sum.json" 0
  run_engine keyed_engine "$work/keyed-sum.json"
  timed keyed_flink "$work/flink.log" java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.BenchKeyedSum \
    "$records" "$keys" 2 "$work/fck"
  # At full speed ckpt-engine is done before its first checkpoint: for the checkpoint durations
  # on the same state, the same job again at the records/s of Flink's job (net runtime), so it
  # runs as long and checkpoints as often.
  net_ms=$(sed -n 's/^RESULT .*net_runtime_ms=\([0-9]*\).*/\1/p' "$work/flink.log" | head -1)
  if [[ -n "$net_ms" && "$net_ms" -gt 0 ]]; then
    keyed_json "$work/keyed-sum-paced.json" $(( records * 1000 / net_ms ))
    run_engine keyed_engine_paced "$work/keyed-sum-paced.json"
  fi
fi

python3 "$root/bench/flink/side_by_side_table.py" "$res" "$work" "$records" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
