#!/usr/bin/env bash
# The older Flink lines (1.15-1.19) against ckpt-tool:
#   run-old-lines.sh CKPT_TOOL SCRATCH_PARENT [PROFILE...]
# PROFILEs: Maven profiles flink-1.15 .. flink-1.19 (default: all five; $CKPT_OLD_PROFILES too).
# Per profile: builds the focused harness of src/old/java (OldLine.java, the APIs the five lines
# share), runs its cases ($CKPT_OLD_CASES, comma-separated; default every case) on a MiniCluster
# — each snapshot taken, then restored by Flink — and check_old_line.py checks ckpt-tool on every
# snapshot: validate --deep agrees with Flink's restore, dump holds the expected state.
# run-interop.sh runs it for flink-1.15 with a focused set of cases (CI); run the whole set here.
# Fails (never skips) when java, mvn or Maven Central is missing. Keeps the scratch dir on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -lt 2 ]]; then
  echo "usage: $0 CKPT_TOOL SCRATCH_PARENT [flink-1.15 ... flink-1.19]" >&2
  exit 2
fi
source "$here/harness-lib.sh"
interop_init "$1" "$2" old-lines python3
shift 2
# shellcheck disable=SC2206
old_profiles=(${CKPT_OLD_PROFILES:-flink-1.15 flink-1.16 flink-1.17 flink-1.18 flink-1.19})
[[ $# -eq 0 ]] || old_profiles=("$@")
only=()
[[ -z "${CKPT_OLD_CASES:-}" ]] || only=(--only "$CKPT_OLD_CASES")
t0=$(date +%s)
status=0
roots=()
for profile in "${old_profiles[@]}"; do
  case "$profile" in flink-1.1[5-9]) ;; *) fail "not an older-line profile: $profile (flink-1.15 .. flink-1.19)" ;; esac
  # A line that does not build fails the run but not the other lines (build_harness exits).
  if ! (build_harness "$profile"); then
    status=1
    continue
  fi
  line="${profile#flink-}"
  build="$parent/maven-build/target-$line"
  echo "old-lines: [$(( $(date +%s) - t0 )) s] built $profile" >&2
  out="$scratch/snapshots-$line"
  if ! java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.OldLine --out "$out" "${only[@]}" \
       2> >(grep -v '^SLF4J' >&2); then
    echo "FAIL: the older-line harness ($profile) failed" >&2
    status=1
    continue
  fi
  roots+=("$out"/*/)
  echo "old-lines: [$(( $(date +%s) - t0 )) s] harness $profile done" >&2
done
if [[ ${#roots[@]} -gt 0 ]]; then
  python3 "$here/check_old_line.py" --ckpt-tool "$binary" "${roots[@]}" || status=1
fi
echo "old-lines: [$(( $(date +%s) - t0 )) s] checks done (exit $status)" >&2
if [[ $status -eq 0 ]]; then
  rm -rf "$scratch"
else
  echo "old-lines: kept $scratch for inspection" >&2
fi
exit $status
