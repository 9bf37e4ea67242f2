#!/usr/bin/env bash
# Truncation campaign over Apache Flink snapshots: cuts each snapshot's `_metadata` short at every
# STRIDE-th byte offset (0, STRIDE, 2*STRIDE, ...), at len-1 and a few offsets just before the end,
# and runs `ckpt-tool validate` and `ckpt-tool validate --deep` on a copy of the snapshot with the
# truncated file. Every byte of a Flink `_metadata` belongs to its grammar (header, master states,
# operators, the CheckpointProperties trailer of v4+), so every truncation must be reported: exit 1
# with a finding. Exit 0 is a clean pass (a miss), exit 2 an error where a finding was due (counted
# as reported, listed), a signal or any other exit a crash.
#
# Snapshots: every `_metadata` under fixtures/flink, fixtures/flink-jobs, tests/interop/flink (the
# interop harness's committed snapshots, if any), ../shared/flink-fixtures beside the repository
# (Apache Flink's own test resources, if present) and each
# --root DIR (tests/interop/flink/run-interop.sh passes the snapshots its harness wrote). A
# `_metadata` with the same bytes as one already taken is skipped: cutting it again tests nothing
# new. Each snapshot must pass both validations intact, or a "report" would mean nothing.
#
#   scripts/truncation-campaign.sh [--tool PATH] [--stride N] [--root DIR]... [--no-fixtures]
#     --tool PATH     the ckpt-tool binary (default: build/dev, then build/release)
#     --stride N      distance between truncation offsets in bytes (default 64)
#     --root DIR      also every `_metadata` under DIR (repeatable)
#     --no-fixtures   only the --root directories, not the default ones
#
# Prints one line per snapshot and a total: snapshots, truncations, validate runs (two per
# truncation), reported (exit 1), clean passes (exit 0), errors (exit 2: a report, but listed),
# crashes (a signal or any other exit); each clean pass, error and crash with the snapshot and
# offset to reproduce it. Exit 0 when every run reported its truncation without a crash, 1
# otherwise, 2 for a usage error or a snapshot that is not clean intact. Needs bash, coreutils.
set -euo pipefail
cd "$(dirname "$0")/.."

stride=64
tool=""
defaults=(fixtures/flink fixtures/flink-jobs tests/interop/flink ../shared/flink-fixtures)
roots=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tool) tool="$2"; shift 2 ;;
    --stride) stride="$2"; shift 2 ;;
    --root)
      if [[ ! -d "$2" ]]; then echo "truncation-campaign: --root $2 is not a directory" >&2; exit 2; fi
      roots+=("$(cd "$2" && pwd)"); shift 2 ;;
    --no-fixtures) defaults=(); shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "truncation-campaign: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$stride" =~ ^[1-9][0-9]*$ ]]; then
  echo "truncation-campaign: --stride needs a positive number, not '$stride'" >&2
  exit 2
fi
if [[ -z "$tool" ]]; then
  for candidate in build/dev/ckpt-tool/ckpt-tool build/release/ckpt-tool/ckpt-tool; do
    if [[ -x "$candidate" ]]; then tool="$candidate"; break; fi
  done
fi
if [[ -z "$tool" || ! -x "$tool" ]]; then
  echo "truncation-campaign: no ckpt-tool binary (build one, or pass --tool PATH)" >&2
  exit 2
fi
tool="$(cd "$(dirname "$tool")" && pwd)/$(basename "$tool")"
roots=("${defaults[@]+"${defaults[@]}"}" "${roots[@]+"${roots[@]}"}")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-truncation.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Snapshot directories, each once, in a stable order; a `_metadata` seen before is skipped.
snapshots=()
declare -A seen_sum=()
duplicates=0
for root in "${roots[@]}"; do
  [[ -d "$root" ]] || continue
  while IFS= read -r md; do
    sum=$(sha256sum "$md" | cut -d' ' -f1)
    if [[ -n "${seen_sum[$sum]:-}" ]]; then duplicates=$((duplicates + 1)); continue; fi
    seen_sum[$sum]=1
    snapshots+=("$(dirname "$md")")
  done < <(find "$root" -name _metadata -type f | LC_ALL=C sort)
