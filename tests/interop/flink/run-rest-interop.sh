#!/usr/bin/env bash
# Flink's own REST client against ckpt-engine (ctest interop.flink_rest, label `interop`):
#   run-rest-interop.sh CKPT_ENGINE SCRATCH_PARENT
# For Flink 1.20 and 2.x (the harness's Maven profiles; local repository $CKPT_MAVEN_REPO,
# default $HOME/.m2/repository):
# 1. RestClusterClient (RestInterop client) lists the engine's job, triggers a savepoint and stops
#    the job with a savepoint (--savepointPath); both must be complete snapshots on disk, and the
#    engine must exit 0 after the stop;
# 2. RestClusterClient.cancel cancels a second engine, which exits reporting CANCELED;
# 3. the key sets of each REST response (RestInterop keys): a MiniCluster running a keyed job
#    with checkpoints and a savepoint vs ckpt-engine running the same kind of job: every key
#    Flink's answer has must be in ours (extra keys of ours are listed, allowed);
# 4. the savepoint Flink's client triggered (1.) and one triggered with `ckpt-engine savepoint`
#    (3.) each restore into a run of the job without its rate limit, to the end of its input:
#    both runs must end with the same sum per key, the exact sum of the job's input.
# Fails (never skips) when java, mvn or Maven Central is missing. Keeps the scratch dir on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -ne 2 ]]; then
  echo "usage: $0 CKPT_ENGINE SCRATCH_PARENT" >&2
  exit 2
fi
source "$here/harness-lib.sh"
interop_init "$1" "$2" rest python3
engine="$binary"
echo "rest interop: scratch $scratch" >&2
export CKPT_ENGINE_STATE_FILE="$scratch/engine-state.json"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

