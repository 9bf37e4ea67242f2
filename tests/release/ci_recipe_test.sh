#!/usr/bin/env bash
# Runs the CI recipe of docs/ci.md as written: the commands between "# ckpt-ci-begin NAME" and
# "# ckpt-ci-end NAME" of the GitHub Actions and GitLab jobs, against the engine-written fixture
# savepoint (fixtures/engine-v1), with ckpt-tool first on PATH.
#   compatible job     -> every block exits 0, validate.xml is a JUnit report without failures
#   uid of "sum" changed -> every block exits 1, the JUnit report has a <failure> for CKPT-A001 and
#                         the GitHub output an ::error annotation for it
# Usage: ci_recipe_test.sh SOURCE_DIR CKPT_TOOL SCRATCH_DIR
set -euo pipefail
src=$1
tool=$2
scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch/bin" "$scratch/savepoints" "$scratch/jobs"
ln -s "$(readlink -f "$tool")" "$scratch/bin/ckpt-tool"
cp -r "$src/fixtures/engine-v1/savepoint-e0e1e2-30e19071c9cd" "$scratch/savepoints/latest"
cp "$src/fixtures/engine-v1/keyed_sum.job.json" "$scratch/jobs/compatible.json"
sed 's/"uid": "sum"/"uid": "sum-v2"/' "$src/fixtures/engine-v1/keyed_sum.job.json" \
    > "$scratch/jobs/breaking.json"
grep -q '"sum-v2"' "$scratch/jobs/breaking.json"

extract() {  # the commands of block $1 (YAML list markers of GitLab's script: removed)
  awk -v b="# ckpt-ci-begin $1" -v e="# ckpt-ci-end $1" '
    { line = $0; sub(/^ +/, "", line) }
    line == b { on = 1; next }
    line == e { on = 0 }
    on { sub(/^- /, "", line); print line }' "$src/docs/ci.md"
}

fail=0
for block in github gitlab; do
  script=$(extract "$block")
  [[ -n $script ]] || { echo "docs/ci.md has no '# ckpt-ci-begin $block' block" >&2; exit 1; }
  grep -q "ckpt-tool validate" <<<"$script" || { echo "$block block runs no validate" >&2; exit 1; }
  for job in compatible breaking; do
    run="$scratch/run-$block-$job"
    mkdir -p "$run"
    ln -s ../savepoints "$run/savepoints"
    ln -s ../jobs "$run/jobs"
    set +e
    (cd "$run" && PATH="$scratch/bin:$PATH" SAVEPOINT=savepoints/latest JOB="jobs/$job.json" \
        bash -eo pipefail -c "$script") >"$run/stdout" 2>"$run/stderr"
    rc=$?
    set -e
    want=0
    [[ $job == breaking ]] && want=1
    if ((rc != want)); then
      echo "FAIL: $block block with the $job job exited $rc, want $want" >&2
      sed 's/^/  | /' "$run/stdout" "$run/stderr" >&2
      fail=1
      continue
    fi
    if [[ $block == gitlab ]]; then
      [[ -s $run/validate.xml ]] || { echo "FAIL: gitlab/$job wrote no validate.xml" >&2; fail=1; continue; }
      xmllint --noout "$run/validate.xml" ||
        { echo "FAIL: gitlab/$job validate.xml is not XML" >&2; fail=1; }
      grep -q "<testsuite" "$run/validate.xml" || { echo "FAIL: gitlab/$job: no <testsuite>" >&2; fail=1; }
      if [[ $job == breaking ]]; then
        grep -q "<failure" "$run/validate.xml" && grep -q "CKPT-A001" "$run/validate.xml" ||
          { echo "FAIL: gitlab/breaking: no <failure> for CKPT-A001" >&2; fail=1; }
      else
        ! grep -q "<failure" "$run/validate.xml" || { echo "FAIL: gitlab/compatible has failures" >&2; fail=1; }
      fi
    else
      grep -q "^ckpt-tool [0-9]" "$run/stdout" || { echo "FAIL: github/$job: no version line" >&2; fail=1; }
      if [[ $job == breaking ]]; then
        grep -q "^::error .*CKPT-A001" "$run/stdout" ||
          { echo "FAIL: github/breaking: no ::error annotation for CKPT-A001" >&2; sed 's/^/  | /' "$run/stdout" >&2; fail=1; }
      else
        ! grep -q "^::error" "$run/stdout" || { echo "FAIL: github/compatible has errors" >&2; fail=1; }
      fi
    fi
  done
done
((fail == 0)) && echo "ok: the CI recipe passes a compatible job and fails a breaking one"
exit "$fail"
