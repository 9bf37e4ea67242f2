#!/usr/bin/env bash
# Loaded ITCases: runs the integration ITCases (`ctest -L integration`) RUNS times at `ctest -j 8`
# on two cores, the load under which timing-dependent tests flake, and prints how often each
# test failed. When the machine is idle (1-minute load average below the cores used) it adds
# its own background load: one busy loop per core, for the whole campaign, so that a quiet
# machine is as loaded as a shared CI runner.
#
# Usage: scripts/loaded-itcases.sh [--runs N] [--build-dir DIR] [--jobs J] [--no-extra-load]
#                                  [--timeout S]
#   --runs N         loaded runs (default 20)
#   --build-dir DIR  the configured and built tree to test (default build/release if built,
#                    else build/dev)
#   --jobs J         ctest -j (default 8)
#   --no-extra-load  never start the background busy loops
#   --timeout S      per-test timeout in seconds (default 900)
# Prints one line per run (its failed tests), then per test the number of runs it failed in.
# Exit: 0 no failure, 1 some test failed in some run, 2 usage.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
runs=20
jobs=8
timeout=900
extra_load=1
build=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --no-extra-load) extra_load=0; shift ;;
    *) echo "usage: $0 [--runs N] [--build-dir DIR] [--jobs J] [--no-extra-load] [--timeout S]" >&2
       exit 2 ;;
  esac
done
if [[ -z $build ]]; then
  for b in "$here/build/release" "$here/build/dev"; do
    [[ -f $b/CTestTestfile.cmake ]] && { build=$b; break; }
  done
fi
if [[ -z $build || ! -f $build/CTestTestfile.cmake || ! $runs =~ ^[0-9]+$ || ! $jobs =~ ^[0-9]+$ ]]
then
  echo "usage: $0 [--runs N] [--build-dir DIR] [--jobs J] (DIR must be a built ctest tree)" >&2
  exit 2
fi

# Two cores: pinned to the first two when the machine has more (taskset), else all of them.
cores=$(nproc)
pin=()
if (( cores > 2 )) && command -v taskset >/dev/null; then
  pin=(taskset -c 0,1)
  cores=2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-loaded-itcases.XXXXXX")
load_pids=()
cleanup() {
  for p in "${load_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${load_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

load1=$(cut -d' ' -f1 /proc/loadavg)
if (( extra_load )) && awk -v l="$load1" -v c="$cores" 'BEGIN { exit !(l < c) }'; then
  echo "=== load average $load1 < $cores cores: adding $cores busy loops" >&2
  for ((i = 0; i < cores; ++i)); do
    "${pin[@]}" bash -c 'while :; do :; done' &
    load_pids+=($!)
  done
else
  echo "=== load average $load1: no extra load" >&2
fi

declare -A failed_in
total_failures=0
for ((run = 1; run <= runs; ++run)); do
  log="$work/run-$run.log"
  start=$(date +%s)
  rc=0
  "${pin[@]}" ctest --test-dir "$build" -L integration -j "$jobs" --timeout "$timeout" \
    --output-on-failure \
    >"$log" 2>&1 || rc=$?
  names=$(sed -n '/The following tests FAILED:/,$p' "$log" |
          sed -nE 's/^[[:space:]]*[0-9]+ - (.+) \(([A-Za-z ]+)\)$/\1/p')
  if (( rc != 0 )) && [[ -z $names ]]; then
    echo "run $run: ctest exited $rc without naming a failed test:" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  secs=$(( $(date +%s) - start ))
  load=$(cut -d' ' -f1 /proc/loadavg)
  if [[ -z $names ]]; then
    echo "run $run/$runs: ok (${secs} s, load $load)"
  else
    echo "run $run/$runs: FAILED $(wc -l <<<"$names") test(s) (${secs} s, load $load)"
    while IFS= read -r n; do
      echo "  $n"
      failed_in[$n]=$(( ${failed_in[$n]:-0} + 1 ))
      total_failures=$(( total_failures + 1 ))
    done <<<"$names"
    # The failing tests' output, for the CI log.
    grep -E -A6 ': Failure$|^\[  FAILED  \]' "$log" | head -80
  fi
done

echo "=== $runs loaded run(s) at ctest -j $jobs on $cores core(s): $total_failures failure(s)"
for n in "${!failed_in[@]}"; do
  printf '%4d of %d  %s\n' "${failed_in[$n]}" "$runs" "$n"
done | sort -rn
(( total_failures == 0 ))
