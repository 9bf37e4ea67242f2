#!/usr/bin/env bash
# Issue 11 §4, side by side with Apache Flink in one run (each side alone, never concurrently):
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
# CKPT_HARNESS_BUILD (a harness build root to reuse), SKIP_REMAP=1 / SKIP_KEYED=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
tool="${1:-build/release/ckpt-tool/ckpt-tool}"
engine="${2:-build/release/engine/ckpt-engine}"
[[ -x "$tool" ]] || { echo "run_side_by_side: ckpt-tool not found: $tool (build it or pass its path)" >&2; exit 2; }
[[ -x "$engine" ]] || { echo "run_side_by_side: ckpt-engine not found: $engine (build it or pass its path)" >&2; exit 2; }
tool="$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")"
engine="$(cd "$(dirname "$engine")" && pwd)/$(basename "$engine")"
for c in java mvn python3 curl /usr/bin/time; do
  command -v "$c" > /dev/null || { echo "run_side_by_side: $c not found (scripts/install-deps.sh)" >&2; exit 2; }
done
repo="${CKPT_MAVEN_REPO:-$HOME/.m2/repository}"
profile="${FLINK_PROFILE:-flink-2}"
line="${profile#flink-}"
records="${RECORDS:-1500000}"
keys="${KEYS:-10000}"
work="$(mktemp -d "${TMPDIR:-/tmp}/flink-side-by-side.XXXXXX")"
trap 'rm -rf "$work"' EXIT
h="$root/tests/interop/flink"
broot="${CKPT_HARNESS_BUILD:-$work/build}"
mkdir -p "$repo"
if [[ ! -f "$broot/target-$line/classes/ckpt/interop/BenchKeyedSum.class" ]]; then
  echo "building the Flink harness ($profile) ..." >&2
  mvn -B -q -f "$h/pom.xml" -Dmaven.repo.local="$repo" -Dharness.build.root="$broot" -P"$profile" package \
    > "$work/mvn.log" 2>&1 || { tail -30 "$work/mvn.log" >&2; echo "run_side_by_side: Maven build failed" >&2; exit 1; }
fi
build="$broot/target-$line"
mapfile -t jvm_opts < "$h/jvm-opts.txt"
cp="$build/classes:$(cat "$build/classpath.txt")"
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
  timed remap_ckpt "$work/remap-ckpt.log" "$tool" -q remap "$work/sp" --to "$work/out-ckpt" --map "id:${ids[0]}=synthetic-3-v2"
  timed remap_spa "$work/remap-spa.log" java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.BenchRemapSpa \
    "$work/sp" "$work/out-spa" synthetic-3 synthetic-3-v2
  for o in out-ckpt out-spa; do
    "$tool" ls "$work/$o" | grep -q "${ids[1]}" || { echo "run_side_by_side: $o lacks operator ${ids[1]} (uid synthetic-3-v2)" >&2; exit 1; }
    if "$tool" ls "$work/$o" | grep -q "${ids[0]}"; then
      echo "run_side_by_side: $o still has operator ${ids[0]}" >&2; exit 1
    fi
  done
  rm -rf "$work/out-ckpt" "$work/out-spa"
fi

if [[ "${SKIP_KEYED:-0}" != 1 ]]; then
  echo "== 2. keyed-sum, $records records, $keys keys, parallelism 2, checkpoint every 1 s, heap" >&2
  cat > "$work/keyed-sum.json" <<JSON
{
  "name": "bench-keyed-sum",
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
  "checkpointing": {"interval_ms": 1000, "num_retained": 2}
}
JSON
  # ckpt-engine in the background; its REST /jobs/:id/checkpoints polled once a second (curl is
  # another process: not in the engine's CPU time), the last answer kept.
  ( /usr/bin/time -f "%e %U %S" -o "$work/engine.time" "$engine" run "$work/keyed-sum.json" \
      --checkpoint-dir "$work/eck" --interval 1000 --state-backend heap --rest-port 0 > "$work/engine.log" 2>&1
    echo $? > "$work/engine.rc" ) &
  while [[ ! -f "$work/engine.rc" ]]; do
    url=$(sed -n 's#^REST endpoint: ##p' "$work/engine.log" | head -1)
    id=$(sed -n 's#^Job \([0-9a-f]\{32\}\) .*#\1#p' "$work/engine.log" | head -1)
    if [[ -n "$url" && -n "$id" ]]; then
      curl -sf "$url/jobs/$id/checkpoints" > "$work/engine-cp.tmp" 2>/dev/null && mv "$work/engine-cp.tmp" "$work/engine-cp.json" || true
    fi
    sleep 1
  done
  wait
  [[ "$(cat "$work/engine.rc")" == 0 ]] || { tail -20 "$work/engine.log" >&2; echo "run_side_by_side: ckpt-engine failed" >&2; exit 1; }
  echo "keyed_engine $(cat "$work/engine.time")" >> "$res"
  timed keyed_flink "$work/flink.log" java "${jvm_opts[@]}" -cp "$cp" ckpt.interop.BenchKeyedSum \
    "$records" "$keys" 2 "$work/fck"
fi

python3 "$root/bench/flink/side_by_side_table.py" "$res" "$work" "$records" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
