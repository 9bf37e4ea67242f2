#!/usr/bin/env bash
# Prune campaign: prune must never delete the last restorable checkpoint. A few checkpoint roots
# are written once by ckpt-engine (a keyed job killed with -9 while it checkpoints, several
# retained checkpoints; heap and RocksDB backends, full, incremental and changelog, aligned and
# unaligned). Each iteration copies one, damages random files of random checkpoints (a file
# removed, truncated or with one bit flipped; sometimes `_metadata` itself), finds the newest
# restorable checkpoint by restoring every candidate with ckpt-engine, newest first, runs
# `ckpt-tool prune ROOT --yes` with default options, and restores that checkpoint again: a
# failure there is a loss.
#
# Usage: scripts/prune-campaign.sh [ITERATIONS] [SEED]     (default 50, seed from $RANDOM)
#   CKPT_ENGINE=path/to/ckpt-engine  CKPT_TOOL=path/to/ckpt-tool
#   default binaries: build/release, else build/dev.  PRUNE_CAMPAIGN_ROOTS: roots written (6).
#   PRUNE_CAMPAIGN_KEEP=1 keeps the work directory (kept anyway after a loss).
# A restore that ends by a signal (a crash on a damaged file, instead of an error naming it) is
# a failure of the campaign: the checkpoint and the signal are printed, the damaged copy is kept
# (crash-<n>/ in the work dir).
# Prints: iterations, damaged files, iterations with no restorable checkpoint, pruned files,
# losses, failed prunes, restores ended by a signal.
# Exit: 0 no loss, 1 a loss, a prune that failed or a restore ended by a signal, 2 usage or setup
# failure.
set -euo pipefail

