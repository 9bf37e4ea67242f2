#!/usr/bin/env bash
# Regenerates the fixtures with ckpt-fixture-gen into a temporary directory and compares them
# byte for byte with the committed fixtures/: proves the generator is deterministic and that the
# writer still produces the frozen v1 bytes (a change here is a format change, see FORMAT.md).
# Usage: fixtures_frozen_test.sh SOURCE_DIR FIXTURE_GEN
set -euo pipefail
src="$1"
gen="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" "$tmp"
diff -r "$src/fixtures/v1" "$tmp/v1"
diff -r "$src/fixtures/v1-r2" "$tmp/v1-r2"
diff -r "$src/fixtures/corrupt" "$tmp/corrupt"
echo "regenerated fixtures are identical to the committed ones"
