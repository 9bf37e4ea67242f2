#!/usr/bin/env bash
# How both command-line tools answer a user's slips, as a user sees them (stderr, exit status):
#   a mistyped verb or option: exit 2 and one line naming it and the closest known names
#   ("did you mean"), for verbs, verb options, options given before the verb, and ckpt-engine;
#   a word close to nothing: exit 2, the line names it and where the known names are listed;
#   with --format json, the usage error is also a well-formed JSON error object on stdout;
#   pointing a one-snapshot verb at something else (a checkpoint root, a directory without a
#   snapshot, a file of a snapshot): exit 2 and a line naming what was found and what was meant,
#   while an incomplete checkpoint stays a finding (CKPT-M001, exit 1);
#   colour (--color, NO_COLOR): ANSI escapes in text output and errors with --color=always or on
#   a terminal, none with --color=never, NO_COLOR, in a pipe or in JSON; the same for
#   ckpt-engine's status words and errors, with --color before or after the command;
#   sizes: text shows KiB/B, --bytes the exact counts JSON has;
#   progress: one updating line on stderr when it is a terminal (fitted to COLUMNS, a long path
#   elided in its middle), nothing in a pipe, with --format json or -q.
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

# tty_run STREAM COMMAND...: runs COMMAND with STREAM (stdout or stderr) on a new pseudo-terminal
# (80 columns) and the other stream on /dev/null; prints what reached the terminal.
tty_run() {
  python3 - "$@" <<'PY'
import fcntl, os, struct, subprocess, sys, termios
stream, cmd = sys.argv[1], sys.argv[2:]
master, slave = os.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
attrs = termios.tcgetattr(slave)
attrs[1] &= ~termios.ONLCR  # keep "\n" as the tool wrote it
termios.tcsetattr(slave, termios.TCSANOW, attrs)
tty = {"stdout": slave} if stream == "stdout" else {"stderr": slave}
other = {"stderr": subprocess.DEVNULL} if stream == "stdout" else {"stdout": subprocess.DEVNULL}
p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, **tty, **other)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the child closed the terminal
        break
    if not chunk:
        break
    out += chunk
p.wait()
sys.stdout.buffer.write(out)
PY
}
esc=$'\e['
has_esc() { [[ $1 == *"$esc"* ]]; }
sp="$src/fixtures/engine-v1/savepoint-e0e1e2-30e19071c9cd"

# Colour: forced, refused, NO_COLOR, a terminal, a pipe, JSON.
out=$("$tool" --color=always validate "$sp" 2>/dev/null)
has_esc "$out" && [[ $out == *$'verdict: \e[32mrestores\e[0m'* ]] ||
  { echo "FAIL: --color=always validate has no green verdict: $out" >&2; fail=1; }
err=$("$tool" --color=always show "$scratch/none" 2>&1 >/dev/null)
[[ $err == $'\e[31m'*"ckpt-tool: "*"$scratch/none"* ]] ||
  { echo "FAIL: --color=always error is not red: $err" >&2; fail=1; }
out=$("$tool" --color=never validate "$sp" 2>&1)
! has_esc "$out" || { echo "FAIL: --color=never printed escapes: $out" >&2; fail=1; }
out=$(unset NO_COLOR; tty_run stdout "$tool" validate "$sp")
has_esc "$out" || { echo "FAIL: --color=auto on a terminal is not coloured: $out" >&2; fail=1; }
out=$(NO_COLOR=1 tty_run stdout "$tool" --color=auto validate "$sp")
[[ $out == *"restore"* ]] && ! has_esc "$out" ||
  { echo "FAIL: NO_COLOR=1 on a terminal still coloured (or no output): $out" >&2; fail=1; }
out=$(NO_COLOR=1 tty_run stdout "$tool" --color=always validate "$sp")
has_esc "$out" || { echo "FAIL: --color=always lost to NO_COLOR: $out" >&2; fail=1; }
out=$(env -u NO_COLOR "$tool" validate "$sp" 2>&1 | cat)
[[ $out == *"restore"* ]] && ! has_esc "$out" ||
  { echo "FAIL: piped output is coloured (or empty): $out" >&2; fail=1; }
