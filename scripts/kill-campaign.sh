#!/usr/bin/env bash
# Kill campaign: the keyed-sum job runs through the two-phase-commit file sink and is
# SIGKILLed at random moments — while running, right after start (during restore), and during a
# stop-with-savepoint (SIGTERM, then kill -9 a random moment later) — in a random checkpointing
# mode per run (aligned, unaligned, aligned-with-timeout) — and each time resumed
# with `--from-latest <job-id>` at a random parallelism, while a concurrent `ckpt-tool prune`
# loop (--keep-last 1 --min-orphan-age 0s --yes) works on the same checkpoint root. After the
# last kill the job runs to the end. The committed output (part-* files only) must hold every
# input exactly once.
# With --s3 the checkpoints and the sink's output live on S3: a local s3proxy
# (tests/format/s3/s3proxy_start.sh, which needs Java and Maven) with a fresh bucket; the sink's
# part files are multipart uploads completed at checkpoint completion. After each kill the dead
# engine's lease on the job directory (_job.lock) is deleted, as an operator does once sure the
# holder is gone (it would otherwise refuse a restart for its 30 s time to live). No concurrent
# prune in that mode. The output is read back from S3 with curl --aws-sigv4, and the multipart
# uploads left open after the final run must be none.
#
# Usage: scripts/kill-campaign.sh [--s3] [KILLS] [SEED]  (default 20 kills, seed from $RANDOM)
#   CKPT_ENGINE=path/to/ckpt-engine  CKPT_TOOL=path/to/ckpt-tool (optional: no prune without it)
#   default binaries: build/release, else build/dev.
# Prints: kills, stop-kills, restore-kills, committed lines, gaps, duplicates, failed runs (an
#   engine that exited non-zero or by a signal other than the campaign's own SIGKILL), prunes
#   ended by a signal (with --s3 also the multipart uploads open right after the kills, summed,
#   and those left open at the end).
# Exit: 0 exact, 1 a gap, a duplicate, a failed run, a crashed prune or an open upload, 2 usage.
set -euo pipefail

s3=0
if [[ ${1:-} == --s3 ]]; then s3=1; shift; fi

