#!/usr/bin/env bash
# README command 1: set up (Debian 12, as root), build the release preset, run the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
BIN=build/release
if [[ -x $BIN/engine/ckpt-engine && -f scripts/engine-demo.sh ]]; then
  exec bash scripts/engine-demo.sh "$BIN/engine/ckpt-engine"
fi
exec "$BIN/format/ckpt-format-demo"
