#!/usr/bin/env bash
# stats --top-keys 100 against a full dump of the same savepoint, both written to /dev/null, in one
# run: bench_topkeys_gen writes a canonical savepoint of KEYS keys (one keyed operator, p=16,
# maxP=128, BYTES values of VALUE_BYTES), then each command runs once untimed (page cache, warm
# code) and REPS times interleaved; prints the medians and stats/dump (target <= 1.5). Not in CI.
#
#   cmake --build --preset release -j 2 --target ckpt-tool bench_topkeys_gen
#   bench/ckpt-tool/topkeys_vs_dump.sh [KEYS=20000000] [VALUE_BYTES=32] [REPS=3]
# Environment: BUILD (default build/release), KEEP=1 keeps the data (path printed).
set -euo pipefail
keys=${1:-20000000}
value_bytes=${2:-32}
reps=${3:-3}
build=${BUILD:-build/release}
tool=$build/ckpt-tool/ckpt-tool
gen=$build/bench/bench_topkeys_gen
for f in "$tool" "$gen"; do
  [[ -x $f ]] || { echo "missing $f (build ckpt-tool and bench_topkeys_gen)" >&2; exit 2; }
done
scratch=$(mktemp -d "${TMPDIR:-/tmp}/topkeys-bench.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$scratch"' EXIT; else echo "data kept in $scratch"; fi

now() { date +%s.%N; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now)
"$gen" "$scratch/sp" "$keys" "$value_bytes"
t1=$(now)
echo "generated $keys keys in $(echo "$t1 - $t0" | bc) s; $(du -sh "$scratch/sp" | cut -f1) on disk"

stats() { "$tool" -q stats "$scratch/sp" --top-keys 100 > /dev/null; }
dump() { "$tool" -q dump "$scratch/sp" > /dev/null; }
stats; dump  # untimed: page cache and warm code
declare -a ts td
for ((i = 0; i < reps; i++)); do
  a=$(now); stats; b=$(now); ts+=("$(echo "$b - $a" | bc)")
  a=$(now); dump; b=$(now); td+=("$(echo "$b - $a" | bc)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ms=$(median "${ts[@]}")
md=$(median "${td[@]}")
echo "stats --top-keys 100: ${ts[*]} s (median $ms s)"
echo "dump > /dev/null:     ${td[*]} s (median $md s)"
echo "ratio stats/dump: $(echo "scale=3; $ms / $md" | bc) (target <= 1.5)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tool" stats "$scratch/sp" --top-keys 3 | sed -n '/^Largest keys/,/^$/p'
