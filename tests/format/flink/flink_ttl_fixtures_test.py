#!/usr/bin/env python3
"""fixtures/flink-ttl: every uncompressed snapshot holds the TTL timestamps its truth.json says.

For each fixture whose snapshot bytes are not compressed (all but the RocksDB checkpoints, whose
SST blocks are Snappy-compressed), scans every file of snapshot/ for 8-byte big-endian values
within 10 s of the writes (a TTL last-access timestamp: nothing else in the job's state is near
the epoch-ms clock). Each must be followed by the entry's user value (TtlSerializer: timestamp,
then value; a Long here), and then:
  * the multiset of those values equals the multiset of the TTL entries' user values in the
    truth (ttl-value values, ttl-map values, ttl-list elements): every TTL entry once, no more;
  * each timestamp lies in the [min_before_write_ms, max_after_write_ms] of a key that holds
    that value in a TTL state, and so in that key's batch interval.

Usage: flink_ttl_fixtures_test.py FIXTURES_DIR   (the repository's fixtures/)
Python 3 standard library only.
"""
import collections
import json
import os
import sys

TTL_STATES = ("ttl-value", "ttl-map", "ttl-list")


def fail(fixture, why):
    sys.exit(f"fixtures/flink-ttl/{fixture}: {why}")


def expected_values(truth):
    """value -> list of (key, lo, hi) of the keys holding it in a TTL state, and the multiset."""
    interval = {k["key"]: (k["min_before_write_ms"], k["max_after_write_ms"]) for k in truth["keys"]}
    owners = collections.defaultdict(list)
    values = collections.Counter()
    for e in truth["entries"]:
        if e["state"] not in TTL_STATES:
            continue
        vs = e["value"] if e["kind"] == "list" else [e["value"]]
        for v in vs:
            values[v] += 1
            owners[v].append((e["key"],) + interval[e["key"]])
    return owners, values


def check(fixture, path):
    with open(os.path.join(path, "truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    if truth["fixture"] != fixture:
        fail(fixture, f"truth.json names fixture {truth['fixture']!r}")
    a, b = truth["batches"]
    lo, hi = a["min_before_write_ms"] - 10_000, b["max_after_write_ms"] + 10_000
    owners, want = expected_values(truth)
    seen = collections.Counter()
    for root, _, files in os.walk(os.path.join(path, "snapshot")):
        for name in sorted(files):
            data = open(os.path.join(root, name), "rb").read()
            for i in range(len(data) - 15):
                ts = int.from_bytes(data[i:i + 8], "big")
                if ts < lo or ts > hi:
                    continue
                v = int.from_bytes(data[i + 8:i + 16], "big")
                where = f"{name} offset {i}: timestamp {ts} followed by {v}"
                if v not in owners:
                    fail(fixture, f"{where}, which is no TTL entry's value in truth.json")
                if not any(klo <= ts <= khi for _, klo, khi in owners[v]):
                    keys = ", ".join(f"{k} [{klo}, {khi}]" for k, klo, khi in owners[v])
                    fail(fixture, f"{where}, outside the write interval of every key holding it: {keys}")
                seen[v] += 1
    if seen != want:
        missing = want - seen
        extra = seen - want
        fail(fixture, f"{sum(seen.values())} TTL timestamps found, {sum(want.values())} TTL entries in truth.json; "
                      f"values missing {dict(list(missing.items())[:5])}, extra {dict(list(extra.items())[:5])}")
    return sum(seen.values())


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: flink_ttl_fixtures_test.py FIXTURES_DIR")
    top = os.path.join(sys.argv[1], "flink-ttl")
    if not os.path.isdir(top):
        sys.exit(f"{top}: no such directory")
    checked = 0
    for fixture in sorted(os.listdir(top)):
        path = os.path.join(top, fixture)
        if not os.path.isfile(os.path.join(path, "truth.json")):
            continue
        with open(os.path.join(path, "truth.json"), encoding="utf-8") as f:
            t = json.load(f)
        if t["backend"] == "rocksdb" and t["type"] == "checkpoint":
            continue  # Snappy-compressed SST blocks
        n = check(fixture, path)
        print(f"{fixture}: {n} TTL timestamps, each in the write interval of its key")
        checked += 1
    if checked == 0:
        sys.exit(f"{top}: no uncompressed fixture to check")
    print(f"fixtures/flink-ttl: {checked} snapshots checked")


if __name__ == "__main__":
    main()