done
if [[ ${#snapshots[@]} -eq 0 ]]; then
  echo "truncation-campaign: no Flink _metadata under ${roots[*]}" >&2
  exit 2
fi

# run SNAPSHOT ARGS...: the tool's exit status (output kept in $scratch/out for messages).
run() {
  local rc=0
  "$tool" validate "$@" >"$scratch/out" 2>&1 || rc=$?
  echo "$rc"
}

total_snaps=0 total_cuts=0 total_runs=0 total_reported=0 total_clean=0 total_errors=0 total_crashes=0
failures=()
started=$SECONDS
echo "truncation campaign: ${#snapshots[@]} snapshot(s) ($duplicates duplicate _metadata skipped)," \
  "stride $stride, tool $tool"
for snap in "${snapshots[@]}"; do
  copy="$scratch/snapshot"
  rm -rf "$copy"
  cp -r "$snap" "$copy"
  original="$scratch/original_metadata"
  cp "$snap/_metadata" "$original"
  size=$(stat -c %s "$original")
  # The intact copy must pass, or a "report" of a truncation would mean nothing.
  for deep in "" --deep; do
    rc=$(run $deep "$copy")
    if [[ $rc -ne 0 ]]; then
      echo "truncation-campaign: $snap is not clean before any truncation (validate $deep: exit $rc):" >&2
      cat "$scratch/out" >&2
      exit 2
    fi
  done
  offsets=()
  for ((off = 0; off < size; off += stride)); do offsets+=("$off"); done
  for back in 1 2 3 4 8 16; do
    ((size - back >= 0)) && offsets+=($((size - back)))
  done
  mapfile -t offsets < <(printf '%s\n' "${offsets[@]}" | sort -n -u)
  reported=0 clean=0 errors=0 crashes=0
  for off in "${offsets[@]}"; do
    head -c "$off" "$original" >"$copy/_metadata"
    for deep in "" --deep; do
      rc=$(run $deep "$copy")
      what="$snap: _metadata cut to $off of $size bytes, validate${deep:+ $deep}"
      case $rc in
        1) reported=$((reported + 1)) ;;
        0) clean=$((clean + 1)); failures+=("CLEAN   $what") ;;
        2) reported=$((reported + 1)); errors=$((errors + 1))
           failures+=("EXIT 2  $what: $(tail -n 1 "$scratch/out")") ;;
        *) crashes=$((crashes + 1)); failures+=("CRASH   $what: exit $rc") ;;
      esac
    done
  done
  cuts=${#offsets[@]}
  printf '%s\n    %6d bytes  truncations %4d  runs %5d  reported %5d  clean %d  errors %d  crashes %d\n' \
    "$snap" "$size" "$cuts" $((cuts * 2)) "$reported" "$clean" "$errors" "$crashes"
  total_snaps=$((total_snaps + 1))
  total_cuts=$((total_cuts + cuts))
  total_runs=$((total_runs + cuts * 2))
  total_reported=$((total_reported + reported))
  total_clean=$((total_clean + clean))
  total_errors=$((total_errors + errors))
  total_crashes=$((total_crashes + crashes))
done
printf 'total: snapshots %d  truncations %d  runs %d  reported %d  clean-passes %d  errors %d' \
  "$total_snaps" "$total_cuts" "$total_runs" "$total_reported" "$total_clean" "$total_errors"
printf '  crashes %d  (%d s)\n' "$total_crashes" $((SECONDS - started))
for f in "${failures[@]+"${failures[@]}"}"; do echo "  $f"; done
[[ $total_clean -eq 0 && $total_crashes -eq 0 ]]
