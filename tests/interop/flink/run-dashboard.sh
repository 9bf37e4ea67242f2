#!/usr/bin/env bash
# Flink's own web dashboard against ckpt-engine (ctest interop.flink_dashboard, label `interop`):
#   run-dashboard.sh CKPT_ENGINE SCRATCH_PARENT
# For Flink 1.20 and 2.x (the harness's Maven profiles; local repository $CKPT_MAVEN_REPO,
# default $HOME/.m2/repository):
# 1. fetches flink-runtime-web of the line's Flink version with Maven and unpacks its `web/`;
# 2. runs a keyed job (parallelism 2, checkpoints every second, rate limited so it outlives the
#    tour) with `--web-ui`, triggers one savepoint, and runs DashboardTour (headless Chromium over
#    the DevTools protocol) through every page of the dashboard;
# 3. runs a short job to its end with --archive-dir and tours the finished job on
#    `ckpt-engine history-server` (when the engine has that subcommand; says so when it has not).
# Any HTTP answer >= 400, console error or uncaught exception on any page fails the test; the
# tour lists them all. Screenshots stay in the scratch dir ($line-live/, $line-history/).
# Fails (never skips) when java, mvn, chromium or Maven Central is missing. Keeps the scratch
# dir on failure. CKPT_DASHBOARD_SHOTS=DIR: copy the screenshots to DIR/<line>-{live,history}/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [[ $# -ne 2 ]]; then
  echo "usage: $0 CKPT_ENGINE SCRATCH_PARENT" >&2
  exit 2
fi
source "$here/harness-lib.sh"
chromium="${CKPT_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[[ -n "$chromium" ]] || { echo "FAIL: chromium not found: run scripts/install-deps.sh (chromium)" >&2; echo "0 passed, 1 failed"; exit 1; }
interop_init "$1" "$2" dashboard python3 unzip
engine="$binary"
echo "dashboard tour: scratch $scratch" >&2
export CKPT_ENGINE_STATE_FILE="$scratch/engine-state.json"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

job_json() {  # $1 = file, $2 = sink dir, $3 = last number, $4 = rate (records/s)
  cat >"$1" <<JOB
{"name": "dashboard-tour", "parallelism": 2, "max_parallelism": 128,
 "operators": [
   {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
    "params": {"from": 1, "to": $3, "splits": 4, "keys": 8, "rate_per_second": $4}},
   {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
   {"id": "sink", "kind": "file-sink", "uid": "sums", "params": {"path": "$2"}}],
 "edges": [{"from": "numbers", "to": "sum", "partitioning": "HASH"},
           {"from": "sum", "to": "sink", "partitioning": "FORWARD"}]}
JOB
}

# The Flink version of a harness profile (pom.xml's flink.version).
flink_version() {
  python3 - "$here/pom.xml" "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
for p in ET.parse(sys.argv[1]).getroot().findall("m:profiles/m:profile", ns):
    if p.find("m:id", ns).text == sys.argv[2]:
        print(p.find("m:properties/m:flink.version", ns).text)
PY
}

# Unpacks the `web/` folder of flink-runtime-web $1 into $2 (fetched into the local repository).
fetch_web() {
  local version="$1" dest="$2" log="$scratch/mvn-web-$1.log"
  # shellcheck disable=SC2086
  if ! mvn -B -q ${CKPT_MAVEN_ARGS:-} -f "$here/pom.xml" -Dmaven.repo.local="$repo" \
       -Dharness.build.root="$parent/maven-build" \
       org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
       -Dartifact="org.apache.flink:flink-runtime-web:$version" -DoutputDirectory="$dest" \
       >"$log" 2>&1; then
    tail -20 "$log" >&2
    fail "cannot fetch org.apache.flink:flink-runtime-web:$version (Maven Central or $repo); see $log"
  fi
  (cd "$dest" && unzip -q -o "flink-runtime-web-$version.jar" 'web/*')
  [[ -f "$dest/web/index.html" ]] || fail "flink-runtime-web-$version.jar has no web/index.html"
}

# Starts the rate-limited engine in $1 with the dashboard $2; sets $address, $job_id and
# $engine_pid once it serves and has a completed checkpoint.
start_engine() {
  local dir="$1" web="$2"
  mkdir -p "$dir"
  job_json "$dir/job.json" "$dir/out" 100000000 2000
  rm -f "$CKPT_ENGINE_STATE_FILE"
  "$engine" run "$dir/job.json" --checkpoint-dir "$dir/ckpt" --interval 1000 --rest-port 0 \
    --web-ui "$web" >"$dir/engine.log" 2>&1 &
  engine_pid=$!
  pids+=("$engine_pid")
  for _ in $(seq 600); do
    if [[ -f "$CKPT_ENGINE_STATE_FILE" ]] && compgen -G "$dir/ckpt/*/chk-*/_metadata" >/dev/null; then
      address="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["address"])' "$CKPT_ENGINE_STATE_FILE")"
      job_id="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$CKPT_ENGINE_STATE_FILE")"
      return 0
    fi
    kill -0 "$engine_pid" 2>/dev/null || fail "ckpt-engine exited early: $(tail -5 "$dir/engine.log")"
    sleep 0.1
  done
  fail "ckpt-engine did not serve within 60 s (see $dir/engine.log)"
}

