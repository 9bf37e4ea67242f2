#!/usr/bin/env bash
# The Flink interop test (ctest label `interop`):
#   run-interop.sh CKPT_TOOL SCRATCH_PARENT
# 1. builds the harness with Maven for Flink 1.20 and 2.x (local repository $CKPT_MAVEN_REPO,
#    default $HOME/.m2/repository: scripts/test.sh points it at the real one before it gives
#    the tests a fresh HOME, so the cache persists between runs);
#    into SCRATCH_PARENT/maven-build (kept, so an unchanged harness is not recompiled);
# 2. runs each harness on a MiniCluster into a fresh scratch dir under SCRATCH_PARENT;
# 3. runs check_snapshots.py: ckpt-tool ls/show/files/validate --deep, dump vs the ground truth,
#    diff --keys vs the keys the harness changed, on every snapshot.
# Fails (never skips) when java, mvn or Maven Central is missing. Keeps the scratch dir on failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -ne 2 ]]; then
  echo "usage: $0 CKPT_TOOL SCRATCH_PARENT" >&2
  exit 2
fi
tool="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
parent="$2"
repo="${CKPT_MAVEN_REPO:-$HOME/.m2/repository}"
profiles=(${CKPT_INTEROP_PROFILES:-flink-1.20 flink-2})

fail() { echo "FAIL: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
[[ -x "$tool" ]] || fail "ckpt-tool not found or not executable: $tool"
command -v java >/dev/null || fail "java not found: run scripts/install-deps.sh (openjdk-17-jdk-headless)"
command -v mvn >/dev/null || fail "mvn not found: run scripts/install-deps.sh (maven)"
command -v python3 >/dev/null || fail "python3 not found"

mkdir -p "$parent" "$repo"
parent="$(cd "$parent" && pwd)"  # Maven resolves relative paths against the pom's directory
repo="$(cd "$repo" && pwd)"
scratch="$(mktemp -d "$parent/run.XXXXXX")"
echo "interop: scratch $scratch, Maven repository $repo" >&2
t0=$(date +%s.%N)
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)"; }

mapfile -t jvm_opts < "$here/jvm-opts.txt"
for profile in "${profiles[@]}"; do
  line="${profile#flink-}"
  log="$scratch/mvn-$line.log"
  # CKPT_MAVEN_ARGS: extra Maven arguments, e.g. -o to use only the local repository.
  # shellcheck disable=SC2086
  if ! mvn -B -q ${CKPT_MAVEN_ARGS:-} -f "$here/pom.xml" -Dmaven.repo.local="$repo" -Dharness.build.root="$parent/maven-build" \
       -P"$profile" package >"$log" 2>&1; then
    if grep -Eqi "could not (transfer|resolve)|unknown ?host|connection (refused|timed out)|network is unreachable|failed to read artifact descriptor|offline mode|no route to host|temporary failure in name resolution" "$log"; then
      grep -Ei "could not|unknown ?host|connection|unreachable" "$log" | head -5 >&2
      fail "Maven Central cannot be reached and the local repository $repo lacks the harness's artifacts (profile $profile); see $log"
    fi
    tail -40 "$log" >&2
    fail "Maven build of the harness failed (profile $profile); see $log"
  fi
  echo "interop: [$(elapsed) s] built $profile" >&2
  build="$parent/maven-build/target-$line"
  if ! java "${jvm_opts[@]}" -cp "$build/classes:$(cat "$build/classpath.txt")" ckpt.interop.Harness \
       --out "$scratch/snapshots" 2> >(grep -v '^SLF4J' >&2); then
    fail "the Flink harness ($profile) failed"
  fi
  echo "interop: [$(elapsed) s] harness $profile done" >&2
  # Issue 11 §3: remap verified by Flink (RemapCheck.java): refused before, restored after.
  for variant in "hashmap canonical" "rocksdb native"; do
    read -r backend format <<<"$variant"
    if ! java "${jvm_opts[@]}" -cp "$build/classes:$(cat "$build/classpath.txt")" ckpt.interop.RemapCheck \
         --out "$scratch/remap-check" --ckpt-tool "$tool" --backend "$backend" --format "$format" \
         2> >(grep -v '^SLF4J' >&2); then
      remap_failed=1
    fi
  done
  echo "interop: [$(elapsed) s] remap check $profile done" >&2
  # Issue 11 §3: rescale-max-parallelism 128 -> 256 verified by Flink (RescaleCheck.java).
  for variant in "hashmap string" "rocksdb long" "hashmap tuple" "rocksdb row"; do
    read -r backend key <<<"$variant"
    if ! java "${jvm_opts[@]}" -cp "$build/classes:$(cat "$build/classpath.txt")" ckpt.interop.RescaleCheck \
         --out "$scratch/rescale-check" --ckpt-tool "$tool" --backend "$backend" --key "$key" \
         2> >(grep -v '^SLF4J' >&2); then
      rescale_failed=1
    fi
  done
  echo "interop: [$(elapsed) s] rescale check $profile done" >&2
  # Issue 11 §3: validate --against vs a real Flink restore, change by change (ValidateMatrix.java).
  if ! java "${jvm_opts[@]}" -cp "$build/classes:$(cat "$build/classpath.txt")" ckpt.interop.ValidateMatrix \
       --out "$scratch/validate-matrix" --ckpt-tool "$tool" 2> >(grep -v '^SLF4J' >&2); then
    matrix_failed=1
  fi
  echo "interop: [$(elapsed) s] validate matrix $profile done" >&2
  # Issue 11 §3: prune --keep-last 1 on a RocksDB incremental directory, then Flink restores (PruneCheck.java).
  if ! java "${jvm_opts[@]}" -cp "$build/classes:$(cat "$build/classpath.txt")" ckpt.interop.PruneCheck \
       --out "$scratch/prune-check" --ckpt-tool "$tool" 2> >(grep -v '^SLF4J' >&2); then
    prune_failed=1
  fi
  echo "interop: [$(elapsed) s] prune check $profile done" >&2
done

roots=("$scratch"/snapshots/*/)
status=0
python3 "$here/check_snapshots.py" --ckpt-tool "$tool" "${roots[@]}" || status=$?
# Issue 11 §1: every harness snapshot's _metadata read and written back byte for byte.
python3 "$here/check_writer.py" --ckpt-tool "$tool" "${roots[@]}" || status=1
[[ -z "${remap_failed:-}" ]] || { echo "FAIL: the remap check against Flink failed (see above)"; status=1; }
[[ -z "${rescale_failed:-}" ]] || { echo "FAIL: the rescale-max-parallelism check against Flink failed (see above)"; status=1; }
[[ -z "${prune_failed:-}" ]] || { echo "FAIL: Flink did not restore the pruned checkpoint (see above)"; status=1; }
[[ -z "${matrix_failed:-}" ]] || { echo "FAIL: validate --against disagrees with Flink (see the matrix above)"; status=1; }
echo "interop: [$(elapsed) s] checks done (exit $status)" >&2
if [[ $status -eq 0 ]]; then
  rm -rf "$scratch"
else
  echo "interop: kept $scratch for inspection" >&2
fi
exit $status