kills=${1:-20}
seed=${2:-$RANDOM}
here=$(cd "$(dirname "$0")/.." && pwd)
pick() { for b in "$here/build/release/$1" "$here/build/dev/$1"; do [[ -x $b ]] && { echo "$b"; return; }; done; true; }
engine=${CKPT_ENGINE:-$(pick engine/ckpt-engine)}
tool=${CKPT_TOOL:-$(pick ckpt-tool/ckpt-tool)}
if [[ -z "$engine" || ! -x "$engine" || ! "$kills" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [KILLS] [SEED]  (set CKPT_ENGINE to the ckpt-engine binary)" >&2
  exit 2
fi
RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-kill-campaign.XXXXXX")
cleanup() {
  [[ -n "${prune_pid:-}" ]] && kill "$prune_pid" 2>/dev/null && wait "$prune_pid" 2>/dev/null
  [[ -n "${engine_pid:-}" ]] && kill -9 "$engine_pid" 2>/dev/null
  (( s3 )) && bash "$here/tests/format/s3/s3proxy_stop.sh" "$work/s3proxy" >/dev/null 2>&1
  if [[ "${keep:-0}" == 1 ]]; then echo "work dir kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

job_id=6b696c6c63616d706169676e00000001
rate=8000
# Enough input that the job is still running at the last kill (~0.6 s of input per run).
to=$(( (kills * 6 / 10 + 2) * rate ))
keys=32
splits=4
ckpt="$work/ckpt"
out="$work/out"
if (( s3 )); then
  if ! bash "$here/tests/format/s3/s3proxy_start.sh" "$work/s3proxy" >"$work/s3proxy-start.log" 2>&1; then
    echo "--s3: cannot start s3proxy:" >&2; cat "$work/s3proxy-start.log" >&2; exit 1
  fi
  endpoint=$(cat "$work/s3proxy/endpoint")
  conf() { sed -n "s/^$1=//p" "$work/s3proxy/s3proxy.conf"; }
  export AWS_ACCESS_KEY_ID=$(conf s3proxy.identity) AWS_SECRET_ACCESS_KEY=$(conf s3proxy.credential)
  export AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1
  unset AWS_SESSION_TOKEN AWS_ENDPOINT_URL_S3 AWS_PROFILE
  bucket=kill-campaign
  # curl signing its requests for the local server: s3curl METHOD KEY-AND-QUERY [curl args].
  # Bodies are empty (their SHA-256 is sent: s3proxy requires the header). curl 7.88 signs the
  # query as written: parameters sorted, values percent-encoded ('/' too), "uploads=".
  s3curl() {
    local method=$1 path=$2; shift 2
    curl -sS --fail-with-body -X "$method" --aws-sigv4 "aws:amz:us-east-1:s3" \
      -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
      -u "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "$endpoint/$bucket$path" "$@"
  }
  s3curl PUT "" >/dev/null
  ckpt="s3://$bucket/ckpt"
  out="s3://$bucket/out"
fi
# --from-latest takes the bare job id under a local --checkpoint-dir, the whole location on S3.
latest=$job_id
(( s3 )) && latest="$ckpt/$job_id"
# Whether the engine has made the job directory (it has objects under it, on S3).
job_dir_exists() {
  if (( s3 )); then
    [[ $(s3curl GET "?list-type=2&max-keys=1&prefix=ckpt%2F$job_id%2F") == *"<Key>"* ]]
  else
    [[ -d "$ckpt/$job_id" ]]
  fi
}
cat > "$work/job.json" <<EOF
{"name": "kill-campaign", "job_id": "$job_id", "max_parallelism": 128,
 "operators": [
  {"id": "source", "kind": "sequence-source", "uid": "source",
   "params": {"from": 1, "to": $to, "splits": $splits, "keys": $keys, "rate_per_second": $rate}},
  {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
  {"id": "sink", "kind": "file-sink", "uid": "sink", "params": {"path": "$out"}}],
 "edges": [{"from": "source", "to": "sum", "partitioning": "HASH"},
           {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]}
EOF
log="$work/engine.log"
echo "== kill campaign: $kills kills, seed $seed, $to inputs, work dir $work$( (( s3 )) && echo ", on S3 $endpoint")" >&2

# Concurrent prune on the same root: it must never delete what the live job may reference. A
# prune may fail while the job changes the root under it, but one ended by a signal (a crash) is
# written to prune-signals and fails the campaign.
if [[ -n "$tool" && -x "$tool" ]] && (( ! s3 )); then
  ( while sleep 0.$(( RANDOM % 9 + 1 )); do
      prc=0
      [[ -d "$ckpt" ]] && { "$tool" prune "$ckpt" --keep-last 1 --min-orphan-age 0s --yes -q \
        >> "$work/prune.log" 2>&1 || prc=$?; }
      if (( prc >= 128 )); then
        echo "prune ended by signal $(( prc - 128 )) (SIG$(kill -l $(( prc - 128 )) 2>/dev/null || echo '?'))" \
          >> "$work/prune-signals"
      fi
    done ) &
  prune_pid=$!
fi

sleep_ms() { sleep "$(printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )))"; }
left_uploads=0 n_kill=0 n_stop_kill=0 n_restore_kill=0 n_unaligned=0 n_timeout=0 failed=0 finished_early=0 round=0
while (( n_kill < kills )); do
  p=$(( RANDOM % 4 + 1 ))
  args=(run "$work/job.json" --checkpoint-dir "$ckpt" --interval $(( RANDOM % 150 + 50 )) -p "$p")
  # Every checkpointing mode, switching between runs (a restore may change it, as in Flink):
  # unaligned and aligned-with-timeout checkpoints carry in-flight data across the kill.
  case $(( RANDOM % 3 )) in
    0) ;;
    1) args+=(--mode unaligned); n_unaligned=$(( n_unaligned + 1 )) ;;
    2) args+=(--mode aligned-with-timeout --aligned-checkpoint-timeout $(( RANDOM % 20 )))
       n_timeout=$(( n_timeout + 1 )) ;;
  esac
  # Resumed from the job directory once the engine has made it; a run killed before that (at
  # start-up) left nothing to resume — no checkpoint, no commit — so the job starts again as
  # round 0 did (--from-latest refuses a job directory that does not exist).
  job_dir_exists && args+=(--from-latest "$latest")
  echo "--- round $round: ${args[*]}" >> "$log"
  "$engine" "${args[@]}" >> "$log" 2>&1 &
  engine_pid=$!
  mode=$(( RANDOM % 10 ))
  if (( mode == 0 )); then
    sleep_ms $(( RANDOM % 60 ))   # during start-up and restore
    n_restore_kill=$(( n_restore_kill + 1 ))
  elif (( mode <= 2 )); then
    sleep_ms $(( RANDOM % 900 + 200 ))
    kill -TERM "$engine_pid" 2>/dev/null || true   # stop-with-savepoint begins...
    sleep_ms $(( RANDOM % 120 ))                   # ...and is killed at any moment of it
    n_stop_kill=$(( n_stop_kill + 1 ))
  else
    sleep_ms $(( RANDOM % 1200 + 100 ))
  fi
  kill -9 "$engine_pid" 2>/dev/null || true
  set +e
  wait "$engine_pid" 2>/dev/null
  rc=$?
  set -e
  engine_pid=
  # The killed engine is gone: its lease goes too (DELETE of an absent key is OK).
  if (( s3 )); then
    s3curl DELETE "/ckpt/$job_id/_job.lock" >/dev/null
    # Uploads the killed attempt left open (the next restore aborts them).
    left=$(s3curl GET "?prefix=out%2F&uploads=")
    left_uploads=$(( left_uploads + $(grep -o '<UploadId>' <<<"$left" | wc -l || true) ))
  fi
  n_kill=$(( n_kill + 1 ))
  round=$(( round + 1 ))
  case $rc in
    137) ;;                                  # killed, as intended
    0)   if tail -n 3 "$log" | grep -q "Job finished: FINISHED"; then finished_early=1; break; fi ;;
    *)   if (( rc >= 128 )); then
           echo "round $((round - 1)): engine ended by signal $(( rc - 128 ))" \
                "(SIG$(kill -l $(( rc - 128 )) 2>/dev/null || echo '?')), not by the campaign's kill" >&2
         else
           echo "round $((round - 1)): engine exited $rc" >&2
         fi
         tail -n 5 "$log" >&2
         failed=$(( failed + 1 )) ;;
  esac