err=$(env -u NO_COLOR "$tool" show "$scratch/none" 2>&1 >/dev/null | cat)
! has_esc "$err" || { echo "FAIL: piped error is coloured: $err" >&2; fail=1; }
for fmt in json junit github-actions sarif; do
  # A clean validate gives github-actions nothing to annotate: an error report instead.
  target=$sp
  [[ $fmt == github-actions ]] && target="$scratch/none"
  out=$("$tool" --color=always --format "$fmt" validate "$target" 2>/dev/null)
  [[ -n $out ]] && ! has_esc "$out" ||
    { echo "FAIL: --color=always coloured --format $fmt (or no output): $out" >&2; fail=1; }
done

# ckpt-engine's colour: a bounded word count (finishes at once) and a job spec that is missing.
sed -e "s|examples/data/words.txt|$src/examples/data/words.txt|" \
    -e "s|out/examples/word-count|$scratch/engine-out|" "$src/examples/word_count.json" \
    >"$scratch/word_count.json"
job="$scratch/word_count.json"
out=$("$engine" --color=always run "$job" 2>/dev/null)
[[ $out == *$'Job finished: \e[32mFINISHED\e[0m;'* ]] ||
  { echo "FAIL: ckpt-engine --color=always run has no green FINISHED: $out" >&2; fail=1; }
err=$("$engine" run --color=always "$scratch/none.json" 2>&1 >/dev/null)
[[ $err == $'\e[31m'"ckpt-engine run: "*"$scratch/none.json"* ]] ||
  { echo "FAIL: ckpt-engine run --color=always error is not red: $err" >&2; fail=1; }
out=$("$engine" --color=never run "$job" 2>&1)
[[ $out == *"FINISHED"* ]] && ! has_esc "$out" ||
  { echo "FAIL: ckpt-engine --color=never printed escapes (or no status): $out" >&2; fail=1; }
err=$("$engine" --color=never run "$scratch/none.json" 2>&1 >/dev/null)
[[ -n $err ]] && ! has_esc "$err" ||
  { echo "FAIL: ckpt-engine --color=never error has escapes: $err" >&2; fail=1; }
out=$(unset NO_COLOR; tty_run stdout "$engine" run "$job")
[[ $out == *$'\e[32mFINISHED'* ]] ||
  { echo "FAIL: ckpt-engine on a terminal is not coloured: $out" >&2; fail=1; }
out=$(NO_COLOR=1 tty_run stdout "$engine" --color=auto run "$job")
[[ $out == *"FINISHED"* ]] && ! has_esc "$out" ||
  { echo "FAIL: ckpt-engine with NO_COLOR=1 on a terminal still coloured (or no output): $out" >&2; fail=1; }
err=$(NO_COLOR=1 tty_run stderr "$engine" run "$scratch/none.json")
[[ $err == *"ckpt-engine run: "* ]] && ! has_esc "$err" ||
  { echo "FAIL: ckpt-engine error with NO_COLOR=1 on a terminal still coloured: $err" >&2; fail=1; }
out=$(NO_COLOR=1 tty_run stdout "$engine" --color=always run "$job")
[[ $out == *$'\e[32mFINISHED'* ]] ||
  { echo "FAIL: ckpt-engine --color=always lost to NO_COLOR: $out" >&2; fail=1; }
out=$(env -u NO_COLOR "$engine" run "$job" 2>&1 | cat)
[[ $out == *"FINISHED"* ]] && ! has_esc "$out" ||
  { echo "FAIL: ckpt-engine piped output is coloured (or empty): $out" >&2; fail=1; }
err=$(env -u NO_COLOR "$engine" run "$scratch/none.json" 2>&1 >/dev/null | cat)
[[ -n $err ]] && ! has_esc "$err" ||
  { echo "FAIL: ckpt-engine piped error is coloured: $err" >&2; fail=1; }

# Sizes: human units in text, exact counts with --bytes, the same exact counts as JSON.
out=$("$tool" show "$sp")
[[ $out == *"_metadata           2.2 KiB besides 0 B of inline state"* ]] ||
  { echo "FAIL: show does not give human sizes: $out" >&2; fail=1; }
