#!/usr/bin/env bash
# The Flink interop test (ctest label `interop`):
#   run-interop.sh CKPT_TOOL SCRATCH_PARENT
# 1. builds the harness with Maven for Flink 1.20 and 2.x (local repository $CKPT_MAVEN_REPO,
#    default $HOME/.m2/repository: scripts/test.sh points it at the real one before it gives
#    the tests a fresh HOME, so the cache persists between runs);
#    into SCRATCH_PARENT/maven-build (kept, so an unchanged harness is not recompiled);
# 2. runs each harness on a MiniCluster into a fresh scratch dir under SCRATCH_PARENT;
# 3. runs check_snapshots.py: ckpt-tool ls/show/files/validate --deep, dump vs the ground truth,
#    diff --keys vs the keys the harness changed, on every snapshot;
# 4. runs run-old-lines.sh for Flink 1.15 (a focused set of OldLine's cases).
# Fails (never skips) when java, mvn or Maven Central is missing. Keeps the scratch dir on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -ne 2 ]]; then
  echo "usage: $0 CKPT_TOOL SCRATCH_PARENT" >&2
  exit 2
fi
source "$here/harness-lib.sh"
interop_init "$1" "$2" run python3
tool="$binary"
echo "interop: scratch $scratch, Maven repository $repo" >&2
t0=$(date +%s.%N)
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)"; }

for profile in "${profiles[@]}"; do
  build_harness "$profile"
  echo "interop: [$(elapsed) s] built $profile" >&2
  if ! java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.Harness \
       --out "$scratch/snapshots" 2> >(grep -v '^SLF4J' >&2); then
    fail "the Flink harness ($profile) failed"
  fi
  echo "interop: [$(elapsed) s] harness $profile done" >&2
  # Issue 11 §3: remap verified by Flink (RemapCheck.java): refused before, restored after.
  for variant in "hashmap canonical" "rocksdb native"; do
    read -r backend format <<<"$variant"
    if ! java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.RemapCheck \
         --out "$scratch/remap-check" --ckpt-tool "$tool" --backend "$backend" --format "$format" \
         2> >(grep -v '^SLF4J' >&2); then
      remap_failed=1
    fi
  done
  echo "interop: [$(elapsed) s] remap check $profile done" >&2
  # Issue 11 §3: rescale-max-parallelism 128 -> 256 verified by Flink (RescaleCheck.java).
  for variant in "hashmap string" "rocksdb long" "hashmap tuple" "rocksdb row"; do
    read -r backend key <<<"$variant"
    if ! java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.RescaleCheck \
         --out "$scratch/rescale-check" --ckpt-tool "$tool" --backend "$backend" --key "$key" \
         2> >(grep -v '^SLF4J' >&2); then
      rescale_failed=1
    fi
  done
  echo "interop: [$(elapsed) s] rescale check $profile done" >&2
  # Issue 11 §3: validate --against vs a real Flink restore, change by change (ValidateMatrix.java).
  if ! java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.ValidateMatrix \
       --out "$scratch/validate-matrix" --ckpt-tool "$tool" 2> >(grep -v '^SLF4J' >&2); then
    matrix_failed=1
  fi
  echo "interop: [$(elapsed) s] validate matrix $profile done" >&2
  # Issue 11 §3: prune --keep-last 1 on a RocksDB incremental directory, then Flink restores (PruneCheck.java).
  if ! java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.PruneCheck \
       --out "$scratch/prune-check" --ckpt-tool "$tool" 2> >(grep -v '^SLF4J' >&2); then
    prune_failed=1
  fi
  echo "interop: [$(elapsed) s] prune check $profile done" >&2
done

# The older lines (src/old/java, OldLine.java): Flink 1.15 with a focused set of cases here
# ($CKPT_INTEROP_OLD_PROFILES, default flink-1.15; empty: none); every line 1.15-1.19 and every
# case: run-old-lines.sh.
old_profiles="${CKPT_INTEROP_OLD_PROFILES-flink-1.15}"
if [[ -n "$old_profiles" ]]; then
  # shellcheck disable=SC2086
  if ! CKPT_OLD_CASES="${CKPT_OLD_CASES:-rocksdb-full-maxp4,rocksdb-full-maxp4-nouid,unaligned-rocksdb-maxp4}" \
       bash "$here/run-old-lines.sh" "$tool" "$parent" $old_profiles; then
    old_failed=1
  fi
  echo "interop: [$(elapsed) s] older lines ($old_profiles) done" >&2
fi

roots=("$scratch"/snapshots/*/)
status=0
python3 "$here/check_snapshots.py" --ckpt-tool "$tool" "${roots[@]}" || status=$?
# Issue 11 §1: every harness snapshot's _metadata read and written back byte for byte.
python3 "$here/check_writer.py" --ckpt-tool "$tool" "${roots[@]}" || status=1
# Every harness snapshot's _metadata cut short (every 512th byte and just before the end) is
# reported by validate and validate --deep, without a crash.
bash "$here/../../../scripts/truncation-campaign.sh" --tool "$tool" --no-fixtures --stride 512 \
  --root "$scratch/snapshots" || status=1
[[ -z "${remap_failed:-}" ]] || { echo "FAIL: the remap check against Flink failed (see above)"; status=1; }
[[ -z "${rescale_failed:-}" ]] || { echo "FAIL: the rescale-max-parallelism check against Flink failed (see above)"; status=1; }
[[ -z "${prune_failed:-}" ]] || { echo "FAIL: Flink did not restore the pruned checkpoint (see above)"; status=1; }
[[ -z "${old_failed:-}" ]] || { echo "FAIL: ckpt-tool disagrees with an older Flink line (see above)"; status=1; }
[[ -z "${matrix_failed:-}" ]] || { echo "FAIL: validate --against disagrees with Flink (see the matrix above)"; status=1; }
echo "interop: [$(elapsed) s] checks done (exit $status)" >&2
if [[ $status -eq 0 ]]; then
  rm -rf "$scratch"
else
  echo "interop: kept $scratch for inspection" >&2
fi
exit $status
