#!/usr/bin/env bash
# The connector interop test (ctest `interop.flink_connectors`, label interop):
#   run-connectors.sh CKPT_TOOL SCRATCH_PARENT [--keep]
# 1. resolves the Kafka broker (kafka-broker/pom.xml: Apache Kafka's kafka_2.13 and its
#    dependencies) and builds the harness for Flink 1.20 and 2.x with Maven (local repository
#    $CKPT_MAVEN_REPO, default $HOME/.m2/repository; build dirs under SCRATCH_PARENT/maven-build);
# 2. runs ConnectorHarness for each line into a fresh scratch dir: a KRaft Kafka broker in a
#    child JVM, the Kafka / legacy Kafka / file connector jobs on a MiniCluster, a checkpoint and
#    a savepoint of each taken mid-stream and restored in Flink, truth.json beside each;
# 3. runs check_positions.py: `ckpt-tool positions` of every snapshot it wrote, and of the
#    frozen fixtures/flink-connectors, against their truth.json.
# Fails (never skips) when java, mvn or Maven Central is missing. Keeps the scratch dir on
# failure, or always with --keep.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -lt 2 || $# -gt 3 || ( $# -eq 3 && "$3" != "--keep" ) ]]; then
  echo "usage: $0 CKPT_TOOL SCRATCH_PARENT [--keep]" >&2
  exit 2
fi
keep="${3:-}"
source "$here/harness-lib.sh"
interop_init "$1" "$2" connectors python3
tool="$binary"
echo "connectors: scratch $scratch, Maven repository $repo" >&2
t0=$(date +%s.%N)
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)"; }

log="$scratch/mvn-kafka-broker.log"
# shellcheck disable=SC2086
if ! mvn -B -q ${CKPT_MAVEN_ARGS:-} -f "$here/kafka-broker/pom.xml" -Dmaven.repo.local="$repo" \
     -Dharness.build.root="$parent/maven-build" package >"$log" 2>&1; then
  tail -20 "$log" >&2
  fail "Maven could not resolve the Kafka broker (org.apache.kafka:kafka_2.13; Maven Central or $repo); see $log"
fi
broker_cp="$parent/maven-build/target-kafka-broker/classpath.txt"
echo "connectors: [$(elapsed) s] Kafka broker resolved" >&2

status=0
for profile in "${profiles[@]}"; do
  build_harness "$profile"
  echo "connectors: [$(elapsed) s] built $profile" >&2
  if ! java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.ConnectorHarness \
       --out "$scratch/snapshots" --kafka-classpath "$broker_cp" 2> >(grep -v '^SLF4J' >&2); then
    echo "FAIL: the connector harness ($profile) failed (see above)"
    status=1
  fi
  echo "connectors: [$(elapsed) s] connector jobs $profile done" >&2
done

roots=()
[[ -d "$scratch/snapshots" ]] && roots+=("$scratch/snapshots")
roots+=("$here/../../../fixtures/flink-connectors")
python3 "$here/check_positions.py" --ckpt-tool "$tool" "${roots[@]}" || status=1
echo "connectors: [$(elapsed) s] checks done (exit $status)" >&2
if [[ $status -eq 0 && "$keep" != "--keep" ]]; then
  rm -rf "$scratch"
else
  echo "connectors: kept $scratch" >&2
fi
exit $status
