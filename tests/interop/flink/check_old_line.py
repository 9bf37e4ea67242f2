#!/usr/bin/env python3
"""Checks ckpt-tool against the snapshots the older-line harness (OldLine.java) wrote.

For every snapshot in ROOT/manifest.json (ROOT = OUT/<flink-version>, Python 3 stdlib only):
  1. ckpt-tool ls / show / files exit 0;
  2. validate --deep agrees with Flink: exit 0 exactly when Flink restored the snapshot and
     continued exactly once ("flink_restored": "ok"); every case the harness makes is meant to
     restore, so a snapshot Flink refused fails too;
  3. aligned snapshots: dump --format json holds, per key, the count and sum the harness expects
     (state `count`, `sum`), and one timer per key.
Prints one line per check and 'N passed, M failed'; exit 1 on any failure. Shares
known-gaps.txt with check_snapshots.py (patterns over the check names printed here).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_snapshots import Checker  # noqa: E402


def check_snapshot(c, version, snap):
    name = f"{version}/{snap['case']}"
    path = snap["snapshot"]
    for cmd in ("ls", "show", "files"):
        code, out, err, line = c.run(cmd, path)
        c.result(f"{name}: {cmd}", code == 0, f"{line}: exit {code}\n{err[-2000:]}")
    code, out, err, line = c.run("validate", "--deep", path)
    restored = snap["flink_restored"] == "ok"
    c.result(f"{name}: flink restores it", restored, f"Flink: {snap['flink_restored']}")
    c.result(f"{name}: validate --deep agrees with Flink ({'restored' if restored else 'refused'})",
             (code == 0) == restored, f"{line}: exit {code}\n{out[-3000:]}{err[-2000:]}")
    if not snap["expect"]:
        return
    code, out, err, line = c.run("dump", path, "--format", "json")
    if code != 0:
        c.result(f"{name}: dump", False, f"{line}: exit {code}\n{err[-2000:]}")
        return
    rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    got = {}
    timers = 0
    for r in rows:
        if r.get("state") in ("count", "sum") and r.get("kind") == "value":
            got.setdefault(r["key"], [None, None])[0 if r["state"] == "count" else 1] = r["value"]
        elif r.get("kind") == "timers":
            timers += 1
    want = {k: list(v) for k, v in snap["expect"].items()}
    diff = [f"{k}: dump {got.get(k)}, expected {want.get(k)}" for k in sorted(set(got) | set(want))
            if got.get(k) != want.get(k)]
    c.result(f"{name}: dump count and sum per key", not diff, "\n".join(diff[:8]))
    c.result(f"{name}: dump one timer per key", timers == snap["keys"],
             f"{timers} timer entries, expected {snap['keys']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ckpt-tool", required=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("roots", nargs="+", help="OUT/<flink-version> directories of OldLine")
    args = ap.parse_args()
    status = 0
    for root in args.roots:
        with open(os.path.join(root, "manifest.json")) as f:
            manifest = json.load(f)
        c = Checker(args.ckpt_tool, root, args.verbose)
        for snap in manifest["snapshots"]:
            check_snapshot(c, manifest["flink_version"], snap)
        print(f"{manifest['flink_version']}: {c.passed} passed, {c.failed} failed, {c.gaps} known gaps")
        status |= c.failed > 0
    return status


if __name__ == "__main__":
    sys.exit(main())
