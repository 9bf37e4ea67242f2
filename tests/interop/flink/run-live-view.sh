#!/usr/bin/env bash
# The inspector's live Checkpoints view against a real Flink MiniCluster (ctest
# interop.flink_live_view, label `interop`):
#   run-live-view.sh LIVE_FLINK_VIEW_TEST SCRATCH_PARENT
# For Flink 1.20 and 2.x (the harness's Maven profiles; local repository $CKPT_MAVEN_REPO,
# default $HOME/.m2/repository; CKPT_INTEROP_PROFILES picks some): builds the harness, then runs
# the QTest live_flink_view_test, which starts the harness's LiveServe (a MiniCluster with REST
# running a keyed job with unaligned checkpoints every 200 ms and one savepoint), connects the
# live view, checks it against Flink's REST answers, opens a checkpoint and the savepoint in the
# main window and writes live-checkpoints-flink-<line>.png.
# Fails (never skips) when java, mvn or Maven Central is missing. Keeps the scratch dir on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -ne 2 ]]; then
  echo "usage: $0 LIVE_FLINK_VIEW_TEST SCRATCH_PARENT" >&2
  exit 2
fi
test_exe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
parent="$2"
repo="${CKPT_MAVEN_REPO:-$HOME/.m2/repository}"
profiles=(${CKPT_INTEROP_PROFILES:-flink-1.20 flink-2})

fail() { echo "FAIL: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
[[ -x "$test_exe" ]] || fail "live_flink_view_test not found or not executable: $test_exe"
command -v java >/dev/null || fail "java not found: run scripts/install-deps.sh (openjdk-17-jdk-headless)"
command -v mvn >/dev/null || fail "mvn not found: run scripts/install-deps.sh (maven)"

mkdir -p "$parent" "$repo"
parent="$(cd "$parent" && pwd)"
repo="$(cd "$repo" && pwd)"
scratch="$(mktemp -d "$parent/live-view.XXXXXX")"
echo "live view interop: scratch $scratch" >&2

status=0
for profile in "${profiles[@]}"; do
  line="${profile#flink-}"
  log="$scratch/mvn-$line.log"
  # shellcheck disable=SC2086
  if ! mvn -B -q ${CKPT_MAVEN_ARGS:-} -f "$here/pom.xml" -Dmaven.repo.local="$repo" \
       -Dharness.build.root="$parent/maven-build" -P"$profile" package >"$log" 2>&1; then
    if grep -Eqi "could not (transfer|resolve)|unknown ?host|connection (refused|timed out)|network is unreachable|offline mode" "$log"; then
      fail "Maven Central cannot be reached and $repo lacks the harness's artifacts (profile $profile); see $log"
    fi
    tail -40 "$log" >&2
    fail "Maven build of the harness failed (profile $profile); see $log"
  fi
  build="$parent/maven-build/target-$line"
  # The test's temporary dirs (the MiniCluster's checkpoints, savepoint and log) stay in the
  # scratch dir, which is removed only when every line passed.
  mkdir -p "$scratch/$line"
  if TMPDIR="$scratch/$line" CKPT_FLINK_KEEP_DIR=1 CKPT_FLINK_LINE="$line" \
     CKPT_FLINK_HARNESS_CP="$build/classes:$(cat "$build/classpath.txt")" \
     "$test_exe" >"$scratch/test-$line.log" 2>&1; then
    echo "[$line] live view against a Flink $line MiniCluster: ok ($(grep -c '^PASS' "$scratch/test-$line.log") passed)" >&2
  else
    echo "FAIL [$line] live view against a Flink $line MiniCluster:" >&2
    grep -E "^(FAIL|XPASS)|Loc:|QWARN|QINFO" "$scratch/test-$line.log" | head -40 >&2 || true
    tail -20 "$scratch/test-$line.log" >&2
    status=1
  fi
done

if [[ $status -eq 0 ]]; then
  rm -rf "$scratch"
  echo "1 passed, 0 failed"
else
  echo "live view interop: scratch kept: $scratch" >&2
  echo "0 passed, 1 failed"
fi
exit $status