iterations=${1:-50}
seed=${2:-$RANDOM}
here=$(cd "$(dirname "$0")/.." && pwd)
pick() { for b in "$here/build/release/$1" "$here/build/dev/$1"; do [[ -x $b ]] && { echo "$b"; return; }; done; }
engine=${CKPT_ENGINE:-$(pick engine/ckpt-engine)}
tool=${CKPT_TOOL:-$(pick ckpt-tool/ckpt-tool)}
nroots=${PRUNE_CAMPAIGN_ROOTS:-6}
if [[ -z "$engine" || ! -x "$engine" || -z "$tool" || ! -x "$tool" ||
      ! "$iterations" =~ ^[0-9]+$ || ! "$seed" =~ ^[0-9]+$ || ! "$nroots" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [ITERATIONS] [SEED]  (set CKPT_ENGINE and CKPT_TOOL to the binaries)" >&2
  exit 2
fi
RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-prune-campaign.XXXXXX")
cleanup() {
  [[ -n "${engine_pid:-}" ]] && kill -9 "$engine_pid" 2>/dev/null
  if [[ "${keep:-0}" == 1 || -n "${PRUNE_CAMPAIGN_KEEP:-}" ]]; then echo "work dir kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

job_id=7072756e652d63616d706169676e0001
# Slow enough that a root is written long before the input ends (a finished job discards its
# checkpoints), and that a restore check stops within moments.
cat > "$work/job.json" <<EOF
{"name": "prune-campaign", "job_id": "$job_id", "max_parallelism": 128,
 "operators": [
  {"id": "source", "kind": "sequence-source", "uid": "source",
   "params": {"from": 1, "to": 100000000, "splits": 4, "keys": 64, "rate_per_second": 20000}},
  {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
  {"id": "sink", "kind": "discard", "uid": "sink"}],
 "edges": [{"from": "source", "to": "sum", "partitioning": "HASH"},
           {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]}
EOF
log="$work/engine.log"
echo "== prune campaign: $iterations iterations, seed $seed, $nroots roots, work dir $work" >&2

sleep_ms() { sleep "$(printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )))"; }

# Restores checkpoint $1 with ckpt-engine and stops at once with a savepoint: exit 0 only when
# every task restored its state. The snapshot is never written to (no-claim; the engine's own
# checkpoints and savepoint go to a scratch directory).
# $2: the backend options of the run that wrote it (a snapshot restores on its own backend).
# An engine ended by a signal (exit status 128 or more; timeout's own is 124) is counted in
# n_signals, reported with the checkpoint, and the root it was in is copied to crash-<n>/.
n_signals=0
restores() {
  local scratch="$work/restore" rc=0
  rm -rf "$scratch"
  mkdir -p "$scratch"
  echo "--- restore $1" >> "$log"
  # shellcheck disable=SC2086  # $2 is a list of options
  timeout 60 "$engine" run "$work/job.json" -s "$1" --claim-mode no-claim $2 \
    --checkpoint-dir "$scratch/ckpt" --savepoint-dir "$scratch/sp" --interval 0 \
    --max-restarts 0 --stop-with-savepoint-after 0 >> "$log" 2>&1 || rc=$?
  if (( rc >= 128 )); then
    n_signals=$(( n_signals + 1 ))
    keep=1
    local root=${1%/"$job_id"/chk-*}
    echo "restore of ${1#"$work"/} ended by signal $(( rc - 128 ))" \
         "(SIG$(kill -l $(( rc - 128 )) 2>/dev/null || echo '?')): see $log; root kept in $work/crash-$n_signals" >&2
    echo "--- restore ended by signal $(( rc - 128 ))" >> "$log"
    cp -a "$root" "$work/crash-$n_signals"
  fi
  return "$rc"
}

# chk-N directories of root $1 holding `_metadata`, newest first.
candidates() {
  local d
  for d in "$1/$job_id"/chk-*; do [[ -f "$d/_metadata" ]] && echo "${d##*-}"; done | sort -rn
}

# --- The roots, written once.
backends=("heap" "rocksdb" "rocksdb --incremental true" "heap --changelog on"
          "rocksdb --incremental true --changelog on" "rocksdb --changelog on")
roots=() root_backend=()
for (( r = 0; r < nroots; r++ )); do
  root="$work/root-$r"
  backend="--state-backend ${backends[$(( r % ${#backends[@]} ))]}"
  # shellcheck disable=SC2206  # $backend is a list of options
  args=(run "$work/job.json" --checkpoint-dir "$root" --interval $(( RANDOM % 60 + 40 ))
        --num-retained $(( RANDOM % 3 + 3 )) -p $(( RANDOM % 3 + 1 )) --max-restarts 0
        $backend --changelog-materialization-interval $(( RANDOM % 400 + 100 )))
  (( RANDOM % 2 )) && args+=(--mode unaligned)
  echo "--- root $r: ${args[*]}" >> "$log"
  "$engine" "${args[@]}" >> "$log" 2>&1 &
  engine_pid=$!
  sleep_ms $(( RANDOM % 1000 + 2500 ))
  kill -9 "$engine_pid" 2>/dev/null || true
  wait "$engine_pid" 2>/dev/null || true
  engine_pid=
  mapfile -t ids < <(candidates "$root")
  if (( ${#ids[@]} < 2 )); then
    echo "root $r: ${#ids[@]} complete checkpoints after the run (need 2): see $log" >&2
    keep=1
    exit 2
  fi
  # Undamaged, every checkpoint restores: a loss later is prune's doing, not the root's.
  for id in "${ids[@]}"; do
    if ! restores "$root/$job_id/chk-$id" "$backend"; then
      echo "root $r: undamaged chk-$id does not restore: see $log" >&2
      keep=1
      (( n_signals != 0 )) && exit 1
      exit 2
    fi
  done
  roots+=("$root")
  root_backend+=("$backend")
done

# Damages one random file of checkpoint $2 in root $1: mostly one of the checkpoint's own, else
# one of shared/ (which every later checkpoint of an incremental or changelog job may
# reference), now and then `_metadata`. Prints what it did.
damage() {
  local chk="$1/$job_id/chk-$2" files=() f pick=$(( RANDOM % 10 ))
  if (( pick < 6 )); then
    mapfile -t files < <(find "$chk" -type f ! -name _metadata | sort)
  elif (( pick < 9 )); then
    mapfile -t files < <(find "$1/$job_id/shared" -type f 2>/dev/null | sort)
  fi
  if (( ${#files[@]} == 0 )); then
    f="$chk/_metadata"
  else
    f=${files[$(( RANDOM % ${#files[@]} ))]}
  fi
  local size
  size=$(stat -c %s "$f")
  case $(( RANDOM % 3 )) in
    0) rm -f "$f"; echo "removed ${f#"$1"/}" ;;
    1) truncate -s $(( size > 0 ? RANDOM % size : 0 )) "$f"; echo "truncated ${f#"$1"/}" ;;
    2) if (( size == 0 )); then rm -f "$f"; echo "removed ${f#"$1"/}"; return; fi
       local off=$(( (RANDOM * 32768 + RANDOM) % size )) byte
       byte=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
       printf "$(printf '\\%03o' $(( byte ^ (1 << (RANDOM % 8)) )))" |
         dd of="$f" bs=1 seek="$off" conv=notrunc status=none
       echo "flipped a bit of ${f#"$1"/} at byte $off" ;;
  esac
}

n_damaged=0 n_none=0 n_pruned=0 n_losses=0 n_failed=0
for (( i = 0; i < iterations; i++ )); do
  r=$(( RANDOM % ${#roots[@]} ))
  src=${roots[$r]}
  it="$work/it"
  rm -rf "$it"
  cp -a "$src" "$it"
  mapfile -t ids < <(candidates "$it")
  what=()
  for (( k = RANDOM % 2 + 1; k > 0; k-- )); do
    what+=("$(damage "$it" "${ids[$(( RANDOM % ${#ids[@]} ))]}")")
    n_damaged=$(( n_damaged + 1 ))
  done
  # The newest checkpoint that actually restores, before the prune.
  newest=
  for id in $(candidates "$it"); do
    if restores "$it/$job_id/chk-$id" "${root_backend[$r]}"; then newest=$id; break; fi
  done
  [[ -z "$newest" ]] && n_none=$(( n_none + 1 ))
  prune_rc=0
  "$tool" prune "$it" --yes --format json > "$work/prune.json" 2> "$work/prune.err" || prune_rc=$?
  if (( prune_rc != 0 )); then
    echo "iteration $i: prune failed (exit $prune_rc$( (( prune_rc >= 128 )) &&
         echo ", signal $(( prune_rc - 128 ))")): $(cat "$work/prune.err")" >&2
    n_failed=$(( n_failed + 1 ))
  fi
  pruned=$(sed -n 's/.*"steps_done":[0-9]*,"files_to_delete":\([0-9]*\).*/\1/p' "$work/prune.json" | tail -1)
  n_pruned=$(( n_pruned + ${pruned:-0} ))
  if [[ -n "$newest" ]] && ! restores "$it/$job_id/chk-$newest" "${root_backend[$r]}"; then
    n_losses=$(( n_losses + 1 ))
    echo "iteration $i (seed $seed, root ${src##*/}): chk-$newest restored before the prune," \
         "not after it; damage: ${what[*]}" >&2
    cp -a "$it" "$work/loss-$i"
    cp "$work/prune.json" "$work/loss-$i.prune.json"
  fi
done
echo "iterations=$iterations damaged_files=$n_damaged no_restorable=$n_none pruned_files=$n_pruned losses=$n_losses failed_prunes=$n_failed restores_ended_by_signal=$n_signals"
if (( n_losses != 0 || n_failed != 0 || n_signals != 0 )); then
  keep=1
  exit 1
fi
