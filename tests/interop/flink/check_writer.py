#!/usr/bin/env python3
"""Checks ckpt::flink's `_metadata` writer on every snapshot the Flink harness wrote (issue 11 §1).

For every snapshot in ROOT/manifest.json (ROOT = OUT/<flink-version>): an identity remap
(`ckpt-tool remap SNAP --to TMP --map ID=ID`, ID = its first operator's) reads the `_metadata`
into the model and writes it back through the writer; the written `_metadata` must equal Flink's
byte for byte, and `ckpt-tool ls` must read it. Python 3 stdlib only. Prints one line per check
and 'N passed, M failed'; exit 1 on any failure.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt-tool", required=True)
    ap.add_argument("roots", nargs="+")
    args = ap.parse_args()
    passed = failed = 0
    scratch = tempfile.mkdtemp(prefix="ckpt-writer-check-")
    try:
        for root in args.roots:
            with open(os.path.join(root, "manifest.json")) as f:
                manifest = json.load(f)
            version = manifest["flink_version"]
            for i, snap in enumerate(manifest["snapshots"]):
                path = os.path.join(root, snap["snapshot"])
                name = f"{version}:{snap['snapshot']}:writer-round-trip"
                ls = run([args.ckpt_tool, "ls", path, "--format", "json"])
                ids = [json.loads(l).get("operator_uid_hash") for l in ls.stdout.splitlines() if l.strip()]
                ids = [x for x in ids if x]
                if ls.returncode != 0 or not ids:
                    failed += 1
                    print(f"FAIL {name}: ls exit {ls.returncode}, no operator id: {ls.stderr.strip()[:300]}")
                    continue
                out = os.path.join(scratch, f"{version}-{i}")
                r = run([args.ckpt_tool, "remap", path, "--to", out, "--map", f"{ids[0]}={ids[0]}"])
                # Exit 1 = the plan has warnings (e.g. files referenced by absolute path); the
                # output is written all the same.
                if r.returncode not in (0, 1) or not os.path.isfile(os.path.join(out, "_metadata")):
                    failed += 1
                    print(f"FAIL {name}: remap exit {r.returncode}: {(r.stderr or r.stdout).strip()[:400]}")
                    continue
                with open(os.path.join(path, "_metadata"), "rb") as f:
                    want = f.read()
                with open(os.path.join(out, "_metadata"), "rb") as f:
                    got = f.read()
                if got != want:
                    at = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
                    failed += 1
                    print(f"FAIL {name}: written _metadata differs from Flink's at byte {at} "
                          f"({len(got)} vs {len(want)} bytes)")
                    continue
                ls2 = run([args.ckpt_tool, "ls", out])
                if ls2.returncode != 0:
                    failed += 1
                    print(f"FAIL {name}: ls of the rewritten snapshot exit {ls2.returncode}: {ls2.stderr.strip()[:300]}")
                    continue
                passed += 1
                print(f"PASS {name} ({len(want)} bytes identical)")
                shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
