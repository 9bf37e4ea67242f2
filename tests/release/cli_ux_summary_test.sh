#!/usr/bin/env bash
# What ckpt-tool's summaries say, as a user reads them, against the engine-written fixture:
#   validate (text) prints the findings that fail the check and a "verdict:" line, counts the
#   others with a hint, and the capability table only with --capabilities; JSON and SARIF
#   always carry the capabilities; exit codes stay 0 / 1;
#   remap whose mapping matches no operator: exit 1, one stderr line naming the request, nothing
#   written; dry runs of remap, relocate and rescale say "would", never that they wrote;
#   prune prints counts and sizes per category, the per-file lists only with --verbose;
#   --format github-actions points findings of validate --against at the job spec's file and
#   the line and column of the operator.
# Usage: cli_ux_summary_test.sh CKPT_TOOL SOURCE_DIR SCRATCH_DIR
set -uo pipefail
tool=$1
src=$2
scratch=$3
fail=0
rm -rf "$scratch"
mkdir -p "$scratch/jobs"
cd "$scratch" || exit 1
problem() { echo "FAIL: $*" >&2; fail=1; }

cp -r "$src/fixtures/engine-v1/savepoint-e0e1e2-30e19071c9cd" sp
cp "$src/fixtures/engine-v1/keyed_sum.job.json" jobs/compatible.json
sed 's/"uid": "sum"/"uid": "sum-v2"/' "$src/fixtures/engine-v1/keyed_sum.job.json" > jobs/breaking.json
grep -q '"sum-v2"' jobs/breaking.json || { echo "could not make jobs/breaking.json" >&2; exit 1; }

# run NAME COMMAND...: stdout to NAME.out, stderr to NAME.err, exit status to $rc.
run() {
  local name=$1
  shift
  "$@" >"$name.out" 2>"$name.err"
  rc=$?
}
has() { grep -qF -- "$2" "$1.out" || problem "$1: stdout lacks \"$2\": $(cat "$1.out")"; }
lacks() { ! grep -qF -- "$2" "$1.out" || problem "$1: stdout has \"$2\": $(cat "$1.out")"; }
exits() { [[ $rc == "$2" ]] || problem "$1 exited $rc, want $2; stderr: $(cat "$1.err")"; }

# --- validate: verdict and blocking reasons by default, the table on request.
run v_default "$tool" validate sp --against jobs/breaking.json
exits v_default 1
has v_default "error CKPT-A001: state of operator sum"
has v_default "verdict: restore blocked by CKPT-A001"
has v_default "1 not shown (--verbose lists every finding)"
lacks v_default "info CKPT-A008"
lacks v_default "Supported operations"
[[ $(tail -1 v_default.out) == "verdict: restore blocked by CKPT-A001" ]] ||
  problem "v_default: the verdict is not the last line: $(tail -1 v_default.out)"

run v_caps "$tool" validate sp --against jobs/breaking.json --capabilities
exits v_caps 1
has v_caps "Supported operations for this savepoint"
has v_caps "verdict: restore blocked by CKPT-A001"

run v_verbose "$tool" validate sp --against jobs/breaking.json --verbose
exits v_verbose 1
has v_verbose "info CKPT-A008: operator 'sum' starts with empty state"
lacks v_verbose "not shown"

run v_ok "$tool" validate sp
exits v_ok 0
has v_ok "verdict: restores"
lacks v_ok "Supported operations"

run v_old "$tool" validate sp --no-capabilities
exits v_old 0
lacks v_old "Supported operations"

# JSON and SARIF carry every capability row whatever the text flags say.
rows=$(grep -c '^[a-zA-Z]' < <(sed -n '/^OPERATION/,$p' v_caps.out | tail -n +2))
((rows >= 5)) || problem "v_caps: only $rows capability rows"
for flags in "" "--no-capabilities"; do
  # shellcheck disable=SC2086
  run v_json "$tool" validate sp --against jobs/breaking.json --format json $flags
  exits v_json 1
  n=$(grep -c '"type":"capability"' v_json.out)
  [[ $n == "$rows" ]] || problem "validate --format json $flags: $n capability lines, want $rows"
