#!/usr/bin/env python3
"""Compares `ckpt-tool positions SNAPSHOT --format json` with the connector jobs' ground truth.

    check_positions.py --ckpt-tool PATH DIR...

Each DIR is a snapshot directory of ConnectorHarness (`snapshot/` + `truth.json`) or a folder
holding such directories at any depth (fixtures/flink-connectors, OUT/<flink version>/). The
truth format and what is asserted: tests/interop/flink/README.md, "The connector jobs". Python 3
standard library only. Prints one line per snapshot and closes with "N passed, M failed".
"""

import argparse
import json
import os
import subprocess
import sys

KAFKA_SOURCES = ("kafka-source", "flink-kafka-consumer")
KAFKA_SINKS = ("kafka-sink", "flink-kafka-producer")
# Kafka's special offsets as `positions` renders them
SPECIAL_OFFSETS = {-1: "latest", -2: "earliest", -3: "committed"}
# The actions of a transaction the snapshot holds as pre-committed (to commit on restore).
COMMIT_ACTIONS = ("commit",)


def find_truths(roots):
    out = []
    for root in roots:
        if not os.path.exists(root):
            raise SystemExit(f"check_positions: {root} does not exist")
        for base, dirs, files in os.walk(root):
            dirs.sort()
            if "truth.json" in files and os.path.isdir(os.path.join(base, "snapshot")):
                out.append(base)
                dirs[:] = []
    return out


