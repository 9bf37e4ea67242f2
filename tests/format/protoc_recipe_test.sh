#!/usr/bin/env bash
# Runs FORMAT.md's stock-tool recipe, exactly as documented, on the frozen savepoint fixture and
# checks that protoc printed the metadata (not an error, not an empty message).
# Usage: protoc_recipe_test.sh SOURCE_DIR [PROTOC]
set -euo pipefail
src="$1"
protoc="${2:-protoc}"
cd "$src"
out=$(tail -c +25 fixtures/v1/savepoint/_metadata | head -c -8 \
  | "$protoc" --decode=ckpt.format.v1.CheckpointMetadata -I format/proto \
      format/proto/ckpt/format/v1/metadata.proto)
fail=0
for needle in 'format_version: 1' 'job_name: "orders-per-user"' 'checkpoint_id: 42' \
              'kind: SAVEPOINT' 'savepoint_format: CANONICAL' 'post_action: POST_ACTION_STOP' \
              'uid: "per-user-aggregate"' 'kind: STATE_MAP' 'kind: STATE_TIMERS' \
              'timer_domain: "event-time"' 'key_group_end: 127' 'kind: KEYED_STATE' \
              'path: "per-user-aggregate-1-keyed.state"' 'final_path: "/tmp/ckpt-out/part-file-sink-0-1"' \
              'distribution: STATE_OPERATOR_UNION' 'partitioning: HASH'; do
  if ! grep -qF -- "$needle" <<<"$out"; then
    echo "protoc output lacks: $needle" >&2
    fail=1
  fi
done
if [[ $fail -ne 0 ]]; then
  echo "---- protoc output ----" >&2
  echo "$out" >&2
  exit 1
fi
echo "protoc recipe decoded fixtures/v1/savepoint/_metadata ($(wc -l <<<"$out") lines)"
