#!/usr/bin/env bash
# ctest fixture: fetches s3proxy (org.gaul:s3proxy from Maven Central, through mvn) and starts it
# on 127.0.0.1 at a free port with an in-memory blobstore and SigV4 checking on. Writes the
# endpoint to <state-dir>/endpoint and the server's pid to <state-dir>/pid; its output goes to
# <state-dir>/s3proxy.log. Exits non-zero saying why when the jar cannot be fetched or the
# server does not come up. Maven's local repository is $CKPT_MAVEN_REPO when set (scripts/test.sh
# names the real one before it gives the tests a fresh HOME), else Maven's default. With
# S3PROXY_BLOBSTORE_DIR set, objects are kept on disk there instead of in memory (benchmarks
# with more data than the server's heap).
#   s3proxy_start.sh <state-dir>
set -euo pipefail
state=${1:?usage: s3proxy_start.sh <state-dir>}
version=2.6.0
artifact="org.gaul:s3proxy:${version}:jar:jar-with-dependencies"
mkdir -p "$state"
rm -f "$state/endpoint" "$state/pid"
jar="$state/s3proxy-${version}.jar"
if [[ ! -s $jar ]]; then
  repo_args=()
  [[ -n ${CKPT_MAVEN_REPO:-} ]] && repo_args=(-Dmaven.repo.local="$CKPT_MAVEN_REPO")
  if ! mvn -q -B -Dstyle.color=never "${repo_args[@]}" dependency:copy -Dartifact="$artifact" \
      -DoutputDirectory="$state/jar" >"$state/mvn.log" 2>&1; then
    echo "s3proxy_start: cannot fetch $artifact from Maven Central (mvn dependency:copy):" >&2
    tail -20 "$state/mvn.log" >&2
    exit 1
  fi
  mv "$state/jar/s3proxy-${version}-jar-with-dependencies.jar" "$jar"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$state/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:${port}
s3proxy.authorization=aws-v4
s3proxy.identity=AKIDCKPTS3TEST000001
s3proxy.credential=ckpt/s3+test/SECRETkey0000000000000000
jclouds.identity=unused
jclouds.credential=unused
CONF
heap=384m
if [[ -n ${S3PROXY_BLOBSTORE_DIR:-} ]]; then
  mkdir -p "$S3PROXY_BLOBSTORE_DIR"
  printf 'jclouds.provider=filesystem\njclouds.filesystem.basedir=%s\n' "$S3PROXY_BLOBSTORE_DIR" \
    >>"$state/s3proxy.conf"
  heap=1g
else
  echo "jclouds.provider=transient" >>"$state/s3proxy.conf"
fi
nohup java -Xmx$heap -jar "$jar" --properties "$state/s3proxy.conf" >"$state/s3proxy.log" 2>&1 &
pid=$!
echo "$pid" >"$state/pid"
deadline=$((SECONDS + 120))
until curl -s -o /dev/null "http://127.0.0.1:${port}/"; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "s3proxy_start: s3proxy exited before listening on 127.0.0.1:${port}:" >&2
    tail -20 "$state/s3proxy.log" >&2
    exit 1
  fi
  if ((SECONDS > deadline)); then
    echo "s3proxy_start: s3proxy did not listen on 127.0.0.1:${port} within 120 s" >&2
    kill "$pid" 2>/dev/null || true
    exit 1
  fi
  sleep 0.2
done
echo "http://127.0.0.1:${port}" >"$state/endpoint"
echo "s3proxy ${version} on http://127.0.0.1:${port} (pid ${pid})"
