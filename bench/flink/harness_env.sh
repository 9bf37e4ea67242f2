# shellcheck shell=bash disable=SC2154,SC2034  # root, work, me come from the sourcing script; it uses cp, jvm_opts
# Sourced by the side-by-side scripts of bench/flink/: builds the Maven Flink harness
# (tests/interop/flink) unless a build root already holds an up-to-date one, and sets
#   profile (FLINK_PROFILE: flink-2 | flink-1.20, default flink-2), build (its target directory),
#   cp (classes + dependency classpath), jvm_opts (array, tests/interop/flink/jvm-opts.txt).
# Needs: root (the repository), work (a scratch directory), me (the script's name for errors).
# Env: CKPT_MAVEN_REPO (Maven local repository, default ~/.m2/repository), CKPT_HARNESS_BUILD (a
# harness build root to reuse; default a fresh one under $work).
for c in java mvn python3 curl /usr/bin/time; do
  command -v "$c" > /dev/null || { echo "$me: $c not found (scripts/install-deps.sh)" >&2; exit 2; }
done
repo="${CKPT_MAVEN_REPO:-$HOME/.m2/repository}"
profile="${FLINK_PROFILE:-flink-2}"
h="$root/tests/interop/flink"
broot="${CKPT_HARNESS_BUILD:-$work/build}"
build="$broot/target-${profile#flink-}"
mkdir -p "$repo"
# Built again when a harness source is newer than the last build here (e.g. new Bench* classes);
# Maven leaves an unchanged classpath.txt untouched, so the time of the build is a stamp of ours.
stamp="$build/.built-by-bench"
if [[ ! -f "$stamp" || -n "$(find "$h/src" "$h/pom.xml" -newer "$stamp" -print -quit)" ]]; then
  echo "building the Flink harness ($profile) ..." >&2
  mvn -B -q -f "$h/pom.xml" -Dmaven.repo.local="$repo" -Dharness.build.root="$broot" -P"$profile" package \
    > "$work/mvn.log" 2>&1 || { tail -30 "$work/mvn.log" >&2; echo "$me: Maven build failed" >&2; exit 1; }
  touch "$stamp"
fi
mapfile -t jvm_opts < "$h/jvm-opts.txt"
cp="$build/classes:$(cat "$build/classpath.txt")"
