#!/usr/bin/env python3
"""Runs the commands the user docs show and checks that the tools print what the docs say
(README.md, examples/README.md, docs/*.md, docs/json/README.md).

Convention (docs/README.md, "Commands in the docs"):
  ```console                 a block that is run: each "$ CMD" line is a command (a line ending
                             in "\\" continues it, and so do lines starting "> "); the lines
                             after it up to the next "$ " line are its expected output (stdout
                             and stderr together)
  ```console not-run: WHY    shown, never run (needs a network, a desktop, a long run, root...);
                             WHY must be given
  ```console requires: TOOL  run only when every TOOL (e.g. jq) is on PATH, else reported as
                             skipped
Expected output is strict, line by line, except:
  ...                        a line that is only "..." matches any number of lines (also none)
  text ... text              "..." inside a line matches any text within that line
A command that exits non-zero fails the test unless its block shows the exit status by running
"; echo "exit $?"" itself. Every block of a page that holds a command line ("$ ...", or a line
starting with ckpt-tool / ckpt-engine / ckpt-inspector), and every ```sh / ```bash block, must be
a console block; commands in indented code blocks are refused.

Each page runs in one bash session (variables carry from block to block) in a fresh directory
under SCRATCH holding `examples/` and `fixtures/` (copies of the source tree's) and with the
built ckpt-tool and ckpt-engine first on PATH; nothing outside that directory is read or written.

Usage: docs_commands_test.py SOURCE_DIR CKPT_TOOL CKPT_ENGINE SCRATCH_DIR [PAGE...]
"""
import os
import re
import shutil
import signal
import subprocess
import sys

MARK = "\x1eCKPT-DOCS-CMD"
PAGE_TIMEOUT_S = 240  # one page's commands; bounds a hang, below the ctest TIMEOUT
COMMAND_LINE = re.compile(r"^(\$ |(ckpt-tool|ckpt-engine|ckpt-inspector)( |$))")
SHELL_INFO = {"sh", "bash", "shell", "shell-session", "zsh"}
INDENTED_COMMAND = re.compile(r"^ {4,}(\$ )?(ckpt-tool|ckpt-engine|ckpt-inspector) ")


class Block:
    def __init__(self, page, line, info, body):
        self.page, self.line, self.info, self.body = page, line, info, body


