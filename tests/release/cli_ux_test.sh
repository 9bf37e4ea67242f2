#!/usr/bin/env bash
# How both command-line tools answer a user's slips, as a user sees them (stderr, exit status):
#   a mistyped verb or option: exit 2 and one line naming it and the closest known names
#   ("did you mean"), for verbs, verb options, options given before the verb, and ckpt-engine;
#   a word close to nothing: exit 2, the line names it and where the known names are listed;
#   with --format json, the usage error is also a well-formed JSON error object on stdout;
#   pointing a one-snapshot verb at something else (a checkpoint root, a directory without a
#   snapshot, a file of a snapshot): exit 2 and a line naming what was found and what was meant,
#   while an incomplete checkpoint stays a finding (CKPT-M001, exit 1).
# Usage: cli_ux_test.sh CKPT_TOOL CKPT_ENGINE SOURCE_DIR SCRATCH_DIR
set -uo pipefail
tool=$1
engine=$2
src=$3
scratch=$4
fail=0
rm -rf "$scratch"
mkdir -p "$scratch"

# expect WANT_EXIT WANT_STDERR_SUBSTRING COMMAND...
expect() {
  local want_rc=$1 want_err=$2
  shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc != "$want_rc" ]]; then
    echo "FAIL: '$*' exited $rc, want $want_rc; stderr: $err" >&2
    fail=1
  elif [[ $err != *"$want_err"* ]]; then
    echo "FAIL: '$*' stderr lacks \"$want_err\": $err" >&2
    fail=1
  elif (($(wc -l <<<"$err") != 1)); then
    echo "FAIL: '$*' printed more than one line: $err" >&2
    fail=1
  fi
}

expect 2 "ckpt-tool: unknown command 'valdate' (did you mean 'validate'?)" "$tool" valdate snap
expect 2 "unknown command 'dif' (did you mean 'diff'?)" "$tool" dif a b
expect 2 "unknown command 'vaildate' (did you mean 'validate'?)" "$tool" vaildate snap
expect 2 "unknown command 'stat' (did you mean 'stats'?)" "$tool" --format json -o /dev/null stat snap
expect 2 "unknown command 'frobnicate'; 'ckpt-tool --help' lists the commands" "$tool" frobnicate
expect 2 "unknown option '--deeep' for 'validate' (did you mean '--deep'?)" "$tool" validate --deeep snap
expect 2 "unknown option '--agianst' for 'validate' (did you mean '--against'?)" \
  "$tool" validate snap --agianst=job.json
expect 2 "(did you mean '--format'?)" "$tool" --formt json ls snap
expect 2 "unknown option '--zzzzzz' for 'ls'; 'ckpt-tool ls --help' lists the options" \
  "$tool" ls --zzzzzz snap
expect 2 "ckpt-engine: unknown command 'rn' (did you mean 'run'?)" "$engine" rn job.json
expect 2 "unknown option '--checkpoint-dri' for 'run' (did you mean '--checkpoint-dir'?)" \
  "$engine" run --checkpoint-dri x job.json
expect 2 "unknown command 'savepiont' (did you mean 'savepoint'?)" "$engine" savepiont 0123

# A machine-readable format still gets a report it can parse.
out=$("$tool" --format json valdate snap 2>/dev/null)
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["type"]=="error" and "did you mean" in d["message"], d' "$out" ||
  { echo "FAIL: --format json usage error is not a JSON error object: $out" >&2; fail=1; }

# Errors that are not unknown names keep CLI11's own message.
err=$("$tool" --format yaml ls snap 2>&1 >/dev/null)
[[ $? == 2 && $err == *"yaml not in"* && $err != *"did you mean"* ]] ||
  { echo "FAIL: --format yaml: $err" >&2; fail=1; }
# Wrong targets: a root of snapshots, an empty directory, a file of a snapshot.
root="$scratch/root"
mkdir -p "$root/0123456789abcdef0123456789abcdef" "$scratch/empty"
cp -r "$src/fixtures/engine-v1/savepoint-e0e1e2-30e19071c9cd" "$root/0123456789abcdef0123456789abcdef/chk-3"
cp -r "$src/fixtures/engine-v1/savepoint-e0e1e2-30e19071c9cd" "$root/0123456789abcdef0123456789abcdef/chk-12"
mkdir -p "$root/0123456789abcdef0123456789abcdef/chk-13"   # still being written
for verb in validate show files stats dump; do
  expect 2 "'$root' is a checkpoint root, not a snapshot: it holds 3 snapshot(s) of job 0123456789abcdef0123456789abcdef; the newest complete one is 0123456789abcdef0123456789abcdef/chk-12: did you mean '$root/0123456789abcdef0123456789abcdef/chk-12'?" \
    "$tool" "$verb" "$root"
done
expect 2 "'$scratch/empty' holds no snapshot" "$tool" validate "$scratch/empty"
state=$(find "$root/0123456789abcdef0123456789abcdef/chk-3" -name '*.state' | head -1)
expect 2 "'$state' is a file of the snapshot '$root/0123456789abcdef0123456789abcdef/chk-3', not a snapshot: did you mean" \
  "$tool" show "$state"
expect 2 "is a checkpoint root" "$tool" diff "$root" "$root/0123456789abcdef0123456789abcdef/chk-3"
# An incomplete checkpoint is a snapshot with a finding, not a wrong target.
"$tool" validate "$root/0123456789abcdef0123456789abcdef/chk-13" >"$scratch/m001.out" 2>&1
rc=$?
[[ $rc == 1 ]] && grep -q "CKPT-M001" "$scratch/m001.out" ||
  { echo "FAIL: validate of an incomplete chk-13 exited $rc: $(cat "$scratch/m001.out")" >&2; fail=1; }

((fail == 0)) && echo "cli_ux: ok"
exit $fail
