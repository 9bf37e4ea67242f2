#!/usr/bin/env bash
# Engine checkpoint duration on S3 against local disk, for the same job and state: the keyed-sum
# job (sequence source -> running sum per key -> discard) with KEYS keys, paced at RATE records
# per second for RECORDS records, a checkpoint every INTERVAL_MS, run by ckpt-engine once with
# --checkpoint-dir on local disk and once on s3proxy (127.0.0.1, objects on disk; started by
# tests/format/s3/s3proxy_start.sh), for each backend in BACKENDS, taking turns RUNS times.
# Durations and sizes are the engine's own (its REST answer /jobs/:id/checkpoints, written by
# --archive-dir after each checkpoint): end-to-end duration avg / max and checkpointed size of
# the completed checkpoints, medians over the runs, and the ratio S3 / local.
#   bench/s3/engine_checkpoint_s3.sh [CKPT_ENGINE]        (default build/release/engine/ckpt-engine)
# Env: KEYS (default 1000000), RECORDS (4000000), RATE (200000), INTERVAL_MS (2000), RUNS (3),
# BACKENDS ("heap rocksdb-incremental"), P (parallelism, 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
engine=${1:-build/release/engine/ckpt-engine}
[[ -x $engine ]] || { echo "engine_checkpoint_s3: ckpt-engine not found: $engine (build it first)" >&2; exit 2; }
engine=$(cd "$(dirname "$engine")" && pwd)/$(basename "$engine")
for c in curl python3; do command -v $c >/dev/null || { echo "engine_checkpoint_s3: $c not found" >&2; exit 2; }; done
keys=${KEYS:-1000000} records=${RECORDS:-4000000} rate=${RATE:-200000}
interval=${INTERVAL_MS:-2000} runs=${RUNS:-3} backends=${BACKENDS:-heap rocksdb-incremental} p=${P:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/engine-ckpt-s3.XXXXXX")
trap 'bash tests/format/s3/s3proxy_stop.sh "$work/server" 2>/dev/null || true; rm -rf "$work"' EXIT
S3PROXY_BLOBSTORE_DIR="$work/blobs" bash tests/format/s3/s3proxy_start.sh "$work/server"
endpoint=$(cat "$work/server/endpoint")
export AWS_ENDPOINT_URL=$endpoint AWS_ACCESS_KEY_ID=AKIDCKPTS3TEST000001 AWS_REGION=us-east-1
export AWS_SECRET_ACCESS_KEY='ckpt/s3+test/SECRETkey0000000000000000' HOME=$work
unset AWS_PROFILE AWS_SESSION_TOKEN
# curl signs the header it is given; the server wants the empty body's SHA-256 named.
curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
  -H "x-amz-content-sha256: $(printf '' | sha256sum | cut -d' ' -f1)" -X PUT "$endpoint/bench" >/dev/null || { echo "engine_checkpoint_s3: cannot create bucket" >&2; exit 1; }

cat > "$work/job.json" <<JSON
{"name": "engine-checkpoint-s3", "max_parallelism": 128,
 "operators": [
  {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
   "params": {"from": 1, "to": $records, "splits": $p, "keys": $keys, "rate_per_second": $rate}},
  {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "sum"}},
  {"id": "sink", "kind": "discard", "uid": "sink"}],
 "edges": [{"from": "numbers", "to": "sum", "partitioning": "HASH"},
           {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]}
JSON
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)," \
     "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "keyed-sum: $records records at $rate/s, $keys keys, p$p, a checkpoint every $interval ms;" \
     "$runs runs of each side, in turns"
: > "$work/results"
n=0
for ((run = 1; run <= runs; run++)); do
  for backend in $backends; do
    opts=(--state-backend heap)
    [[ $backend == rocksdb* ]] && opts=(--state-backend rocksdb --incremental "$([[ $backend == *incremental ]] && echo true || echo false)")
    for side in local s3; do
      n=$((n + 1))
      dir="$work/ck-$n"
      [[ $side == s3 ]] && dir="s3://bench/ck-$n"
      "$engine" run "$work/job.json" -p "$p" --checkpoint-dir "$dir" --interval "$interval" \
        --num-retained 2 "${opts[@]}" --state-local-dir "$work/local-$n" \
        --archive-dir "$work/archive-$n" > "$work/log-$n" 2>&1 ||
        { tail -20 "$work/log-$n" >&2; echo "engine_checkpoint_s3: $backend on $side failed" >&2; exit 1; }
      python3 - "$work/archive-$n" "$backend" "$side" >> "$work/results" <<'PY'
import json, os, sys
d, backend, side = sys.argv[1:]
[name] = os.listdir(d)
for entry in json.load(open(os.path.join(d, name)))["archive"]:
    if entry["path"].endswith("/checkpoints"):
        s = json.loads(entry["json"])["summary"]
        e2e, size = s["end_to_end_duration"], s.get("checkpointed_size", s.get("state_size"))
        n = json.loads(entry["json"])["counts"]["completed"]
        print(backend, side, n, e2e["avg"], e2e["max"], size["avg"])
        break
else:
    sys.exit("no /checkpoints answer in the archive of " + name)
PY
      tail -1 "$work/results" | awk '{printf "  run: %s on %s: %d checkpoints, e2e avg %d ms, max %d ms, size avg %d B\n", $1, $2, $3, $4, $5, $6}' >&2
      rm -rf "$work/ck-$n" "$work/local-$n"
    done
  done
done
python3 - "$work/results" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print(f"{'backend':<22} {'side':<6} {'ckpts':>6} {'e2e avg ms':>11} {'e2e max ms':>11} {'size avg':>12}  (medians)")
med = {}
for backend in dict.fromkeys(r[0] for r in rows):
    for side in ("local", "s3"):
        sel = [r for r in rows if r[0] == backend and r[1] == side]
        m = [statistics.median(float(r[i]) for r in sel) for i in (2, 3, 4, 5)]
        med[backend, side] = m
        print(f"{backend:<22} {side:<6} {m[0]:>6.0f} {m[1]:>11.0f} {m[2]:>11.0f} {m[3]/1048576:>9.1f} MiB")
    l, s = med[backend, "local"][1], med[backend, "s3"][1]
    print(f"{backend:<22} ratio S3 / local, end-to-end avg: {s / l:.2f}x" if l > 0 else
          f"{backend:<22} local end-to-end avg is 0 ms: no ratio")
print(f"load at the end: {sys.argv[2]}")
PY