status=0
for profile in "${profiles[@]}"; do
  build_harness "$profile"
  version="$(flink_version "$profile")"
  [[ -n "$version" ]] || fail "no flink.version for profile $profile in $here/pom.xml"
  web="$scratch/$line-web"
  fetch_web "$version" "$web"
  tour() { java "${jvm_opts[@]}" -cp "$(harness_cp)" ckpt.interop.DashboardTour \
             --chromium "$chromium" --line "$line" "$@"; }

  # 1. The running job: every page, after a savepoint (the checkpoints' "latest savepoint").
  run="$scratch/$line-live"
  start_engine "$run" "$web/web"
  if ! "$engine" savepoint "$job_id" "$run/sp" --address "$address" >"$run/savepoint.log" 2>&1; then
    echo "FAIL [$line] ckpt-engine savepoint: $(tail -3 "$run/savepoint.log")" >&2
    status=1
  fi
  if tour --url "$address" --job "$job_id" --out "$run/shots" >"$run/tour.log" 2>&1; then
    echo "[$line] dashboard tour of the running job: $(grep '^DashboardTour' "$run/tour.log")" >&2
  else
    echo "FAIL [$line] dashboard tour of the running job:"$'\n'"$(cat "$run/tour.log")" >&2
    status=1
  fi
  kill "$engine_pid" 2>/dev/null || true
  wait "$engine_pid" 2>/dev/null || true

  # 2. The finished job on the history server.
  run="$scratch/$line-history"
  mkdir -p "$run"
  if ! "$engine" --help 2>&1 | grep -Eq '^ +history-server '; then
    echo "FAIL [$line] this ckpt-engine has no history-server subcommand: the finished-job tour did not run" >&2
    status=1
    continue
  fi
  job_json "$run/job.json" "$run/out" 60000 20000
  if ! "$engine" run "$run/job.json" --checkpoint-dir "$run/ckpt" --interval 1000 \
       --archive-dir "$run/archive" >"$run/engine.log" 2>&1; then
    echo "FAIL [$line] the job for the history server failed: $(tail -3 "$run/engine.log")" >&2
    status=1
    continue
  fi
  "$engine" history-server --archive-dir "$run/archive" --port 0 --web-ui "$web/web" \
    --jobmanager-log-url-pattern 'https://logs.example/<jobid>/jobmanager.log' \
    --taskmanager-log-url-pattern 'https://logs.example/<jobid>/<tmid>.log' \
    >"$run/history.log" 2>&1 &
  hs_pid=$!
  pids+=("$hs_pid")
  hs_url=""
  for _ in $(seq 300); do
    hs_url="$(sed -n 's/^History server: \(http:[^ ]*\).*/\1/p' "$run/history.log" | head -1)"
    [[ -n "$hs_url" ]] && break
    kill -0 "$hs_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z "$hs_url" ]]; then
    echo "FAIL [$line] history server did not print its URL: $(tail -3 "$run/history.log")" >&2
    status=1
  elif tour --url "$hs_url" --history --out "$run/shots" >"$run/tour.log" 2>&1; then
    echo "[$line] dashboard tour of the history server: $(grep '^DashboardTour' "$run/tour.log")" >&2
  else
    echo "FAIL [$line] dashboard tour of the history server:"$'\n'"$(cat "$run/tour.log")" >&2
    status=1
  fi
  kill "$hs_pid" 2>/dev/null || true
  wait "$hs_pid" 2>/dev/null || true
done

if [[ -n "${CKPT_DASHBOARD_SHOTS:-}" ]]; then
  for d in "$scratch"/*-live/shots "$scratch"/*-history/shots; do
    [[ -d "$d" ]] || continue
    mkdir -p "$CKPT_DASHBOARD_SHOTS/$(basename "$(dirname "$d")")"
    cp "$d"/*.png "$CKPT_DASHBOARD_SHOTS/$(basename "$(dirname "$d")")/"
  done
fi
if [[ $status -eq 0 ]]; then
  rm -rf "$scratch"
  echo "1 passed, 0 failed"
else
  echo "dashboard tour: scratch kept: $scratch" >&2
  echo "0 passed, 1 failed"
fi
exit $status
