#!/usr/bin/env bash
# The S3 benchmarks (bench_s3) against s3proxy on 127.0.0.1 with its objects on disk: starts the
# server (tests/format/s3/s3proxy_start.sh, from Maven Central), runs bench_s3, stops the server
# and removes its objects. Prints every measurement and each ratio against its baseline.
#   bench/s3/run_s3_bench.sh [BUILD_DIR]      (default build/release; CKPT_BENCH_MB, _RUNS)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
[[ -x $build/bench/bench_s3 ]] || { echo "run_s3_bench: build $build/bench/bench_s3 first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/s3bench.XXXXXX")
trap 'bash tests/format/s3/s3proxy_stop.sh "$work/server"; rm -rf "$work"' EXIT
S3PROXY_BLOBSTORE_DIR="$work/blobs" bash tests/format/s3/s3proxy_start.sh "$work/server"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
env -u AWS_PROFILE AWS_ENDPOINT_URL="$(cat "$work/server/endpoint")" \
  AWS_ACCESS_KEY_ID=AKIDCKPTS3TEST000001 AWS_SECRET_ACCESS_KEY='ckpt/s3+test/SECRETkey0000000000000000' \
  AWS_REGION=us-east-1 HOME="$work" "$build/bench/bench_s3"
