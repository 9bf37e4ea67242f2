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
source "$here/harness-lib.sh"
interop_init "$1" "$2" live-view
test_exe="$binary"
echo "live view interop: scratch $scratch" >&2

status=0
for profile in "${profiles[@]}"; do
  build_harness "$profile"
  # The test's temporary dirs (the MiniCluster's checkpoints, savepoint and log) stay in the
  # scratch dir, which is removed only when every line passed.
  mkdir -p "$scratch/$line"
  if TMPDIR="$scratch/$line" CKPT_FLINK_KEEP_DIR=1 CKPT_FLINK_LINE="$line" \
     CKPT_FLINK_HARNESS_CP="$(harness_cp)" \
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