done
[[ -n "${prune_pid:-}" ]] && { kill "$prune_pid" 2>/dev/null; wait "$prune_pid" 2>/dev/null || true; prune_pid=; }

# The last run completes (unless the job already finished).
if (( finished_early == 0 )); then
  echo "--- final run" >> "$log"
  resume=()
  job_dir_exists && resume=(--from-latest "$latest")
  rc=0
  "$engine" run "$work/job.json" --checkpoint-dir "$ckpt" --interval 100 \
    -p $(( RANDOM % 4 + 1 )) "${resume[@]}" >> "$log" 2>&1 || rc=$?
  if (( rc != 0 )); then
    echo "final run failed (exit $rc$( (( rc >= 128 )) && echo ", signal $(( rc - 128 ))")):" >&2
    tail -n 5 "$log" >&2
    failed=$(( failed + 1 ))
  fi
fi

# On S3: the committed objects (out/part-*, every page of the listing) are fetched into
# $work/out, and the uploads still open are counted.
open_uploads=0
if (( s3 )); then
  mkdir -p "$work/out"
  urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
  token=
  while :; do
    page=$(s3curl GET "?${token:+continuation-token=$(urlencode "$token")&}list-type=2&prefix=out%2Fpart-")
    for key in $(grep -o '<Key>[^<]*</Key>' <<<"$page" | sed 's/<Key>out\/\(.*\)<\/Key>/\1/'); do
      s3curl GET "/out/$key" -o "$work/out/$key"
    done
    token=$(grep -o '<NextContinuationToken>[^<]*' <<<"$page" | sed 's/<NextContinuationToken>//' || true)
    [[ -z "$token" ]] && break
  done
  uploads=$(s3curl GET "?prefix=out%2F&uploads=")
  open_uploads=$(grep -o '<UploadId>' <<<"$uploads" | wc -l || true)
fi

# Committed output: lines "key,input,sum"; every input 1..to exactly once.
read -r lines gaps dups < <(
  find "$work/out" -maxdepth 1 -name 'part-*' -type f -print0 2>/dev/null |
    xargs -0 -r cat | awk -F, -v to="$to" '
      { n++; c[$2]++ }
      END { g = 0; d = 0
            for (i = 1; i <= to; i++) { k = c[i] + 0; if (k == 0) g++; else if (k > 1) d += k - 1 }
            print n + 0, g, d }')
prune_signals=0
if [[ -f "$work/prune-signals" ]]; then
  prune_signals=$(wc -l < "$work/prune-signals")
  sort "$work/prune-signals" | uniq -c >&2
fi
echo "kills=$n_kill stop_kills=$n_stop_kill restore_kills=$n_restore_kill unaligned_runs=$n_unaligned aligned_with_timeout_runs=$n_timeout committed_lines=$lines gaps=$gaps duplicates=$dups failed_runs=$failed prunes_ended_by_signal=$prune_signals$( (( s3 )) && echo " uploads_open_after_kills=$left_uploads open_uploads=$open_uploads")"
if (( gaps != 0 || dups != 0 || failed != 0 || prune_signals != 0 || open_uploads != 0 )); then
  keep=1
  exit 1
fi
