#!/usr/bin/env bash
# Long fuzzing runs: each libFuzzer target of tests/fuzz for at least --runs executions
# (default 10,000,000), starting from its committed seed corpus (copied: the seeds stay as they
# are). Prints per target: executions, edge coverage (cov), features (ft), corpus size, seconds;
# a crash, leak, timeout or out-of-memory stops that target and the script exits 1 with the
# reproducer's path (kept in build/fuzz/artifacts/).
#
#   scripts/fuzz-long.sh [--runs N] [--max-len N] [--target NAME]... [--no-build] [--merge]
#     --runs N       executions per target (default 10000000)
#     --max-len N    longest input libFuzzer generates (default: libFuzzer's, from the corpus)
#     --target NAME  only this target, e.g. fuzz_value (repeatable; default: every fuzz_*)
#     --no-build     use the existing build/fuzz (default: configure and build the fuzz preset)
#     --merge        after a clean run, add to tests/fuzz/corpus/<target> the inputs of the grown
#                    corpus that reach coverage the committed seeds do not (libFuzzer -merge=1),
#                    so the next run, and CI's 30 s, start from there
# A failed target's grown corpus is kept beside its reproducer (build/fuzz/artifacts/<target>-corpus),
# so hours of fuzzing are not lost to one finding. -timeout is 60 s: it counts wall-clock time, and
# 10 s tripped on inputs that replay in 0.2 s while the machine was saturated.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10000000
max_len=()
targets=()
build=1
merge=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --max-len) max_len=(-max_len="$2"); shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "fuzz-long: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [[ ${#targets[@]} -eq 0 ]]; then
  for src in tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi
if [[ $build -eq 1 ]]; then
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$(nproc)" --target "${targets[@]}"
fi

artifacts="$PWD/build/fuzz/artifacts"
mkdir -p "$artifacts"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-fuzz-long.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
failed=0
printf '%-28s %14s %8s %8s %8s %9s  %s\n' target executions cov ft corpus seconds result
for t in "${targets[@]}"; do
  bin="build/fuzz/tests/fuzz/$t"
  if [[ ! -x "$bin" ]]; then echo "fuzz-long: $bin is not built" >&2; exit 2; fi
  short=${t#fuzz_}
  corpus="$scratch/$short"
  mkdir -p "$corpus"
  cp tests/fuzz/corpus/"$short"/* "$corpus"/ 2>/dev/null || true
  log="$scratch/$t.log"
  start=$(date +%s)
  set +e
  # malloc_context_size=0: no allocation stack per malloc. ASan's stack depot grew without
  # bound and took 38% of fuzz_job_spec's time (1.5k exec/s and 1.1 GB at 5 M; 6.4k exec/s
  # without). A crash still prints its own stack; rerun the reproducer for allocation stacks.
  ASAN_OPTIONS=detect_leaks=1:malloc_context_size=0 "$bin" -runs="$runs" -rss_limit_mb=2048 -timeout=60 \
    "${max_len[@]}" -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  seconds=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  size=$(find "$corpus" -type f | wc -l)
  if [[ $rc -eq 0 ]]; then
    result=ok
    if [[ $merge -eq 1 ]]; then
      seeds=tests/fuzz/corpus/"$short"
      mkdir -p "$seeds"
      before=$(find "$seeds" -type f | wc -l)
      "$bin" -merge=1 -rss_limit_mb=2048 -timeout=60 "$seeds" "$corpus" >"$scratch/$t.merge.log" 2>&1 ||
        { echo "fuzz-long: merging $t's corpus failed (see $scratch/$t.merge.log)" >&2; failed=1; }
      result="ok, corpus $before -> $(find "$seeds" -type f | wc -l) seeds"
    fi
  else
    result="FAILED (exit $rc): $(grep -E 'ERROR|SUMMARY|artifact' "$log" | head -n 3 | tr '\n' ' ')"
    rm -rf "$artifacts/$t-corpus"
    mv "$corpus" "$artifacts/$t-corpus"
    cp "$log" "$artifacts/$t.log"
    failed=1
  fi
  printf '%-28s %14s %8s %8s %8s %9s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$size" \
    "$seconds" "$result"
done
exit $failed
