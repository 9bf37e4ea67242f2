#!/usr/bin/env python3
"""Checks ckpt-tool against the ground truth the Flink harness wrote (Python 3 stdlib only).

For every snapshot listed in ROOT/manifest.json (ROOT = OUT/<flink-version>):
  1. ckpt-tool ls / show / files / validate --deep exit 0;
  2. ls --format json lists the operators Flink's own loader saw (id, parallelism, max parallelism);
  3. dump --format json of each operator equals the ground truth for every state the truth lists
     as complete (exact multiset of entries), and opaque states have the expected entry counts;
  4. diff --keys --format json of a snapshot against the previous one of its run reports exactly
     the keys whose entries changed between the two ground truths.
Prints one line per check and a closing 'N passed, M failed' line; exit 1 on any failure.

known-gaps.txt (beside this script) lists, as shell patterns over check names, what the C++ reader
does not do yet (issue 10 stays open while it has lines). A failing check that matches is printed
as GAP and not counted as a failure; a check that matches and PASSES fails the run ("remove it
from known-gaps.txt"), so the list can only shrink and never hides a regression elsewhere.
"""
import argparse
import collections
import fnmatch
import json
import os
import subprocess
import sys

MAX_SHOWN = 8


def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


class Checker:
    def __init__(self, tool, root, verbose):
        self.tool = tool
        self.root = root
        self.verbose = verbose
        self.passed = 0
        self.failed = 0
        self.gaps = 0
        self.known_gaps = load_known_gaps()

    def known_gap(self, name):
        for pattern, why in self.known_gaps:
            if fnmatch.fnmatchcase(name, pattern):
                return why
        return None

    def result(self, name, ok, detail=""):
        gap = self.known_gap(name)
        if gap is not None:
            if ok:
                self.failed += 1
                print(f"FAIL {name}: passes now; remove its pattern from known-gaps.txt ({gap})")
            else:
                self.gaps += 1
                print(f"GAP  {name}: {gap}")
            return
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}")
            for line in detail.rstrip().splitlines():
                print(f"     {line}")

    def run(self, *args):
        cmd = [self.tool, *args]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        return p.returncode, p.stdout, p.stderr, " ".join(cmd)

    def json_lines(self, out):
        rows = []
        for n, line in enumerate(out.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"line {n} is not JSON ({e}): {line[:200]}")
        return rows

    # ------------------------------------------------------------------ checks

    def check_verbs(self, snap, label):
        for verb in (["ls"], ["show"], ["files"], ["validate", "--deep"]):
            rc, out, err, cmd = self.run(verb[0], snap, *verb[1:])
            text = (err + "\n" + out).strip()
            errors = [l for l in text.splitlines()
                      if any(w in l.lower() for w in ("error", "corruption", "fail", "not supported", "unimplemented"))]
            self.result(f"{label}: {' '.join(verb)} exits 0", rc == 0,
                        f"$ {cmd}\nexit {rc}\n" + "\n".join(errors[:12]) + "\n...\n" + text[-600:])

    def check_ls(self, snap, truth, label):
        rc, out, err, cmd = self.run("ls", snap, "--format", "json")
        if rc != 0:
            self.result(f"{label}: ls --format json", False, f"$ {cmd}\nexit {rc}\n{err[-1500:]}")
            return
        try:
            rows = self.json_lines(out)
        except ValueError as e:
            self.result(f"{label}: ls --format json", False, f"$ {cmd}\n{e}")
            return
        got = {r.get("operator_uid_hash"): r for r in rows}
        problems = []
        for op in truth["metadata"]["operators"]:
            oid = op["operator_id"]
            r = got.get(oid)
            if r is None:
                problems.append(f"operator {oid} (uid {op.get('uid')}) missing from ls")
                continue
            for field, want in (("operator_parallelism", op["parallelism"]),
                                ("operator_max_parallelism", op["max_parallelism"]),
                                ("checkpoint_id", truth["checkpoint_id"])):
                if r.get(field) != want:
                    problems.append(f"operator {oid}: {field} = {r.get(field)!r}, Flink says {want!r}")
        extra = set(got) - {op["operator_id"] for op in truth["metadata"]["operators"]}
        for oid in sorted(x for x in extra if x):
            problems.append(f"ls lists operator {oid} that Flink's loader does not")
        self.result(f"{label}: ls operators match Flink's loader", not problems,
                    f"$ {cmd}\n" + "\n".join(problems[:MAX_SHOWN * 2]))

    @staticmethod
    def fold_changelog(rows):
        """Dump lines marked source=changelog are applied in sequence order (put replaces, others
        remove), so the comparison is against the state as of the checkpoint."""
        base = [r for r in rows if r.get("source", "state") == "state"]
        changes = [r for r in rows if r.get("source", "state") != "state"]
        if not changes:
            return base
        ident = lambda r: canon({k: v for k, v in r.items()
                                 if k not in ("value", "source", "op", "sequence", "operator_id", "operator")})
        state = collections.OrderedDict((ident(r), r) for r in base)
        for r in sorted(changes, key=lambda r: r.get("sequence", 0)):
            op = str(r.get("op", "put")).lower()
            clean = {k: v for k, v in r.items() if k not in ("source", "op", "sequence")}
            if op in ("put", "add", "merge", "set", "update", "append"):
                state[ident(r)] = clean
            else:
                state.pop(ident(r), None)
        return list(state.values())

    def check_dump(self, snap, truth, label):
        for op in truth["operators"]:
            complete = op.get("complete_states", [])
            opaque = op.get("opaque_states", [])
            if not complete and not opaque:
                continue
            name = f"{label}: dump {op['uid']}"
            rc, out, err, cmd = self.run("dump", snap, "--operator", op["operator_id"], "--format", "json")
            if rc != 0:
                self.result(name, False, f"$ {cmd}\nexit {rc}\n{err[-1500:]}")
                continue
            try:
                rows = self.fold_changelog(self.json_lines(out))
            except ValueError as e:
                self.result(name, False, f"$ {cmd}\n{e}")
                continue
            if complete:
                expected = [e for e in op["entries"] if e["state"] in complete]
                # Compare on the truth's fields; fields dump adds (operator_id, operator, ...) are
                # not asserted. Every truth field must be present in the dump line.
                fields = sorted({k for e in expected for k in e} | {"state", "kind", "subtask", "value"})
                def project(r):
                    return canon({k: r[k] for k in fields if k in r})
                want = collections.Counter(canon(e) for e in expected)
                got = collections.Counter(project(r) for r in rows if r.get("state") in complete)
                missing = want - got
                unexpected = got - want
                detail = [f"$ {cmd}",
                          f"states compared: {', '.join(complete)}; expected {sum(want.values())} entries, "
                          f"dump printed {sum(got.values())}"]
                if missing:
                    detail.append(f"{sum(missing.values())} expected entries not in the dump, e.g.:")
                    detail += ["  - " + m for m in list(missing.elements())[:MAX_SHOWN]]
                if unexpected:
                    detail.append(f"{sum(unexpected.values())} dump entries not in the ground truth, e.g.:")
                    detail += ["  + " + m for m in list(unexpected.elements())[:MAX_SHOWN]]
                self.result(f"{name} equals the ground truth ({', '.join(complete)})",
                            not missing and not unexpected, "\n".join(detail))
            for o in opaque:
                want_n = sum(o["entries_per_subtask"])
                got_n = sum(1 for r in rows if r.get("state") == o["state"])
                self.result(f"{name} {o['state']} has {want_n} entries", got_n == want_n,
                            f"$ {cmd}\nstate {o['state']} ({o['kind']}): dump printed {got_n} entries, "
                            f"expected {want_n} (per subtask {o['entries_per_subtask']})")

    @staticmethod
    def keyed_index(truth):
        idx = {}
        for op in truth["operators"]:
            complete = set(op.get("complete_states", []))
            for e in op["entries"]:
                if e["state"] not in complete or "key_group" not in e:
                    continue
                ident = (op["operator_id"], e["state"], e["key_group"], canon(e["key"]),
                         canon(e.get("namespace")), canon(e.get("user_key")), canon(e.get("timestamp")))
                idx[ident] = canon(e.get("value"))
        return idx

    def check_diff(self, prev_snap, snap, prev_truth, truth, label):
        a, b = self.keyed_index(prev_truth), self.keyed_index(truth)
        want = set()
        for k in set(a) | set(b):
            if k not in a:
                want.add(("added",) + k)
            elif k not in b:
                want.add(("removed",) + k)
            elif a[k] != b[k]:
                want.add(("changed",) + k)
        compared_states = {(op["operator_id"], s) for t in (prev_truth, truth) for op in t["operators"]
                           for s in op.get("complete_states", [])}
        rc, out, err, cmd = self.run("diff", prev_snap, snap, "--keys", "--format", "json")
        name = f"{label}: diff --keys against {os.path.basename(prev_snap)} matches the changed keys"
        if rc not in (0, 1):
            self.result(name, False, f"$ {cmd}\nexit {rc}\n{err[-1500:]}")
            return
        try:
            rows = self.json_lines(out)
        except ValueError as e:
            self.result(name, False, f"$ {cmd}\n{e}")
            return
        got = set()
        for r in rows:
            if "key_change" not in r or r["key_change"] == "same":
                continue
            if (r.get("operator_id"), r.get("state")) not in compared_states:
                continue
            got.add((r["key_change"], r.get("operator_id"), r.get("state"), r.get("key_group"),
                     canon(r.get("key")), canon(r.get("namespace")), canon(r.get("user_key")),
                     canon(r.get("timestamp"))))
        missing, unexpected = want - got, got - want
        detail = [f"$ {cmd}", f"expected {len(want)} key changes, diff reported {len(got)}"]
        if missing:
            detail.append(f"{len(missing)} changes not reported, e.g.:")
            detail += [f"  - {m}" for m in sorted(missing)[:MAX_SHOWN]]
        if unexpected:
            detail.append(f"{len(unexpected)} reported changes the ground truth does not have, e.g.:")
            detail += [f"  + {m}" for m in sorted(unexpected)[:MAX_SHOWN]]
        self.result(name, not missing and not unexpected, "\n".join(detail))

    def check_all(self):
        with open(os.path.join(self.root, "manifest.json")) as f:
            manifest = json.load(f)
        truths = {}
        for s in manifest["snapshots"]:
            with open(os.path.join(self.root, s["truth"])) as f:
                truths[s["snapshot"]] = json.load(f)
        for s in manifest["snapshots"]:
            snap = os.path.join(self.root, s["snapshot"])
            truth = truths[s["snapshot"]]
            label = f"{manifest['flink_version']} {s['kind']} {os.path.basename(s['snapshot'])}"
            self.check_verbs(snap, label)
            self.check_ls(snap, truth, label)
            self.check_dump(snap, truth, label)
            if s.get("previous"):
                self.check_diff(os.path.join(self.root, s["previous"]), snap,
                                truths[s["previous"]], truth, label)


def load_known_gaps():
    """Lines 'PATTERN | why' of known-gaps.txt; '#' starts a comment."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known-gaps.txt")
    gaps = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    pattern, _, why = line.partition("|")
                    gaps.append((pattern.strip(), why.strip() or "known gap"))
    return gaps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt-tool", required=True, help="the built ckpt-tool binary")
    ap.add_argument("roots", nargs="+", help="OUT/<flink-version> directories holding manifest.json")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not os.access(args.ckpt_tool, os.X_OK):
        print(f"FAIL ckpt-tool not found or not executable: {args.ckpt_tool}")
        print("0 passed, 1 failed")
        sys.exit(1)
    c = Checker(args.ckpt_tool, None, args.verbose)
    for root in args.roots:
        c.root = root
        c.check_all()
    if c.gaps:
        print(f"{c.gaps} checks are known gaps of the reader (known-gaps.txt)")
    print(f"{c.passed} passed, {c.failed} failed")
    sys.exit(1 if c.failed else 0)


if __name__ == "__main__":
    main()