out=$("$tool" --bytes show "$sp")
[[ $out != *KiB* && $out =~ _metadata\ +([0-9]+)\ B\ besides ]] ||
  { echo "FAIL: show --bytes is not exact: $out" >&2; fail=1; }
json=$("$tool" --format json files "$sp")
json_total=$(python3 -c 'import json,sys; print(sum(json.loads(l)["size_bytes"] for l in sys.stdin if "size_bytes" in l))' <<<"$json")
text=$("$tool" files "$sp" --bytes | tail -1)
[[ $text == *", $json_total B" ]] ||
  { echo "FAIL: files --bytes total '$text' is not the JSON's $json_total bytes" >&2; fail=1; }
text=$("$tool" files "$sp" | tail -1)
[[ $text =~ ^[0-9]+\ file\(s\),\ [0-9.]+\ (B|KiB|MiB)$ ]] ||
  { echo "FAIL: files text total is not a human size: $text" >&2; fail=1; }
out=$("$tool" stats "$sp" --bytes)
[[ $out != *KiB* ]] || { echo "FAIL: stats --bytes still shows KiB: $out" >&2; fail=1; }

# Progress: on a terminal, one line redrawn with "\r" that fits COLUMNS; never in a pipe.
deep=(validate --deep "$sp")
out=$(unset COLUMNS; tty_run stderr "$tool" "${deep[@]}")
[[ $out == $'\r['*'%'*' B/'*'KiB'* ]] ||
  { echo "FAIL: validate --deep on a terminal shows no progress line: $(cat -v <<<"$out")" >&2; fail=1; }
[[ $out != *$'\n'* ]] || { echo "FAIL: progress is not one line: $(cat -v <<<"$out")" >&2; fail=1; }
out=$(COLUMNS=70 tty_run stderr "$tool" "${deep[@]}")
python3 - "$out" <<'PY' || fail=1
import sys
drawn = [s.rstrip(" ") for s in sys.argv[1].split("\r") if s.strip(" ")]
too_wide = [s for s in drawn if len(s) > 69]
if not drawn or too_wide or not any("…" in s for s in drawn):
    sys.exit("FAIL: progress at COLUMNS=70 is not fitted with a middle-elided path: %r" % drawn)
PY
err=$("$tool" "${deep[@]}" 2>&1 >/dev/null | cat)
[[ -z $err ]] || { echo "FAIL: progress printed into a pipe: $(cat -v <<<"$err")" >&2; fail=1; }
for quiet in "--format json" "-q"; do
  # shellcheck disable=SC2086
  out=$(tty_run stderr "$tool" $quiet "${deep[@]}")
  [[ -z $out ]] || { echo "FAIL: progress shown with $quiet: $(cat -v <<<"$out")" >&2; fail=1; }
done

# The flags are documented where users look: --help of the tool and of each verb, man pages,
# completion.
for v in "" ls show files stats diff history prune relocate remap validate; do
  # shellcheck disable=SC2086
  help=$("$tool" $v --help)
  [[ $help == *"--color"*"auto"*"always"*"never"* && $help == *"--bytes"* ]] ||
    { echo "FAIL: 'ckpt-tool $v --help' does not list --color and --bytes" >&2; fail=1; }
done
man=$("$tool" help --man validate)
[[ $man == *'\-\-color'* && $man == *'\-\-bytes'* ]] ||
  { echo "FAIL: the validate man page does not list --color and --bytes" >&2; fail=1; }
for c in "" run kinds list savepoint stop; do
  # shellcheck disable=SC2086
  help=$("$engine" $c --help)
  [[ $help == *"--color"*"auto"*"always"*"never"* ]] ||
    { echo "FAIL: 'ckpt-engine $c --help' does not list --color" >&2; fail=1; }
done
for c in "" run; do
  # shellcheck disable=SC2086
  man=$("$engine" help --man $c)
  [[ $man == *'\-\-color'* ]] || { echo "FAIL: the ckpt-engine $c man page does not list --color" >&2; fail=1; }
done
completion=$("$tool" completion bash)
[[ $completion == *"--color) "*"auto always never"* && $completion == *"--bytes"* ]] ||
  { echo "FAIL: bash completion lacks --color/--bytes" >&2; fail=1; }

((fail == 0)) && echo "cli_ux: ok"
exit $fail
