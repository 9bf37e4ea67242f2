#!/usr/bin/env bash
# Installs every Debian 12 package the project needs (as root), only those missing.
# Used by scripts/demo.sh and scripts/test.sh; safe to run again.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git ccache
  clang libclang-rt-14-dev
  protobuf-compiler libprotobuf-dev
  libzstd-dev zstd libxxhash-dev xxhash
  librocksdb-dev rocksdb-tools libsnappy-dev
  libcli11-dev libcpp-httplib-dev nlohmann-json3-dev
  libcurl4-openssl-dev libssl-dev  # the S3 Fs (format/s3): HTTP and SigV4
  libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-base-dev-tools libgl-dev xvfb xauth
  python3-jsonschema
  prometheus  # promtool: the REST endpoint's /metrics exposition is checked with it in tests
  chromium  # tests/interop/flink: Flink's web dashboard driven headless over the DevTools protocol
  openjdk-17-jdk-headless maven  # tests/interop/flink only (real Flink in the loop); never the product
  # release engineering (packaging/, tests/release): packages, man pages, desktop files, lint
  dpkg-dev fakeroot file man-db lintian shellcheck desktop-file-utils appstream libxml2-utils
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages present" >&2
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