to=1000000  # 200 s at 5000 records/s: the job outlives each client step; a restore (no rate limit) finishes
job_json() {  # $1 = file, $2 = sink dir, $3 = rate (records/s)
  cat >"$1" <<JOB
{"name": "rest-interop", "parallelism": 2, "max_parallelism": 128,
 "operators": [
   {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
    "params": {"from": 1, "to": $to, "splits": 4, "keys": 8, "rate_per_second": ${3:-5000}}},
   {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
   {"id": "sink", "kind": "file-sink", "uid": "sums", "params": {"path": "$2"}}],
 "edges": [{"from": "numbers", "to": "sum", "partitioning": "HASH"},
           {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]}
JOB
}

# Starts an engine on $1 (a run dir); sets $address, $job_id, $engine_pid once it serves and
# has a completed checkpoint.
start_engine() {
  local dir="$1"
  mkdir -p "$dir"
  job_json "$dir/job.json" "$dir/out"
  rm -f "$CKPT_ENGINE_STATE_FILE"
  "$engine" run "$dir/job.json" --checkpoint-dir "$dir/ckpt" --interval 100 --rest-port 0 \
    >"$dir/engine.log" 2>&1 &
  engine_pid=$!
  pids+=("$engine_pid")
  for _ in $(seq 600); do
    if [[ -f "$CKPT_ENGINE_STATE_FILE" ]] && compgen -G "$dir/ckpt/*/chk-*/_metadata" >/dev/null; then
      address="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["address"])' "$CKPT_ENGINE_STATE_FILE")"
      job_id="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$CKPT_ENGINE_STATE_FILE")"
      return 0
    fi
    kill -0 "$engine_pid" 2>/dev/null || fail "ckpt-engine exited early: $(tail -5 "$dir/engine.log")"
    sleep 0.1
  done
  fail "ckpt-engine did not serve within 60 s (see $dir/engine.log)"
}

# Restores savepoint $1 into a run of the job without a rate limit in dir $2, to the end of its
# input; writes the final sum per key ("key sum" lines) to $2/sums.txt.
final_sums() {
  local sp="$1" dir="$2"
  mkdir -p "$dir"
  job_json "$dir/job.json" "$dir/out" 0
  "$engine" run "$dir/job.json" -s "$sp" --checkpoint-dir "$dir/ckpt" >"$dir/engine.log" 2>&1 ||
    { echo "restore of $sp failed: $(tail -3 "$dir/engine.log")" >&2; return 1; }
  python3 - "$dir/out" >"$dir/sums.txt" <<'PY'
import os, re, sys
final = {}
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        if not name.startswith("part-"):
            continue  # in-progress and pending files are dot files
        for line in open(os.path.join(root, name)):
            nums = re.findall(r"-?\d+", line)
            if len(nums) >= 2:
                final[int(nums[0])] = max(final.get(int(nums[0]), 0), int(nums[-1]))
for k in sorted(final):
    print(k, final[k])
PY
}
expected_sums() {
  python3 -c 'import sys; n=int(sys.argv[1]); [print(k, sum(range(k if k else 8, n + 1, 8))) for k in range(8)]' "$to"
}

status=0
for profile in "${profiles[@]}"; do
  sp=""
  build_harness "$profile"
  java_run() { java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.RestInterop "$@"; }

  # 1. list, savepoint, stop --savepointPath with Flink's RestClusterClient.
  run="$scratch/$line-client"
  start_engine "$run"
  if ! java_run client --address "$address" --job "$job_id" --dir "$run/sp" >"$run/client.log" 2>&1; then
    echo "FAIL [$line] RestClusterClient against ckpt-engine: $(grep -v SLF4J "$run/client.log" | tail -5)" >&2
    status=1
  else
    sp="$(awk '/^SAVEPOINT /{print $2}' "$run/client.log")"
    stopped="$(awk '/^STOPPED /{print $2}' "$run/client.log")"
    grep -q "^LIST $job_id rest-interop RUNNING" "$run/client.log" || { echo "FAIL [$line] listJobs: $(grep ^LIST "$run/client.log")" >&2; status=1; }
    for s in "$sp" "$stopped"; do
      [[ -n "$s" && -f "$s/_metadata" ]] || { echo "FAIL [$line] savepoint '$s' has no _metadata" >&2; status=1; }
    done
    if wait "$engine_pid"; then
      grep -q "STOPPED with savepoint $stopped" "$run/engine.log" || { echo "FAIL [$line] engine did not stop with $stopped" >&2; status=1; }
    else
      echo "FAIL [$line] engine exited $? after stopWithSavepoint" >&2; status=1
    fi
    echo "[$line] RestClusterClient: listJobs, triggerSavepoint ($sp), stopWithSavepoint ($stopped): ok" >&2
  fi

  # 2. cancel.
  run="$scratch/$line-cancel"
  start_engine "$run"
  if java_run cancel --address "$address" --job "$job_id" >"$run/client.log" 2>&1; then
    wait "$engine_pid" || true
    grep -q "Job finished: CANCELED" "$run/engine.log" || { echo "FAIL [$line] cancel: $(tail -2 "$run/engine.log")" >&2; status=1; }
    echo "[$line] RestClusterClient.cancel: ok" >&2
  else
    echo "FAIL [$line] RestClusterClient.cancel: $(grep -v SLF4J "$run/client.log" | tail -5)" >&2
    status=1
  fi

  # 3. key sets, ours vs a MiniCluster's.
  run="$scratch/$line-keys"
  mkdir -p "$run"
  if ! java_run keys --minicluster --out "$run/flink.tsv" >"$run/minicluster.log" 2>&1; then
    echo "FAIL [$line] MiniCluster key sets: $(grep -v SLF4J "$run/minicluster.log" | tail -5)" >&2
    status=1
    continue
  fi
  start_engine "$run/engine"
  if ! "$engine" savepoint "$job_id" "$run/engine/sp" >"$run/savepoint.log" 2>&1; then
    echo "FAIL [$line] ckpt-engine savepoint: $(tail -5 "$run/savepoint.log")" >&2
    echo "[$line] engine log tail:"$'\n'"$(tail -20 "$run/engine/engine.log")" >&2
    status=1
  fi
  ours_sp="$(awk '/^Savepoint completed. Path: /{print $4}' "$run/savepoint.log")"
  java_run keys --address "$address" --job "$job_id" --out "$run/ours.tsv" >"$run/ours.log" 2>&1 || { echo "FAIL [$line] key sets of ckpt-engine: $(tail -3 "$run/ours.log")" >&2; status=1; }
  kill "$engine_pid" 2>/dev/null || true
  missing="$(comm -23 <(sort -u "$run/flink.tsv") <(sort -u "$run/ours.tsv"))"
  extra="$(comm -13 <(sort -u "$run/flink.tsv") <(sort -u "$run/ours.tsv"))"
  echo "[$line] key sets: Flink $(sort -u "$run/flink.tsv" | wc -l), ours $(sort -u "$run/ours.tsv" | wc -l), missing $(grep -c . <<<"$missing" || true), extra $(grep -c . <<<"$extra" || true)" >&2
  [[ -n "$extra" ]] && echo "[$line] keys only ckpt-engine has:"$'\n'"$extra" >&2
  if [[ -n "$missing" ]]; then
    echo "FAIL [$line] keys Flink's REST has and ckpt-engine's lacks:"$'\n'"$missing" >&2
    status=1
  fi

  # 4. Flink's savepoint and ours restore to the same results.
  run="$scratch/$line-restore"
  if [[ -z "${sp:-}" || -z "$ours_sp" ]]; then
    echo "FAIL [$line] restore check: no savepoint (Flink's client: '${sp:-}', ckpt-engine: '$ours_sp')" >&2
    status=1
  elif final_sums "$sp" "$run/flink-sp" && final_sums "$ours_sp" "$run/engine-sp"; then
    if ! cmp -s "$run/flink-sp/sums.txt" "$run/engine-sp/sums.txt" ||
       ! cmp -s "$run/flink-sp/sums.txt" <(expected_sums); then
      echo "FAIL [$line] restored results differ (key sum): Flink's savepoint:"$'\n'"$(cat "$run/flink-sp/sums.txt")"$'\n'"ckpt-engine's:"$'\n'"$(cat "$run/engine-sp/sums.txt")"$'\n'"expected:"$'\n'"$(expected_sums)" >&2
      status=1
    else
      echo "[$line] savepoints of Flink's client ($sp) and of ckpt-engine savepoint ($ours_sp) restore to the same sums per key: ok" >&2
    fi
  else
    status=1
  fi
done

if [[ $status -eq 0 ]]; then
  rm -rf "$scratch"
  echo "1 passed, 0 failed"
else
  echo "rest interop: scratch kept: $scratch" >&2
  echo "0 passed, 1 failed"
fi
exit $status
