#!/usr/bin/env bash
# README command 2: set up (Debian 12, as root), build and run every test.
#   1. release preset: all unit, golden and integration tests (ctest), then the corruption
#      campaign (scripts/corruption-campaign.sh, 200 bit flips per fixture kind)
#      and the truncation campaign (scripts/truncation-campaign.sh: every Flink `_metadata` cut at
#      every 64th byte must fail validate)
#   1b. loaded ITCases: the integration ITCases once more at `ctest -j 8` on two cores, with busy
#      loops added when the machine is idle (scripts/loaded-itcases.sh; the flakes of
#      timing-dependent tests show under load)
#   2. asan-ubsan preset: the format, ops and engine unit suites under AddressSanitizer + UBSan
#   3. fuzz preset: each libFuzzer target for 30 s
#   4. tsan preset: the engine unit tests and the integration ITCases under ThreadSanitizer
#   5. kill campaign: 20 random kill -9s of ckpt-engine resumed with --from-latest (release),
#      then 5 with checkpoints and the file sink on S3 (kill-campaign.sh --s3, a local s3proxy)
#   6. prune campaign: 50 rounds of random damage to engine-written checkpoint roots, then prune;
#      the newest checkpoint that restores must still restore (release)
# Fails on the first failure. The release, asan-ubsan and tsan presets are unity builds (a few
# source files per compiler run), which keeps this whole run within CI's time on two cores; the
# dev preset compiles each file on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)

# Tests run as on a fresh machine: an empty TMPDIR and a fresh HOME of their own, so none can
# depend on what an earlier run, another machine or the developer's home left behind.
mkdir -p build
scratch=$(mktemp -d "$PWD/build/fresh-machine.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The Flink interop harness (tests/interop/flink) needs Maven's local repository to persist
# between runs: name the real one before HOME is replaced below.
export CKPT_MAVEN_REPO="${CKPT_MAVEN_REPO:-${HOME}/.m2/repository}"
fresh() { mkdir -p "$scratch/tmp" "$scratch/home" && TMPDIR="$scratch/tmp" HOME="$scratch/home" "$@"; }

# The release build (README's first command) must print no compiler warning: its log
# is kept and any "warning:" line fails the run, printed with the file and line it names.
no_warnings() {
  local found
  found=$(grep -E "(^|[^a-z])warning:" "$1" | sort -u || true)
  if [[ -n $found ]]; then
    echo "=== FAIL: the release build printed $(wc -l <<<"$found") compiler warning(s) ($1):" >&2
    echo "$found" >&2
    echo "Fix them, or silence a false one per file/target in cmake/Warnings.cmake." >&2
    return 1
  fi
}

echo "=== release: build and test" >&2
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs" 2>&1 | tee build/release-build.log
no_warnings build/release-build.log
fresh ctest --preset release -j "$jobs" --timeout 900

echo "=== loaded ITCases: ${CKPT_LOADED_RUNS:-1} run(s) at ctest -j 8 on two cores" >&2
fresh bash scripts/loaded-itcases.sh --runs "${CKPT_LOADED_RUNS:-1}" --build-dir build/release

echo "=== corruption campaign: ${CKPT_CORRUPTION_FLIPS:-200} bit flips per fixture kind" >&2
fresh bash scripts/corruption-campaign.sh --flips "${CKPT_CORRUPTION_FLIPS:-200}" \
  --tool build/release/ckpt-tool/ckpt-tool

echo "=== truncation campaign: every Flink _metadata cut at every 64th byte" >&2
fresh bash scripts/truncation-campaign.sh --tool build/release/ckpt-tool/ckpt-tool

echo "=== asan-ubsan: format, ops and engine unit suites" >&2
cmake --preset asan-ubsan >/dev/null
# Only what these suites run (the integration ITCases run under TSan below, and in release).
cmake --build --preset asan-ubsan -j "$jobs" --target ops_test format_test base_test flink_test \
  engine_test custom_operator_example ckpt-tool ckpt-fixture-gen ckpt-format-demo
fresh ctest --preset asan-ubsan -j "$jobs" -L 'format|ops|engine' --timeout 900

echo "=== fuzz: each target ${CKPT_FUZZ_SECONDS:-30} s" >&2
cmake --preset fuzz -DCKPT_FUZZ_SECONDS="${CKPT_FUZZ_SECONDS:-30}" >/dev/null
cmake --build --preset fuzz -j "$jobs"
fresh ctest --test-dir build/fuzz -L fuzz --output-on-failure -j "$jobs"

echo "=== tsan: engine unit tests and integration ITCases" >&2
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs" --target engine_test integration_test ckpt-engine \
  custom_operator_example
# The verdict generator's sample runs in the release stage: under TSan it would only re-run the
# same engine code paths the ITCases cover, many times slower.
fresh ctest --preset tsan -j "$jobs" -L 'engine|integration' -E '^VerdictGenerator' --timeout 900

echo "=== kill campaign: ${CKPT_KILLS:-20} kills" >&2
fresh env CKPT_ENGINE="$PWD/build/release/engine/ckpt-engine" \
  CKPT_TOOL="$PWD/build/release/ckpt-tool/ckpt-tool" bash scripts/kill-campaign.sh "${CKPT_KILLS:-20}"

echo "=== kill campaign on S3 (local s3proxy): ${CKPT_S3_KILLS:-5} kills" >&2
fresh env CKPT_ENGINE="$PWD/build/release/engine/ckpt-engine" \
  bash scripts/kill-campaign.sh --s3 "${CKPT_S3_KILLS:-5}"

echo "=== prune campaign: ${CKPT_PRUNE_ROUNDS:-50} rounds" >&2
fresh env CKPT_ENGINE="$PWD/build/release/engine/ckpt-engine" \
  CKPT_TOOL="$PWD/build/release/ckpt-tool/ckpt-tool" \
  bash scripts/prune-campaign.sh "${CKPT_PRUNE_ROUNDS:-50}" 4242