def run_positions(tool, snapshot):
    cmd = [tool, "positions", snapshot, "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Failure(f"`{' '.join(cmd)}` exited {p.returncode}: {(p.stderr or p.stdout).strip()[:400]}")
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise Failure(f"`{' '.join(cmd)}` did not print one JSON document: {e}: {p.stdout[:200]!r}")


class Failure(Exception):
    pass


def strip_scheme(path):
    """file:/a/b, file:///a/b and /a/b name the same local file."""
    if path is None:
        return None
    if path.startswith("file://"):
        path = path[len("file://"):]
    elif path.startswith("file:"):
        path = path[len("file:"):]
    return os.path.normpath(path)


def operator_for(doc, truth_op):
    """The `positions` operator of a truth operator: by operator ID, else by uid."""
    for op in doc.get("operators", []):
        if op.get("operator_id") == truth_op["operator_id"]:
            return op
    for op in doc.get("operators", []):
        if op.get("uid") == truth_op["uid"]:
            return op
    return None


def sink_view(doc, op, truth_op):
    """A sink's writer and committer may be two operators (sink v2: the committer's state holds
    the committables): one view with the prefix either reports and the transactions of both.
    Each job has one sink, so every operator of the sink's connector belongs to it."""
    prefix = None
    txs = []
    for o in doc.get("operators", []):
        if o is op or o.get("connector") == truth_op["connector"]:
            s = o.get("sink") or {}
            if prefix is None:
                prefix = s.get("transactional_id_prefix")
            txs.extend(s.get("transactions") or [])
    return dict(op, sink={"transactional_id_prefix": prefix, "transactions": txs})


def expect_connector(op, truth_op, errors):
    if op.get("connector") != truth_op["connector"]:
        errors.append(f"{truth_op['uid']}: connector {op.get('connector')!r}, expected {truth_op['connector']!r}")


def offset_text(v):
    return f"{v} ({SPECIAL_OFFSETS[v]})" if v in SPECIAL_OFFSETS else str(v)


def check_kafka_source(op, t, errors):
    uid = t["uid"]
    want = {(p["topic"], p["partition"]): p["next_offset"] for p in t["partitions"]}
    # Where the readers stand: the FLIP-27 readers' splits, or the legacy consumer's union state.
    seen = {}
    for s in op.get("splits", []):
        if s.get("origin") not in ("reader", "union"):
            continue
        key = (s.get("topic"), s.get("partition"))
        if key not in want:
            errors.append(f"{uid}: split {s.get('split_id')!r} of subtask {s.get('subtask')} names {key}, not a partition of the input")
            continue
        if key in seen and seen[key] != s.get("next_offset"):
            errors.append(f"{uid}: {key[0]}-{key[1]} appears twice with next offsets {offset_text(seen[key])} and {offset_text(s.get('next_offset'))}")
        seen[key] = s.get("next_offset")
    for key, n in sorted(want.items()):
        if key not in seen:
            errors.append(f"{uid}: no reader split for {key[0]}-{key[1]} (the restored job resumed it at offset {n})")
        elif seen[key] != n:
            errors.append(f"{uid}: {key[0]}-{key[1]} next offset {offset_text(seen[key])}, Flink resumed at {n}")
        if key in seen:
            for s in op.get("splits", []):
                if (s.get("topic"), s.get("partition")) == key and s.get("origin") in ("reader", "union"):
                    stop = s.get("stopping_offset")
                    if stop is not None and stop >= 0:
                        errors.append(f"{uid}: {key[0]}-{key[1]} has stopping offset {stop}; the source is unbounded")
    # The FLIP-27 enumerator: every partition assigned, none pending (all assigned at the start).
    if t["connector"] == "kafka-source":
        assigned = {(s.get("topic"), s.get("partition")) for s in op.get("splits", []) if s.get("origin") == "enumerator-assigned"}
        pending = {(s.get("topic"), s.get("partition")) for s in op.get("splits", []) if s.get("origin") == "enumerator-pending"}
        if assigned != set(want):
            errors.append(f"{uid}: the enumerator's assigned partitions are {sorted(assigned)}, expected {sorted(want)}")
        if pending:
            errors.append(f"{uid}: the enumerator has unassigned partitions {sorted(pending)}; every partition was assigned")


def check_kafka_sink(op, t, errors):
    uid = t["uid"]
    sink = op.get("sink") or {}
    prefix = sink.get("transactional_id_prefix")
    txs = sink.get("transactions") or []
    if t["connector"] == "kafka-sink" or prefix is not None:
        if prefix != t["transactional_id_prefix"]:
            errors.append(f"{uid}: transactional id prefix {prefix!r}, expected {t['transactional_id_prefix']!r}")
    for tx in txs:
        tid = tx.get("transactional_id") or ""
        if not tid.startswith(t["transactional_id_prefix"]):
            errors.append(f"{uid}: transaction {tid!r} does not start with the prefix {t['transactional_id_prefix']!r}")
    want = {(p["transactional_id"], p["producer_id"], p["epoch"]) for p in t["pending_transactions"]}
    # Flink 2.x's KafkaWriter also records the precommitted IDs (without producer ID and epoch)
    # that its committer lists in full: one transaction per ID, with the fields either side has.
    by_id = {}
    for x in txs:
        if x.get("action") not in COMMIT_ACTIONS:
            continue
        tid = x.get("transactional_id")
        pid, epoch = by_id.get(tid, (None, None))
        by_id[tid] = (pid if x.get("producer_id") is None else x.get("producer_id"),
                      epoch if x.get("epoch") is None else x.get("epoch"))
    commits = {(tid, pid, epoch) for tid, (pid, epoch) in by_id.items()}
    if commits != want:
        errors.append(f"{uid}: transactions to commit {sorted(commits, key=repr)}, expected (Kafka's open transactions at the barrier) {sorted(want)}")


def file_base(s):
    """The byte offset a records-to-skip count is relative to: resume_offset, else the split's start."""
    r = s.get("resume_offset")
    if r is not None and r >= 0:
        return r
    return s.get("split_offset") or 0


def check_file_source(op, t, errors):
    uid = t["uid"]
    lb = t["line_bytes"]
    by_path = {strip_scheme(f["path"]): f for f in t["files"]}
    readers = {}
    pending = set()
    for s in op.get("splits", []):
        path = strip_scheme(s.get("path"))
        if path not in by_path:
            errors.append(f"{uid}: split {s.get('split_id')!r} ({s.get('origin')}) reads {s.get('path')!r}, not an input file")
            continue
        if s.get("origin") == "reader":
            if path in readers:
                errors.append(f"{uid}: {path} is in two reader splits")
            readers[path] = s
        elif s.get("origin") == "enumerator-pending":
            pending.add(path)
    processed = {strip_scheme(p) for p in op.get("processed_paths") or []}
    for path, f in sorted(by_path.items()):
        name = f["name"]
        if path not in processed:
            errors.append(f"{uid}: {name} missing from the enumerator's processed paths {sorted(processed)} (discovered before the snapshot)")
        s = readers.get(path)
        if f["status"] == "in-progress":
            if s is None:
                errors.append(f"{uid}: {name}: no reader split; Flink resumed it at line {f['next_line']}")
                continue
            at = file_base(s) + (s.get("records_to_skip") or 0) * lb
            if at != f["resume_byte_offset"]:
                errors.append(f"{uid}: {name}: resumes at byte {at} (resume offset {s.get('resume_offset')}, split offset "
                              f"{s.get('split_offset')}, {s.get('records_to_skip')} records to skip of {lb} bytes); "
                              f"Flink resumed at line {f['next_line']} = byte {f['resume_byte_offset']}")
            if path in pending:
                errors.append(f"{uid}: {name} is both in a reader split and pending in the enumerator")
        elif f["status"] == "unstarted":
            if s is not None and file_base(s) + (s.get("records_to_skip") or 0) * lb != 0:
                errors.append(f"{uid}: {name}: reader split past the start; Flink read it from line 0 after the restore")
            if s is None and path not in pending:
                errors.append(f"{uid}: {name}: neither pending in the enumerator nor in a reader split; Flink read it from line 0 after the restore")
        else:  # read-to-end: nothing left; a reader split may still hold it, at its end
            if path in pending:
                errors.append(f"{uid}: {name} read to its end, but pending in the enumerator")
            if s is not None and file_base(s) + (s.get("records_to_skip") or 0) * lb != f["size"]:
                errors.append(f"{uid}: {name} read to its end, but its reader split resumes before the end")


def check_file_sink(op, t, errors):
    uid = t["uid"]
    sink = op.get("sink") or {}
    txs = sink.get("transactions") or []
    want = {strip_scheme(p["final_path"]): p for p in t["pending_files"]}
    got = {}
    for x in txs:
        final = strip_scheme(x.get("final_path"))
        if final is None:
            errors.append(f"{uid}: an in-progress file {x.get('pending_path')!r} (subtask {x.get('subtask')}); "
                          "the rolling policy rolls every file at a snapshot")
            continue
        got[final] = x
    if set(got) != set(want):
        errors.append(f"{uid}: pending files {sorted(got)}, expected (committed by Flink for this snapshot) {sorted(want)}")
    for final, p in want.items():
        x = got.get(final)
        if x is not None and p.get("in_progress_path") and strip_scheme(x.get("pending_path")) != strip_scheme(p["in_progress_path"]):
            errors.append(f"{uid}: {os.path.basename(final)}: pending path {x.get('pending_path')!r}, expected {p['in_progress_path']!r}")


CHECKS = {
    "kafka-source": check_kafka_source,
    "flink-kafka-consumer": check_kafka_source,
    "kafka-sink": check_kafka_sink,
    "flink-kafka-producer": check_kafka_sink,
    "file-source": check_file_source,
    "file-sink": check_file_sink,
}


def check(tool, d):
    with open(os.path.join(d, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    if truth.get("schema") != "ckpt-interop-flink-positions-truth/1":
        raise Failure(f"{d}/truth.json: unknown schema {truth.get('schema')!r}")
    doc = run_positions(tool, os.path.join(d, truth["snapshot"]))
    errors = []
    for t in truth["operators"]:
        op = operator_for(doc, t)
        if op is None:
            ids = [(o.get("operator_id"), o.get("uid"), o.get("connector")) for o in doc.get("operators", [])]
            errors.append(f"{t['uid']} ({t['operator_id']}, {t['connector']}): not among the operators positions printed: {ids}")
            continue
        expect_connector(op, t, errors)
        if t["connector"] in KAFKA_SINKS or t["connector"] == "file-sink":
            op = sink_view(doc, op, t)
        CHECKS[t["connector"]](op, t, errors)
    return errors, doc.get("findings") or []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt-tool", required=True)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    dirs = find_truths(a.dirs)
    if not dirs:
        print(f"check_positions: no snapshot with a truth.json under {a.dirs}")
        print("0 passed, 1 failed")
        return 1
    passed = failed = 0
    for d in dirs:
        try:
            errors, findings = check(a.ckpt_tool, d)
        except Failure as e:
            errors, findings = [str(e)], []
        if errors:
            failed += 1
            print(f"FAIL {d}")
            for e in errors:
                print(f"  {e}")
        else:
            passed += 1
            print(f"ok   {d}" + (f" ({len(findings)} findings)" if findings else ""))
        for x in findings:
            print(f"  finding: {json.dumps(x, sort_keys=True)}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
