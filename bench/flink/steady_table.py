#!/usr/bin/env python3
"""The table of bench/flink/run_steady_state.sh: steady and whole-process numbers of both sides.

steady_table.py WORK NPROC LOAD_BEFORE LOAD_AFTER WARM_FRACTION END_FRACTION PROFILE
WORK holds "configs" (lines "NAME JOB BACKEND P INTERVAL_MS RECORDS") and, per configuration and
side (engine, flink), NAME.SIDE.samples (steady_sampler.py), NAME.SIDE.time ("wall user sys" of
the whole process, /usr/bin/time) and NAME.SIDE.log (Flink's RESULT line).
Mark A = the first sample at or after WARM_FRACTION of the records emitted by the sources, mark B
= the last sample at or before END_FRACTION of them; steady rec/s and rec/CPU-s are between A and
B. Start-up = process start to the first sample with a record emitted; warm-up = from there to A.
"""
import os
import sys

work, nproc, load_before, load_after = sys.argv[1:5]
warm, end, profile = float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]

# Targets of the issue, ckpt-engine / Flink: (records per CPU-second, records per second).
TARGETS = {("keyed-sum", "heap"): (2.0, 1.5), ("keyed-sum", "rocksdb"): (1.5, None),
           ("window", "heap"): (1.5, None), ("join", "heap"): (1.5, None)}


def measure(name, records):
    samples = []
    with open(os.path.join(work, name + ".samples")) as f:
        for line in f:
            parts = line.split()
            if parts[0] != "START":
                samples.append(tuple(float(x) for x in parts))
    wall, user, sys_ = (float(x) for x in open(os.path.join(work, name + ".time")).read().split())
    m = {"wall": wall, "cpu": user + sys_, "samples": len(samples)}
    first = next((s for s in samples if s[1] > 0), None)
    a = next((s for s in samples if s[1] >= warm * records), None)
    b = next((s for s in reversed(samples) if s[1] <= end * records), None)
    if first and a and b and b[0] - a[0] > 0 and b[2] - a[2] > 0:
        m.update(startup=first[0], warmup=a[0] - first[0], steady_s=b[0] - a[0], steady_records=b[1] - a[1],
                 rate=(b[1] - a[1]) / (b[0] - a[0]), per_cpu=(b[1] - a[1]) / (b[2] - a[2]),
                 cores=(b[2] - a[2]) / (b[0] - a[0]))
    return m


def fmt(v, spec):
    return format(v, spec) if v is not None else format("?", ">" + spec.split(".")[0])


print(f"machine: {nproc} cores, Flink profile {profile}; load average (1/5/15 min) before: {load_before}, "
      f"after: {load_after}")
print(f"steady = between the samples at {warm:.0%} and {end:.0%} of the source records "
      f"(numRecordsOut over REST + /proc CPU, 0.25 s samples)")
hdr = (f"{'configuration':<22}{'side':<8}{'records':>10}{'start s':>8}{'warm s':>8}{'steady s':>9}"
       f"{'steady rec/s':>13}{'rec/CPU-s':>11}{'cores':>6}{'| whole: wall s':>15}{'CPU s':>7}{'rec/s':>10}{'rec/CPU-s':>10}")
print(hdr)
ratios = []
for line in open(os.path.join(work, "configs")):
    name, job, backend, p, ival, records = line.split()
    records = int(records)
    for side in ("engine", "flink"):
        m = measure(f"{name}.{side}", records)
        print(f"{name:<22}{side:<8}{records:>10}{fmt(m.get('startup'), '8.2f')}{fmt(m.get('warmup'), '8.2f')}"
              f"{fmt(m.get('steady_s'), '9.2f')}{fmt(m.get('rate'), '13.0f')}{fmt(m.get('per_cpu'), '11.0f')}"
              f"{fmt(m.get('cores'), '6.2f')}{m['wall']:15.2f}{m['cpu']:7.2f}{records / m['wall']:10.0f}"
              f"{records / max(m['cpu'], 1e-3):10.0f}")
        if side == "engine":
            e = m
        else:
            f = m
    ratios.append((name, job, backend, e, f, records))

print("\nratios ckpt-engine / Flink (steady; whole process in brackets) and the targets:")
for name, job, backend, e, f, records in ratios:
    cpu_target, rate_target = TARGETS.get((job, backend), (None, None))
    whole_rate = f["wall"] / e["wall"]
    whole_cpu = f["cpu"] / max(e["cpu"], 1e-3)
    if "rate" not in e or "rate" not in f:
        print(f"  {name:<22} steady part not measured (too few samples between the marks: "
              f"{e['samples']} / {f['samples']} samples); whole process rec/s {whole_rate:.2f}x, "
              f"rec/CPU-s {whole_cpu:.2f}x")
        continue
    rate, per_cpu = e["rate"] / f["rate"], e["per_cpu"] / f["per_cpu"]
    verdict = []
    if cpu_target:
        verdict.append(f"rec/CPU-s >= {cpu_target}x: {'met' if per_cpu >= cpu_target else 'NOT met'}")
    if rate_target:
        verdict.append(f"rec/s >= {rate_target}x: {'met' if rate >= rate_target else 'NOT met'}")
    print(f"  {name:<22} rec/s {rate:6.2f}x ({whole_rate:.2f}x)   rec/CPU-s {per_cpu:6.2f}x ({whole_cpu:.2f}x)"
          f"   {'; '.join(verdict) if verdict else 'no target'}")

print("\nFlink's RESULT lines (net runtime without the MiniCluster start; checkpoints; records the window or join emitted):")
for name, *_ in ratios:
    log = open(os.path.join(work, f"{name}.flink.log"), errors="replace").read()
    result = next((l for l in log.splitlines() if l.startswith("RESULT ")), "RESULT ?")
    print(f"  {name:<22} {result[7:]}")
