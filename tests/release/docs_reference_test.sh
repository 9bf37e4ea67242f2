#!/usr/bin/env bash
# The user guide cannot drift from the code:
#   - every validate rule ID of ops/src/validate/validate_rules.cpp has a "### CKPT-XXXX"
#     troubleshooting entry (docs/troubleshooting.md);
#   - every operator kind of the built-in catalog (`ckpt-engine kinds`) has a "### `kind`" section
#     in docs/job-spec.md, and every parameter it accepts (`ckpt-engine kinds --params`, answered by
#     the kind's own factory) a "| `param` |" row in that section;
#   - every field of the job-spec messages (format/proto/ckpt/format/v1/job_spec.proto) has a
#     "| `field` |" row in docs/job-spec.md.
# Usage: docs_reference_test.sh SOURCE_DIR CKPT_ENGINE
set -euo pipefail
src=$1
engine=$2
fail=0
problem() { echo "MISSING: $*" >&2; fail=1; }

# 1. Validate rules -> troubleshooting entries.
mapfile -t rules < <(grep -oE '\{"CKPT-[A-Z][0-9]{3}"' "$src/ops/src/validate/validate_rules.cpp" |
                     tr -d '{"' | sort -u)
((${#rules[@]} >= 30)) || { echo "only ${#rules[@]} rule IDs found in validate_rules.cpp" >&2; exit 1; }
for id in "${rules[@]}"; do
  grep -qE "^### $id\$" "$src/docs/troubleshooting.md" ||
    problem "$id has no '### $id' entry in docs/troubleshooting.md"
done

# 2. Operator kinds and their parameters -> job-spec reference sections.
ref="$src/docs/job-spec.md"
# The table's first column, without its heading and description continuation lines.
mapfile -t kinds < <("$engine" kinds | awk 'NR > 1 && $0 !~ /^ / { print $1 }')
((${#kinds[@]} >= 10)) || { echo "ckpt-engine kinds listed only ${#kinds[@]} kinds" >&2; exit 1; }
section() {  # the lines of docs/job-spec.md from "### `kind`" to the next heading
  awk -v h="### \`$1\`" '$0 == h {on = 1; next} on && /^#/ {exit} on {print}' "$ref"
}
for k in "${kinds[@]}"; do
  grep -qxF "### \`$k\`" "$ref" || problem "operator kind '$k' has no '### \`$k\`' section in docs/job-spec.md"
done
nparams=0
while IFS=$'\t' read -r k p; do
  nparams=$((nparams + 1))
  section "$k" | grep -qF "| \`$p\` |" ||
    problem "parameter '$p' of kind '$k' has no '| \`$p\` |' row in its docs/job-spec.md section"
done < <("$engine" kinds --params)
((nparams >= 30)) || { echo "ckpt-engine kinds --params listed only $nparams parameters" >&2; exit 1; }

# 3. Job-spec fields -> rows.
proto="$src/format/proto/ckpt/format/v1/job_spec.proto"
mapfile -t fields < <(awk '/^message /{m=1} m && /^}/{m=0}
  m && /^ *(repeated +)?[A-Za-z0-9_.]+ +[a-z_0-9]+ *= *[0-9]+;/ {
    sub(/^ *(repeated +)?[A-Za-z0-9_.]+ +/, ""); sub(/ *=.*/, ""); print }' "$proto" | sort -u)
((${#fields[@]} >= 20)) || { echo "only ${#fields[@]} fields parsed from job_spec.proto" >&2; exit 1; }
for f in "${fields[@]}"; do
  grep -qF "| \`$f\` |" "$ref" || problem "job-spec field '$f' has no '| \`$f\` |' row in docs/job-spec.md"
done

if ((fail)); then
  echo "docs are missing entries (see above): add them so users can find them" >&2
  exit 1
fi
echo "ok: ${#rules[@]} rule IDs, ${#kinds[@]} kinds, $nparams parameters, ${#fields[@]} spec fields documented"