def fenced_blocks(page, text):
    """Every fenced block of a page (``` at the start of a line), with its info string."""
    blocks, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^(```+)(.*)$", lines[i])
        if not m:
            i += 1
            continue
        fence, info, start, body = m.group(1), m.group(2).strip(), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith(fence):
            body.append(lines[i])
            i += 1
        blocks.append(Block(page, start, info, body))
        i += 1
    return blocks


def indented_commands(text):
    """Line numbers of commands in indented code blocks (outside fences): they must be fenced."""
    found, in_fence = [], False
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence and INDENTED_COMMAND.match(line):
            found.append(n)
    return found


def parse_console(block):
    """[(command, [expected lines], line number)] of a console block."""
    cmds, i, body = [], 0, block.body
    while i < len(body):
        if not body[i].startswith("$ "):
            raise ValueError(f"{block.page}:{block.line + i + 1}: output before the first '$ ' line")
        lineno, cmd = block.line + i + 1, body[i][2:]
        while i + 1 < len(body) and (cmd.endswith("\\") or body[i + 1].startswith("> ")):
            i += 1
            cmd = cmd + "\n" + (body[i][2:] if body[i].startswith("> ") else body[i])
        i += 1
        out = []
        while i < len(body) and not body[i].startswith("$ "):
            out.append(body[i])
            i += 1
        cmds.append((cmd, out, lineno))
    return cmds


def line_matches(want, got):
    if "..." not in want:
        return want == got
    parts = [re.escape(p) for p in want.split("...")]
    return re.fullmatch(".*".join(parts), got, re.DOTALL) is not None


def output_matches(want, got):
    """want may hold '...' lines (any number of lines) and '...' inside lines (any text)."""
    memo = {}

    def m(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(want):
            r = j == len(got)
        elif want[i] == "...":
            r = any(m(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and line_matches(want[i], got[j]) and m(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return m(0, 0)


def run_page(page, cmds, workdir, env):
    """Runs a page's commands in one bash session; returns [(output lines, exit code)]."""
    script = ["exec 2>&1"]
    for n, (cmd, _, _) in enumerate(cmds):
        script.append(f"printf '{MARK}-{n}\\n'")
        script.append(cmd)
        script.append(f"printf '\\n{MARK}-rc %d\\n' $?")
    proc = subprocess.Popen(["bash", "-c", "\n".join(script)], cwd=workdir, env=env,
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=PAGE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the page's shell and every tool it started
        out, _ = proc.communicate()
        out += f"\n<page timed out after {PAGE_TIMEOUT_S} s>\n".encode()
    text = out.decode("utf-8", "replace")
    results = []
    for n in range(len(cmds)):
        start = text.find(f"{MARK}-{n}\n")
        if start < 0:
            results.append((["<the shell ended before this command>"] + text.splitlines()[-5:], -1))
            continue
        start += len(f"{MARK}-{n}\n")
        end = text.find(f"\n{MARK}-rc ", start)
        if end < 0:
            results.append((text[start:].splitlines() + ["<the shell ended>"], -1))
            continue
        rc = int(re.match(rf"\n{MARK}-rc (\d+)", text[end:]).group(1))
        out = text[start:end]
        results.append((out.split("\n") if out else [], rc))
    # A command whose output ends with a newline leaves one empty line before the rc mark.
    return [((o[:-1] if o and o[-1] == "" else o), rc) for o, rc in results]


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    src, tool, engine, scratch = (os.path.abspath(a) for a in sys.argv[1:5])
    pages = sys.argv[5:] or ["README.md", "examples/README.md", "docs/json/README.md"] + sorted(
        "docs/" + p for p in os.listdir(os.path.join(src, "docs")) if p.endswith(".md"))
    bindir = os.path.join(scratch, "bin")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(bindir)
    os.symlink(os.path.realpath(tool), os.path.join(bindir, "ckpt-tool"))
    os.symlink(os.path.realpath(engine), os.path.join(bindir, "ckpt-engine"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
               NO_COLOR="1", LC_ALL="C.UTF-8", TZ="UTC", COLUMNS="100", TERM="dumb")
    env.pop("CKPT_TOOL_COLOR", None)

    fail, ran, skipped = 0, 0, 0
    for page in pages:
        with open(os.path.join(src, page), encoding="utf-8") as f:
            text = f.read()
        blocks = fenced_blocks(page, text)
        for n in indented_commands(text):
            print(f"FAIL {page}:{n}: a command in an indented block: put it in a ```console block")
            fail += 1
        cmds = []
        for b in blocks:
            kind, _, rest = b.info.partition(" ")
            has_cmd = kind in SHELL_INFO or any(COMMAND_LINE.match(l) for l in b.body)
            if kind != "console":
                if has_cmd:
                    print(f"FAIL {page}:{b.line}: a block with commands must be ```console "
                          f"(or ```console not-run: REASON), not ```{b.info}")
                    fail += 1
                continue
            if rest:
                needs = re.fullmatch(r"requires: *(\S.*)", rest.strip())
                if needs and all(shutil.which(t) for t in needs.group(1).split()):
                    rest = ""  # every tool it needs is here: run it
                elif needs:
                    print(f"skipped {page}:{b.line}: needs {needs.group(1)}, not on PATH")
                    skipped += 1
                    continue
            if rest:
                m = re.fullmatch(r"not-run: *(\S.*)", rest.strip())
                if not m:
                    print(f"FAIL {page}:{b.line}: info string '{b.info}': want 'console', "
                          "'console requires: TOOL...' or 'console not-run: REASON'")
                    fail += 1
                skipped += 1
                continue
            try:
                cmds += parse_console(b)
            except ValueError as e:
                print(f"FAIL {e}")
                fail += 1
        if not cmds:
            continue
        workdir = os.path.join(scratch, "pages", page.replace("/", "_"))
        os.makedirs(workdir)
        for d in ("examples", "fixtures"):
            shutil.copytree(os.path.join(src, d), os.path.join(workdir, d), symlinks=True)
        results = run_page(page, cmds, workdir, env)
        for (cmd, want, lineno), (got, rc) in zip(cmds, results):
            ran += 1
            problems = []
            if rc != 0:
                problems.append(f"exited {rc} (show it with '; echo \"exit $?\"')")
            if not output_matches(want, got):
                problems.append("printed other output than the page shows")
            if problems:
                fail += 1
                print(f"FAIL {page}:{lineno}: $ {cmd}\n  " + "; ".join(problems))
                print("  --- the page shows\n" + "\n".join("  | " + l for l in want))
                print("  --- the command printed\n" + "\n".join("  | " + l for l in got))
    if fail:
        print(f"{fail} problem(s); {ran} command(s) run, {skipped} not-run block(s)")
        return 1
    print(f"ok: {ran} command(s) of {len(pages)} page(s) print what the docs show; "
          f"{skipped} not-run block(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
