#!/usr/bin/env bash
# Verdict generator over the whole space of snapshot kinds the engine writes (checkpointing mode
# x keyed state backend x topology x parallelism x checkpoint / canonical / native savepoint,
# pruned to what the engine allows, each skip with its reason). For every kind: validate --deep
# exits 0, the engine restores it with the right output, a rescale is accepted or refused by
# validate --against and the restore alike, and validate agrees with the restore on the damages
# of the damage matrix (DAMAGES per kind, rotating through the matrix; 0 = all of them).
#
# Usage: scripts/verdict-generator.sh [DAMAGES] [WORK_DIR]     (default 3, a temp directory)
#   VERDICT_GENERATOR=path/to/verdict_generator  (default: build/release, else build/dev)
# Prints one line per kind and a summary table (kinds run, skipped with reason,
# disagreements). Exit: 0 no disagreement and no failure, 1 otherwise, 2 usage or setup.
set -euo pipefail

damages=${1:-3}
work=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
pick() { for b in "$here/build/release/$1" "$here/build/dev/$1"; do [[ -x $b ]] && { echo "$b"; return; }; done; }
gen=${VERDICT_GENERATOR:-$(pick tests/generator/verdict_generator)}
if [[ -z "$gen" || ! -x "$gen" || ! "$damages" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [DAMAGES] [WORK_DIR]  (build the verdict_generator target first)" >&2
  exit 2
fi
args=(--all --damages "$damages")
[[ -n "$work" ]] && args+=(--work "$work")
echo "machine: $(uname -srm), $(nproc) core(s); $(date -u '+%Y-%m-%d %H:%M UTC')"
exec "$gen" "${args[@]}"
