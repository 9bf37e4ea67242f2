#!/usr/bin/env python3
"""Every verb's --format json output on the fixtures validates against its JSON Schema in
docs/json/ (Draft 2020-12), so jq can join the outputs of different verbs.

usage: json_schema_test.py CKPT_TOOL SOURCE_DIR
Uses python3-jsonschema (Debian 12: 4.10; newer versions work too)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

import jsonschema

JOB = "1a2b3c4d5e6f708192a3b4c5d6e7f801"
CHK1 = f"v1/checkpoints/{JOB}/chk-1"
CHK2 = f"v1/checkpoints/{JOB}/chk-2"
UNALIGNED = f"v1/unaligned/{JOB}/chk-5"
ENGINE = "engine-v1/checkpoints"
ENGINE_JOB = "e0e1e2e3e4e5e6e7e8e9eaebecedeeef"

# (schema, arguments, allowed exit codes)
RUNS = [
    ("ls", ["ls", "v1"], {0}),
    ("ls", ["ls", "v1/savepoint"], {0}),
    ("ls", ["ls", "corrupt"], {1}),
    ("ls", ["ls", "engine-v1"], {0}),
    ("show", ["show", "v1/savepoint"], {0}),
    ("show", ["show", CHK2], {0}),
    ("show", ["show", UNALIGNED], {0}),
    ("files", ["files", CHK2], {0}),
    ("files", ["files", UNALIGNED], {0}),
    ("dump", ["dump", "v1/savepoint"], {0}),
    ("dump", ["dump", CHK2], {0}),
    ("dump", ["dump", CHK2, "--history"], {0}),
    ("dump", ["dump", UNALIGNED], {0}),
    ("diff", ["diff", CHK1, CHK2, "--keys"], {1}),
    ("diff", ["diff", "v1/savepoint", "v1/savepoint"], {0}),
    ("stats", ["stats", "v1/savepoint"], {0}),
    ("stats", ["stats", UNALIGNED], {0}),
    ("stats", ["stats", "v1/savepoint", "--top-keys", "3"], {0}),
    ("stats", ["stats", "flink/complexKeyed-flink1.20", "--top-keys", "3"], {0}),
    ("stats", ["stats", "v1/savepoint", "--ttl-expired-at", "2026-12-08T01:00:00Z", "--ttl", "1h"], {0}),
    ("stats", ["stats", "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint",
               "--ttl-expired-at", "1796691600000", "--ttl", "30m"], {0}),
    ("stats", ["stats", "flink-ttl/ttl-hashmap-flink2.3-savepoint/snapshot",
               "--ttl-expired-at", "2026-12-08T01:00:00Z", "--ttl", "1h"], {0}),
    ("stats", ["stats", "flink-ttl/ttl-rocksdb-flink1.20-checkpoint/snapshot",
               "--ttl-expired-at", "2026-12-08T03:00:00Z", "--ttl", "1h"], {0}),
    ("validate", ["validate", "v1/savepoint"], {0}),
    ("validate", ["validate", "corrupt/missing-referenced-file"], {1}),
    ("prune", ["prune", "v1/checkpoints", "--keep-last", "1", "--dry-run"], {0, 1}),
    ("history", ["history", "v1/checkpoints"], {0}),
    ("history", ["history", ENGINE], {0}),
    ("history", ["history", "corrupt"], {1}),
    ("history", ["history", "flink"], {0}),
    ("growth", ["growth", "v1/checkpoints"], {0}),
    ("growth", ["growth", ENGINE], {0}),
    ("growth", ["growth", "missing-root"], {2}),
    ("diagnose", ["diagnose", "v1/savepoint"], {0}),
    ("diagnose", ["diagnose", "corrupt/missing-referenced-file"], {1}),
    ("diagnose", ["diagnose", "corrupt/truncated-metadata"], {1}),
    ("diagnose", ["diagnose", "flink-corrupt/truncated-metadata"], {1}),
    ("remap", ["remap", "v1/savepoint", "--to", "@TMP@/remapped", "--map",
               "orders-source=orders-v2", "--dry-run"], {0}),
    ("relocate", ["relocate", CHK2, "--to", "@TMP@/relocated", "--dry-run"], {0}),
    ("positions", ["positions", "v1/savepoint"], {0}),
    ("positions", ["positions", f"{ENGINE}/{ENGINE_JOB}/chk-5"], {0}),
    ("positions", ["positions", CHK2], {0}),
    ("diff", ["diff", f"{ENGINE}/{ENGINE_JOB}/chk-4", f"{ENGINE}/{ENGINE_JOB}/chk-5",
              "--no-state-sizes"], {1}),
]


def load_schemas(docs):
    schemas = {}
    for name in sorted(os.listdir(docs)):
        if name.endswith(".schema.json"):
            with open(os.path.join(docs, name)) as f:
                schemas[name] = json.load(f)
    return schemas


def make_validator(schemas, name):
    schema = schemas[name]
    jsonschema.Draft202012Validator.check_schema(schema)
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
        registry = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in schemas.values())
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:
        store = {s["$id"]: s for s in schemas.values()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            resolver = jsonschema.RefResolver(schema["$id"], schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


def main():
    tool, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    schemas = load_schemas(os.path.join(source, "docs", "json"))
    failures = 0
    checked = 0
    scratch = tempfile.mkdtemp(prefix="ckpt-json-schema-")
    for name, args, codes in RUNS:
        args = [a.replace("@TMP@", scratch) for a in args]
        validator = make_validator(schemas, name + ".schema.json")
        run = subprocess.run([tool, *args, "--format", "json"], cwd=os.path.join(source, "fixtures"),
                             capture_output=True, text=True)
        label = " ".join(args)
        if run.returncode not in codes:
            print(f"FAIL {label}: exit {run.returncode}, expected {sorted(codes)}: {run.stderr}")
            failures += 1
            continue
        lines = [l for l in run.stdout.splitlines() if l.strip()]
        if not lines:
            print(f"FAIL {label}: no JSON output")
            failures += 1
        for n, line in enumerate(lines, 1):
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as e:
                print(f"FAIL {label}: line {n} is not JSON ({e}): {line[:200]}")
                failures += 1
                continue
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            for e in errors[:3]:
                print(f"FAIL {label}: line {n}: {e.message} at {list(e.absolute_path)}")
            failures += 1 if errors else 0
            checked += 1
    # prune --yes --verify deletes: it runs on a copy, and its verification lines must validate.
    copy = os.path.join(scratch, "prune-verify-root")
    shutil.copytree(os.path.join(source, "fixtures", "v1", "checkpoints"), copy)
    prune = make_validator(schemas, "prune.schema.json")
    run = subprocess.run([tool, "prune", copy, "--keep-last", "1", "--yes", "--verify",
                          "--min-orphan-age", "0s", "--format", "json"],
                         capture_output=True, text=True)
    verified = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    if run.returncode != 0 or not any("verified" in doc for doc in verified):
        print(f"FAIL prune --yes --verify: exit {run.returncode}, no verified line: {run.stderr}")
        failures += 1
    for doc in verified:
        errors = list(prune.iter_errors(doc))
        for e in errors[:3]:
            print(f"FAIL prune --yes --verify: {e.message} at {list(e.absolute_path)}")
        failures += 1 if errors else 0
        checked += 1
    # The schemas must be able to fail: protobuf-style JSON (camelCase, enum names, base64 IDs,
    # int64 as strings) is rejected.
    show = make_validator(schemas, "show.schema.json")
    raw = {"formatVersion": 1, "kind": "SAVEPOINT", "jobId": "GissTV5vcIGSo7TF1uf4AQ==",
           "checkpointId": "42"}
    if show.is_valid(raw):
        print("FAIL: show.schema.json accepts protobuf JSON")
        failures += 1
    dump = make_validator(schemas, "dump.schema.json")
    if dump.is_valid({"operator_id": "A2469328B540934507249CBF9B294C51", "operator": "x",
                      "state": "s", "kind": "value"}):
        print("FAIL: dump.schema.json accepts an upper-case ID")
        failures += 1
    positions = make_validator(schemas, "positions.schema.json")
    if positions.is_valid({"operators": [{"operator_id": "a2469328b540934507249cbf9b294c51",
                                          "operator": "x", "uid": None, "name": None,
                                          "connector": "kafka-source", "processed_paths": [],
                                          "sink": None, "splits": [{"next_offset": "42"}]}],
                           "findings": []}):
        print("FAIL: positions.schema.json accepts an offset as a string")
        failures += 1
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{checked} JSON lines checked against {len(schemas)} schemas, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