done
run v_sarif "$tool" validate sp --against jobs/breaking.json --format sarif
exits v_sarif 1
python3 - v_sarif.out "$rows" <<'EOF' || problem "validate --format sarif: capabilities missing"
import json, sys
doc = json.load(open(sys.argv[1]))
caps = doc["runs"][0]["invocations"][0]["properties"]["capabilities"]
assert len(caps) == int(sys.argv[2]), caps
restore = [c for c in caps if c["operation"] == "restore"][0]
assert restore["supported"] is False and restore["blockedBy"] == ["CKPT-A001"], restore
EOF

# --- github-actions: findings of the restore rules point at the spec and the operator's line.
run v_gh "$tool" validate sp --against jobs/breaking.json --format github-actions
exits v_gh 1
line=$(grep -n '"id": "sum"' jobs/breaking.json | cut -d: -f1)
col=$(awk -v n="$line" 'NR == n { print index($0, "{") }' jobs/breaking.json)
grep -q "^::notice file=jobs/breaking.json,line=$line,col=$col,title=CKPT-A008::" v_gh.out ||
  problem "github-actions: no CKPT-A008 annotation at jobs/breaking.json:$line:$col: $(cat v_gh.out)"
# The old operator has no line in the new spec: the annotation names the file alone.
grep -q "^::error file=jobs/breaking.json,title=CKPT-A001::" v_gh.out ||
  problem "github-actions: CKPT-A001 not annotated on jobs/breaking.json: $(cat v_gh.out)"

# --- remap whose mapping matches nothing: exit 1, stderr names it, nothing written.
run r_none "$tool" remap sp --to out --map nothing=here
exits r_none 1
[[ $(cat r_none.err) == "ckpt-tool: remap: nothing written: --map nothing=here matched no operator of sp" ]] ||
  problem "remap --map nothing=here: stderr: $(cat r_none.err)"
[[ ! -e out ]] || problem "remap --map nothing=here created out/"
has r_none "nothing written (the output would have"
run r_none_dry "$tool" remap sp --to out --map nothing=here --dry-run
exits r_none_dry 1
has r_none_dry "would write nothing: 1 request(s) matched no operator"
grep -qF -- "--map nothing=here matched no operator" r_none_dry.err ||
  problem "remap --dry-run with an unmatched --map: stderr: $(cat r_none_dry.err)"

# --- dry runs say what they would do, never that they wrote.
run d_remap "$tool" remap sp --to out --map sums=sums-v2 --dry-run
exits d_remap 0
has d_remap "would write 4 files"
run d_relocate "$tool" relocate sp --to out --dry-run
exits d_relocate 0
has d_relocate "would write 4 files"
run d_rescale "$tool" rescale-max-parallelism sp --max-parallelism 256 --to out --dry-run
exits d_rescale 0
has d_rescale "would rescale 3 operator(s)"
for d in d_remap d_relocate d_rescale; do
  ! grep -qiwE 'wrote|rescaled,|remapped ' "$d.out" || problem "$d: a dry run says it wrote: $(cat "$d.out")"
  lacks "$d" "_metadata written last"
done
[[ ! -e out ]] || problem "a dry run created out/"
run w_remap "$tool" remap sp --to out --map sums=sums-v2
exits w_remap 0
has w_remap "output: 4 files"
has w_remap "_metadata written last"

# --- prune: counts and sizes per category; the file lists only with --verbose.
cp -r "$src/fixtures/engine-v1/checkpoints" root
run p_default "$tool" prune root --older-than 0s
exits p_default 0
has p_default "snapshots: 1 to delete (subsumed), 1 kept (1 retained)"
has p_default "subsumed checkpoints      5"
has p_default "would free 5 files"
has p_default "(--verbose lists every step and every kept file)"
lacks p_default "chk-4/_metadata"
lacks p_default "referenced by chk-5"
run p_verbose "$tool" prune root --older-than 0s --verbose
exits p_verbose 0
has p_verbose "would free 5 files"
has p_verbose "chk-4/_metadata"
has p_verbose "referenced by chk-5"
run p_yes "$tool" prune root --older-than 0s --yes
exits p_yes 0
has p_yes "snapshots: 1 deleted (subsumed)"
has p_yes "freed 5 files"
lacks p_yes "would"

((fail == 0)) && echo "cli_ux_summary: ok"
exit $fail
