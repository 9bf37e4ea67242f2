#!/usr/bin/env bash
# Corruption campaign: flips one random bit at a time in a random file that a snapshot
# references (its _metadata included), runs `ckpt-tool validate --deep` on it and flips the bit
# back. Every flip must be detected: exit 1 with a finding. Exit 0 is a missed flip, exit 2 an
# error where a finding was due, a signal a crash. Covers every fixture kind: the frozen v1
# savepoint, the incremental changelog checkpoints (flips in shared/ and taskowned/ files too),
# the unaligned checkpoint with channel state, and the engine-written savepoint and checkpoints.
#
#   scripts/corruption-campaign.sh [--flips N] [--seed S] [--tool PATH] [--fixture NAME]...
#     --flips N     flips per fixture (default 200)
#     --seed S      seed of the random choices (default: from the clock; printed for re-runs)
#     --tool PATH   the ckpt-tool binary (default: build/dev, then build/release)
#     --fixture F   only this fixture (repeatable); names as printed in the report
#
# Prints one line per fixture and a total: flips, detected, missed, errors (exit 2), crashes;
# each miss, error or crash with the file, byte and bit to reproduce it. Exit 0 when every flip
# was detected, 1 otherwise. Needs only bash and coreutils.
set -euo pipefail
cd "$(dirname "$0")/.."

flips=200
seed=""
tool=""
only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --flips) flips="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --tool) tool="$2"; shift 2 ;;
    --fixture) only+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "corruption-campaign: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -z "$tool" ]]; then
  for candidate in build/dev/ckpt-tool/ckpt-tool build/release/ckpt-tool/ckpt-tool; do
    if [[ -x "$candidate" ]]; then tool="$candidate"; break; fi
  done
fi
if [[ -z "$tool" || ! -x "$tool" ]]; then
  echo "corruption-campaign: no ckpt-tool binary (build one, or pass --tool PATH)" >&2
  exit 2
fi
tool="$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")"
[[ -n "$seed" ]] || seed=$(( $(date +%s) % 1000000 ))
RANDOM=$seed

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-corruption.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# name | fixture tree to copy | snapshot inside the copy
v1_job=1a2b3c4d5e6f708192a3b4c5d6e7f801
engine_job=e0e1e2e3e4e5e6e7e8e9eaebecedeeef
fixtures=(
  "v1-savepoint|fixtures/v1/savepoint|."
  "v1-incremental-chk-1|fixtures/v1/checkpoints|$v1_job/chk-1"
  "v1-incremental-chk-2|fixtures/v1/checkpoints|$v1_job/chk-2"
  "v1-unaligned-chk-5|fixtures/v1/unaligned|$v1_job/chk-5"
  "engine-v1-savepoint|fixtures/engine-v1/savepoint-e0e1e2-30e19071c9cd|."
  "engine-v1-chk-4|fixtures/engine-v1/checkpoints|$engine_job/chk-4"
  "engine-v1-chk-5|fixtures/engine-v1/checkpoints|$engine_job/chk-5"
)

rand30() { echo $(( (RANDOM << 15) | RANDOM )); }

# flip FILE OFFSET BIT: xors one bit in place.
flip() {
  local byte
  byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $(( byte ^ (1 << $3) )))" |
    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

total_flips=0 total_detected=0 total_missed=0 total_errors=0 total_crashes=0
failures=()
echo "corruption campaign: $flips flip(s) per fixture, seed $seed, tool $tool"
for entry in "${fixtures[@]}"; do
  IFS='|' read -r name tree snap_rel <<<"$entry"
  if [[ ${#only[@]} -gt 0 && ! " ${only[*]} " =~ " $name " ]]; then continue; fi
  copy="$scratch/$name"
  cp -r "$tree" "$copy"
  snap="$copy/$snap_rel"
  # The intact copy must be clean, or a "detection" would mean nothing.
  if ! "$tool" validate --deep "$snap" >"$scratch/out" 2>&1; then
    echo "corruption-campaign: $name is not clean before any flip:" >&2
    cat "$scratch/out" >&2
    exit 2
  fi
  # Every file the snapshot references (locations are relative to the snapshot directory),
  # with its size, plus _metadata itself.
  paths=("_metadata")
  sizes=("$(stat -c %s "$snap/_metadata")")
  while IFS=$'\t' read -r loc size; do
    [[ -n "$loc" ]] || continue
    paths+=("$loc")
    sizes+=("$size")
  done < <("$tool" files --format json "$snap" |
             sed -n 's/.*"location":"\([^"]*\)".*"size_bytes":\([0-9]*\).*/\1\t\2/p')
  detected=0 missed=0 errors=0 crashes=0
  for ((i = 0; i < flips; i++)); do
    k=$(( $(rand30) % ${#paths[@]} ))
    file="$snap/${paths[$k]}"
    size=${sizes[$k]}
    [[ $size -gt 0 ]] || { i=$((i - 1)); continue; }
    offset=$(( $(rand30) % size ))
    bit=$(( RANDOM % 8 ))
    flip "$file" "$offset" "$bit"
    set +e
    "$tool" validate --deep "$snap" >"$scratch/out" 2>&1
    rc=$?
    set -e
    flip "$file" "$offset" "$bit"
    what="$name: ${paths[$k]} byte $offset bit $bit"
    case $rc in
      1) detected=$((detected + 1)) ;;
      0) missed=$((missed + 1)); failures+=("MISSED  $what") ;;
      2) errors=$((errors + 1)); failures+=("EXIT 2  $what: $(tail -n 1 "$scratch/out")") ;;
      *) crashes=$((crashes + 1)); failures+=("CRASH   $what: exit $rc") ;;
    esac
  done
  printf '%-22s files %3d  flips %5d  detected %5d  missed %d  errors %d  crashes %d\n' \
    "$name" "${#paths[@]}" "$flips" "$detected" "$missed" "$errors" "$crashes"
  total_flips=$((total_flips + flips))
  total_detected=$((total_detected + detected))
  total_missed=$((total_missed + missed))
  total_errors=$((total_errors + errors))
  total_crashes=$((total_crashes + crashes))
  rm -rf "$copy"
done
printf '%-22s            flips %5d  detected %5d  missed %d  errors %d  crashes %d\n' \
  "total" "$total_flips" "$total_detected" "$total_missed" "$total_errors" "$total_crashes"
for f in "${failures[@]+"${failures[@]}"}"; do echo "  $f"; done
[[ $total_missed -eq 0 && $total_errors -eq 0 && $total_crashes -eq 0 ]]
