#!/usr/bin/env bash
# Help text and completions of the installed-to-be binaries:
#   - every --help (the root's, each verb's) fits in 80 columns;
#   - each ckpt-tool verb's --help lists the global options it accepts (--format with exactly the
#     values that verb supports, -o, -q), and `ckpt-tool help VERB` prints the same text;
#   - `ckpt-tool help` and `ckpt-engine --version` work; unknown verbs are usage errors (2);
#   - the generated bash completion is shellcheck-clean and completes verbs, flags, the verb's
#     --format values and the operator uids of the snapshot on the line; zsh and fish scripts
#     parse (when those shells are installed).
# Usage: cli_help_test.sh CKPT_TOOL CKPT_ENGINE SOURCE_DIR SCRATCH_DIR
set -euo pipefail
tool=$(readlink -f "$1")
engine=$(readlink -f "$2")
src=$3
scratch=$4
rm -rf "$scratch" && mkdir -p "$scratch/bin"
ln -s "$tool" "$scratch/bin/ckpt-tool"
export PATH="$scratch/bin:$PATH"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

width_ok() {  # $1 label, stdin text
  local text over orphans
  text=$(cat)
  over=$(awk 'length($0) > 80 { printf "  %d: %s\n", length($0), $0 }' <<<"$text")
  [[ -z $over ]] || bad "$1: lines over 80 columns:"$'\n'"$over"
  # Footer prose wrapped twice leaves a word or two alone on a line between two full ones.
  orphans=$(sed -n '/^Examples:/,$p' <<<"$text" |
            awk 'length(prev) >= 70 && prev !~ /\\$/ && NF > 0 && NF <= 2 { o = $0; n = NR }
                 NR == n + 1 && n > 0 && NF > 0 { printf "  %s\n", o; n = 0 }
                 { prev = $0 }')
  [[ -z $orphans ]] || bad "$1: footer prose broken twice (a word or two alone):"$'\n'"$orphans"
}

"$tool" --help | width_ok "ckpt-tool --help"
"$tool" help >/dev/null || bad "ckpt-tool help exited $?"
mapfile -t verbs < <("$tool" completion bash | sed -n "s/^  local verbs='\(.*\)'$/\1/p" | tr ' ' '\n')
((${#verbs[@]} >= 10)) || bad "only ${#verbs[@]} verbs found in the bash completion"
for v in "${verbs[@]}"; do
  help=$("$tool" "$v" --help) || bad "ckpt-tool $v --help exited $?"
  width_ok "ckpt-tool $v --help" <<<"$help"
  [[ $("$tool" help "$v") == "$help" ]] || bad "ckpt-tool help $v differs from ckpt-tool $v --help"
  grep -q -- "-o, --output" <<<"$help" || bad "ckpt-tool $v --help does not list -o"
  grep -q -- "-q, --quiet" <<<"$help" || bad "ckpt-tool $v --help does not list -q"
  case $v in
    validate) want="text, json, junit, github-actions, sarif" ;;
    stats) want="text, json, junit, github-actions" ;;
    help|completion) want="" ;;
    *) want="text, json" ;;
  esac
  if [[ -n $want ]]; then
    line=$(grep -A1 -- "--format FORMAT" <<<"$help" | tr '\n' ' ' | tr -s ' ')
    grep -qF "Output format: $want." <<<"$line" || bad "ckpt-tool $v --help: --format should list '$want': $line"
  fi
done
set +e
"$tool" help no-such-verb >/dev/null 2>&1; rc=$?
set -e
((rc == 2)) || bad "ckpt-tool help no-such-verb exited $rc, want 2"

"$engine" --help | width_ok "ckpt-engine --help"
for c in run kinds help; do "$engine" "$c" --help | width_ok "ckpt-engine $c --help"; done
[[ $("$engine" --version) =~ ^ckpt-engine\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || bad "ckpt-engine --version: $("$engine" --version)"
[[ "$("$engine" help run)" == "$("$engine" run --help)" ]] || bad "ckpt-engine help run differs from run --help"

# Completions.
"$tool" completion bash >"$scratch/ckpt-tool.bash"
"$tool" completion zsh >"$scratch/_ckpt-tool"
"$tool" completion fish >"$scratch/ckpt-tool.fish"
shellcheck -s bash "$scratch/ckpt-tool.bash" || bad "shellcheck reports problems in the bash completion"
if command -v zsh >/dev/null; then zsh -n "$scratch/_ckpt-tool" || bad "zsh -n"; fi
if command -v fish >/dev/null; then fish --no-execute "$scratch/ckpt-tool.fish" || bad "fish --no-execute"; fi

complete_line() {  # words... ; prints the candidates, one a line
  # shellcheck disable=SC1090
  source "$scratch/ckpt-tool.bash"
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _ckpt_tool
  printf '%s\n' "${COMPREPLY[@]}"
}
expect() {  # label, candidates (stdin), words that must be among them
  local label=$1 got
  shift
  got=$(cat)
  for w in "$@"; do grep -qxF -- "$w" <<<"$got" || bad "completion of '$label' lacks '$w' (got: $(tr '\n' ' ' <<<"$got"))"; done
}
complete_line ckpt-tool val | expect "ckpt-tool val" validate
complete_line ckpt-tool "" | expect "ckpt-tool <tab>" ls show dump validate help --format
complete_line ckpt-tool validate --a | expect "validate --a" --against --allow-non-restored-state
complete_line ckpt-tool validate sp --format "" | expect "validate --format" text json junit github-actions sarif
got=$(complete_line ckpt-tool ls sp --format "")
grep -qx junit <<<"$got" && bad "ls --format offers junit, which ls refuses"
complete_line ckpt-tool help va | expect "help va" validate
snap="$src/fixtures/engine-v1/savepoint-e0e1e2-30e19071c9cd"
complete_line ckpt-tool dump "$snap" --operator "" | expect "dump SNAP --operator" numbers sum sums
complete_line ckpt-tool remap "$snap" --drop s | expect "remap SNAP --drop s" sum sums
# A job spec is a file: --against completes file names (of both verbs that take one).
for verb in validate remap; do
  complete_line ckpt-tool "$verb" "$snap" --against "$src/fixtures/engine-v1/keyed_sum.job" |
    expect "$verb SNAP --against FILE" "$src/fixtures/engine-v1/keyed_sum.job.json"
done

((fail == 0)) && echo "ok: help fits 80 columns, lists global options; completions work"
exit "$fail"
