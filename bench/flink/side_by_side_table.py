#!/usr/bin/env python3
"""The table of bench/flink/run_side_by_side.sh: ratios of numbers measured in the same run.

side_by_side_table.py RESULTS WORK_DIR RECORDS NPROC LOADAVG
RESULTS has lines "NAME wall_s user_s sys_s" (/usr/bin/time); WORK_DIR holds flink.log (its
RESULT line) and keyed_engine-cp.json / keyed_engine_paced-cp.json (ckpt-engine's last
/jobs/:id/checkpoints answer at full speed, and at the pace of Flink's job).
"""
import json
import os
import re
import statistics
import sys

res_path, work, records, nproc, load = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
runs = {}
for line in open(res_path):
    name, wall, user, sys_ = line.split()
    runs.setdefault(name, []).append((float(wall), float(user) + float(sys_)))
# A name measured more than once (the remaps) shows the median wall and the median CPU.
t = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
     for name, r in runs.items()}

print(f"machine: {nproc} cores, load average (1/5/15 min) at the end: {load}")
if "remap_ckpt" in t:
    (cw, cc), (sw, sc) = t["remap_ckpt"], t["remap_spa"]
    print(f"\n1. remap of a 10,000-subtask Flink savepoint (whole process, median of "
          f"{len(runs['remap_ckpt'])} runs each, taking turns)")
    print(f"{'':44}{'wall s':>9}{'CPU s':>9}")
    print(f"{'ckpt-tool remap':44}{cw:9.2f}{cc:9.2f}")
    print(f"{'State Processor API changeOperatorIdentifier':44}{sw:9.2f}{sc:9.2f}")
    rw, rc = sw / cw, sc / max(cc, 1e-3)
    print(f"ratio SPA / ckpt-tool: wall {rw:.1f}x, CPU {rc:.1f}x "
          f"(target >= 20x: {'met' if rw >= 20 else 'NOT met'})")

if "keyed_engine" in t:
    (ew, ec), (fw, fc) = t["keyed_engine"], t["keyed_flink"]
    m = re.search(r"^RESULT (.*)$", open(os.path.join(work, "flink.log")).read(), re.M)
    f = dict(kv.split("=") for kv in m.group(1).split()) if m else {}
    net = int(f.get("net_runtime_ms", "0")) / 1000.0
    def checkpoints(name):
        path = os.path.join(work, name + "-cp.json")
        e = json.load(open(path)) if os.path.exists(path) else {}
        return e, e.get("summary", {}).get("end_to_end_duration", {}), e.get("summary", {}).get("state_size", {})
    e, ee, es = checkpoints("keyed_engine")
    print(f"\n2. keyed-sum, {records} records, parallelism 2, heap, checkpoint every 1 s")
    print(f"{'':30}{'wall s':>9}{'CPU s':>9}{'rec/s':>12}{'rec/CPU-s':>12}{'ckpts':>7}{'e2e avg ms':>11}{'e2e max ms':>11}{'state avg B':>12}")
    print(f"{'ckpt-engine (whole process)':30}{ew:9.2f}{ec:9.2f}{records / ew:12.0f}{records / ec:12.0f}"
          f"{e.get('counts', {}).get('completed', '?'):>7}{ee.get('avg', '?'):>11}{ee.get('max', '?'):>11}{es.get('avg', '?'):>12}")
    print(f"{'Flink MiniCluster (process)':30}{fw:9.2f}{fc:9.2f}{records / fw:12.0f}{records / fc:12.0f}"
          f"{f.get('completed', '?'):>7}{f.get('e2e_avg_ms', '?'):>11}{f.get('e2e_max_ms', '?'):>11}{f.get('state_size_avg', '?'):>12}")
    if net > 0:
        print(f"{'Flink job net runtime only':30}{net:9.2f}{'':9}{records / net:12.0f}")
    if "keyed_engine_paced" in t:
        pw, pc = t["keyed_engine_paced"]
        p, pe, ps = checkpoints("keyed_engine_paced")
        print(f"{'ckpt-engine at Flink net pace':30}{pw:9.2f}{pc:9.2f}{records / pw:12.0f}{records / pc:12.0f}"
              f"{p.get('counts', {}).get('completed', '?'):>7}{pe.get('avg', '?'):>11}{pe.get('max', '?'):>11}{ps.get('avg', '?'):>12}")
        if not ee.get("avg"):
            ee = pe  # the full-speed run ended before its first checkpoint
    per_core = (records / ec) / (records / fc)
    print(f"ratio ckpt-engine / Flink: records/s (whole process) {fw / ew:.2f}x, "
          f"records per CPU-second {per_core:.2f}x (target >= 2x per core: {'met' if per_core >= 2 else 'NOT met'})")
    if ee.get("avg") and f.get("e2e_avg_ms") and int(f["e2e_avg_ms"]) > 0:
        print(f"checkpoint end-to-end avg on the same state: ckpt-engine {ee['avg']} ms vs Flink {f['e2e_avg_ms']} ms "
              f"(ratio Flink / ckpt-engine {int(f['e2e_avg_ms']) / max(float(ee['avg']), 1e-3):.2f}x)")
