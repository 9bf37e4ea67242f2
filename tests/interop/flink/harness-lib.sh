# Sourced by the run-*.sh scripts of the Flink interop harness: what each does before and while
# building the harness, so the three say it once.
#   interop_init BINARY SCRATCH_PARENT NAME [COMMAND...]
#       fails unless BINARY is executable and java, mvn and each COMMAND are on the PATH; sets
#       `binary` (absolute), `parent` and `repo` (absolute; the Maven local repository
#       $CKPT_MAVEN_REPO, default $HOME/.m2/repository), `scratch` (a new NAME.XXXXXX under
#       the parent), `profiles` ($CKPT_INTEROP_PROFILES, default: flink-1.20 flink-2) and
#       `jvm_opts` (jvm-opts.txt).
#   build_harness PROFILE
#       `mvn package` of the harness for a Maven profile; sets `line` (1.20 or 2) and `build`
#       (its target directory); fails naming Maven Central when the failure is a network one.
#   harness_cp: the classpath of the last build_harness.
# `fail MESSAGE` prints a failure and the "0 passed, 1 failed" line ctest reads, and exits 1.
# Expects `here` (the harness directory) to be set by the caller.

fail() { echo "FAIL: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

interop_init() {
  local exe="$1" name="$3"
  parent="$2"
  shift 3
  [[ -x "$exe" ]] || fail "$(basename "$exe") not found or not executable: $exe"
  binary="$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")"
  command -v java >/dev/null || fail "java not found: run scripts/install-deps.sh (openjdk-17-jdk-headless)"
  command -v mvn >/dev/null || fail "mvn not found: run scripts/install-deps.sh (maven)"
  local c
  for c in "$@"; do command -v "$c" >/dev/null || fail "$c not found"; done
  repo="${CKPT_MAVEN_REPO:-$HOME/.m2/repository}"
  # shellcheck disable=SC2206
  profiles=(${CKPT_INTEROP_PROFILES:-flink-1.20 flink-2})
  mkdir -p "$parent" "$repo"
  parent="$(cd "$parent" && pwd)"  # Maven resolves relative paths against the pom's directory
  repo="$(cd "$repo" && pwd)"
  scratch="$(mktemp -d "$parent/$name.XXXXXX")"
  mapfile -t jvm_opts < "$here/jvm-opts.txt"
}

build_harness() {
  local profile="$1"
  line="${profile#flink-}"
  local log="$scratch/mvn-$line.log"
  # CKPT_MAVEN_ARGS: extra Maven arguments, e.g. -o to use only the local repository.
  # shellcheck disable=SC2086
  if ! mvn -B -q ${CKPT_MAVEN_ARGS:-} -f "$here/pom.xml" -Dmaven.repo.local="$repo" \
       -Dharness.build.root="$parent/maven-build" -P"$profile" package >"$log" 2>&1; then
    if grep -Eqi "could not (transfer|resolve)|unknown ?host|connection (refused|timed out)|network is unreachable|failed to read artifact descriptor|offline mode|no route to host|temporary failure in name resolution" "$log"; then
      grep -Ei "could not|unknown ?host|connection|unreachable" "$log" | head -5 >&2
      fail "Maven Central cannot be reached and the local repository $repo lacks the harness's artifacts (profile $profile); see $log"
    fi
    tail -40 "$log" >&2
    fail "Maven build of the harness failed (profile $profile); see $log"
  fi
  build="$parent/maven-build/target-$line"
}

harness_cp() { echo "$build/classes:$(cat "$build/classpath.txt")"; }
