#!/usr/bin/env bash
# fixtures/flink, fixtures/flink-corrupt, fixtures/flink-connectors and
# fixtures/flink-ttl are frozen: every file's SHA-256 matches the
# committed SHA256SUMS of its folder, and no file is missing or added.
# Usage: flink_fixtures_frozen_test.sh FIXTURES_DIR
set -euo pipefail
for d in flink flink-corrupt flink-connectors flink-ttl; do
  dir="$1/$d"
  [ -d "$dir" ] || continue
  cd "$dir"
  sha256sum --quiet -c SHA256SUMS
  listed=$(awk '{print $2}' SHA256SUMS | sed 's|^\*||' | sort)
  present=$(find . -type f ! -name SHA256SUMS ! -name README.md | sed 's|^\./||' | sort)
  if [ "$listed" != "$present" ]; then
    echo "fixtures/$d: files differ from SHA256SUMS:" >&2
    diff <(echo "$listed") <(echo "$present") >&2 || true
    exit 1
  fi
done
echo "fixtures/flink* match their SHA256SUMS"
