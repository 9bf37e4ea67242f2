#!/usr/bin/env bash
# Kill campaign: the keyed-sum job runs through the two-phase-commit file sink and is
# SIGKILLed at random moments — while running, right after start (during restore), and during a
# stop-with-savepoint (SIGTERM, then kill -9 a random moment later) — in a random checkpointing
# mode per run (aligned, unaligned, aligned-with-timeout) — and each time resumed
# with `--from-latest <job-id>` at a random parallelism, while a concurrent `ckpt-tool prune`
# loop (--keep-last 1 --min-orphan-age 0s --yes) works on the same checkpoint root. After the
# last kill the job runs to the end. The committed output (part-* files only) must hold every
# input exactly once.
#
# Usage: scripts/kill-campaign.sh [KILLS] [SEED]        (default 20 kills, seed from $RANDOM)
#   CKPT_ENGINE=path/to/ckpt-engine  CKPT_TOOL=path/to/ckpt-tool (optional: no prune without it)
#   default binaries: build/release, else build/dev.
# Prints: kills, stop-kills, restore-kills, committed lines, gaps, duplicates, failed runs.
# Exit: 0 exact, 1 a gap, a duplicate or a failed run, 2 usage.
set -euo pipefail

kills=${1:-20}
seed=${2:-$RANDOM}
here=$(cd "$(dirname "$0")/.." && pwd)
pick() { for b in "$here/build/release/$1" "$here/build/dev/$1"; do [[ -x $b ]] && { echo "$b"; return; }; done; }
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
  if [[ "${keep:-0}" == 1 ]]; then echo "work dir kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

job_id=6b696c6c63616d706169676e00000001
rate=8000
# Enough input that the job is still running at the last kill (~0.6 s of input per run).
to=$(( (kills * 6 / 10 + 2) * rate ))
keys=32
splits=4
cat > "$work/job.json" <<EOF
{"name": "kill-campaign", "job_id": "$job_id", "max_parallelism": 128,
 "operators": [
  {"id": "source", "kind": "sequence-source", "uid": "source",
   "params": {"from": 1, "to": $to, "splits": $splits, "keys": $keys, "rate_per_second": $rate}},
  {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
  {"id": "sink", "kind": "file-sink", "uid": "sink", "params": {"path": "$work/out"}}],
 "edges": [{"from": "source", "to": "sum", "partitioning": "HASH"},
           {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]}
EOF
ckpt="$work/ckpt"
log="$work/engine.log"
echo "== kill campaign: $kills kills, seed $seed, $to inputs, work dir $work" >&2

# Concurrent prune on the same root: it must never delete what the live job may reference.
if [[ -n "$tool" && -x "$tool" ]]; then
  ( while sleep 0.$(( RANDOM % 9 + 1 )); do
      [[ -d "$ckpt" ]] && "$tool" prune "$ckpt" --keep-last 1 --min-orphan-age 0s --yes -q \
        >> "$work/prune.log" 2>&1 || true
    done ) &
  prune_pid=$!
fi

sleep_ms() { sleep "$(printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )))"; }
n_kill=0 n_stop_kill=0 n_restore_kill=0 n_unaligned=0 n_timeout=0 failed=0 finished_early=0 round=0
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
  [[ -d "$ckpt/$job_id" ]] && args+=(--from-latest "$job_id")
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
  n_kill=$(( n_kill + 1 ))
  round=$(( round + 1 ))
  case $rc in
    137) ;;                                  # killed, as intended
    0)   if tail -n 3 "$log" | grep -q "Job finished: FINISHED"; then finished_early=1; break; fi ;;
    *)   echo "round $((round - 1)): engine exited $rc" >&2; tail -n 5 "$log" >&2
         failed=$(( failed + 1 )) ;;
  esac
done
[[ -n "${prune_pid:-}" ]] && { kill "$prune_pid" 2>/dev/null; wait "$prune_pid" 2>/dev/null || true; prune_pid=; }

# The last run completes (unless the job already finished).
if (( finished_early == 0 )); then
  echo "--- final run" >> "$log"
  resume=()
  [[ -d "$ckpt/$job_id" ]] && resume=(--from-latest "$job_id")
  if ! "$engine" run "$work/job.json" --checkpoint-dir "$ckpt" --interval 100 \
       -p $(( RANDOM % 4 + 1 )) "${resume[@]}" >> "$log" 2>&1; then
    echo "final run failed:" >&2; tail -n 5 "$log" >&2
    failed=$(( failed + 1 ))
  fi
fi

# Committed output: lines "key,input,sum"; every input 1..to exactly once.
read -r lines gaps dups < <(
  find "$work/out" -maxdepth 1 -name 'part-*' -type f -print0 2>/dev/null |
    xargs -0 -r cat | awk -F, -v to="$to" '
      { n++; c[$2]++ }
      END { g = 0; d = 0
            for (i = 1; i <= to; i++) { k = c[i] + 0; if (k == 0) g++; else if (k > 1) d += k - 1 }
            print n + 0, g, d }')
echo "kills=$n_kill stop_kills=$n_stop_kill restore_kills=$n_restore_kill unaligned_runs=$n_unaligned aligned_with_timeout_runs=$n_timeout committed_lines=$lines gaps=$gaps duplicates=$dups failed_runs=$failed"
if (( gaps != 0 || dups != 0 || failed != 0 )); then
  keep=1
  exit 1
fi
