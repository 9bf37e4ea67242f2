#!/usr/bin/env bash
# ctest fixture cleanup: stops the s3proxy that s3proxy_start.sh started (by its recorded pid).
#   s3proxy_stop.sh <state-dir>
set -uo pipefail
state=${1:?usage: s3proxy_stop.sh <state-dir>}
if [[ -s $state/pid ]]; then
  kill "$(cat "$state/pid")" 2>/dev/null || true
fi
rm -f "$state/pid" "$state/endpoint"
exit 0
