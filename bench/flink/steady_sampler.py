#!/usr/bin/env python3
"""The sampler of bench/flink/run_steady_state.sh: one process's records and CPU time over time.

steady_sampler.py PID LOG OUT [PERIOD_S]
PID is the /usr/bin/time wrapping the engine (ckpt-engine or the JVM of BenchSteady); the
measured process is its child. LOG is that process's output, where it prints
"REST endpoint: URL" and "Job ID ... started" (both sides print the same two lines). Every
PERIOD_S (default 0.25) seconds until the process ends, one line is appended to OUT:
  SECONDS_SINCE_START RECORDS CPU_SECONDS
RECORDS = numRecordsOut summed over the job's source vertices (the plan's nodes without inputs)
and their subtasks, from the REST API
(GET /jobs/:id/vertices/:vid/subtasks/metrics?get=numRecordsOut&agg=sum, the same request on
both sides); CPU_SECONDS = utime + stime of the process (all its threads, /proc/PID/stat),
read just before and just after the request and averaged, as is the time. The first line is
"START EPOCH_SECONDS" of the sampler's start (the script starts it right after the process).
"""
import json
import os
import re
import sys
import time
import urllib.request

wrapper, log, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
period = float(sys.argv[4]) if len(sys.argv) > 4 else 0.25
tick = os.sysconf("SC_CLK_TCK")
t0 = time.monotonic()


def alive(pid):
    return os.path.exists(f"/proc/{pid}")


def child_of(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except OSError:
        return None


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick  # utime, stime (fields 14, 15)


def get(url):
    with urllib.request.urlopen(url, timeout=2) as r:
        return json.load(r)


with open(out, "w") as o:
    o.write(f"START {time.time():.3f}\n")
    pid = None
    while pid is None and alive(wrapper):
        pid = child_of(wrapper)
        time.sleep(0.02)
    base = sources = None
    while pid is not None and alive(pid):
        time.sleep(period)
        try:
            if base is None:
                text = open(log, errors="replace").read()
                u = re.search(r"^REST endpoint: (\S+)", text, re.M)
                j = re.search(r"^Job ([0-9a-f]{32}) ", text, re.M)
                if not (u and j):
                    continue
                base = f"{u.group(1).rstrip('/')}/jobs/{j.group(1)}"
            if sources is None:
                nodes = get(base).get("plan", {}).get("nodes", [])
                sources = [n["id"] for n in nodes if not n.get("inputs")]
                if not sources:
                    sources = None
                    continue
            c1, w1 = cpu_seconds(pid), time.monotonic()
            records = 0.0
            for v in sources:
                answer = get(f"{base}/vertices/{v}/subtasks/metrics?get=numRecordsOut&agg=sum")
                if not answer:
                    raise ValueError("numRecordsOut not reported yet")
                records += float(answer[0]["sum"])
            c2, w2 = cpu_seconds(pid), time.monotonic()
        except (OSError, ValueError, KeyError, IndexError):
            continue  # not up yet, or the process is ending
        o.write(f"{(w1 + w2) / 2 - t0:.3f} {records:.0f} {(c1 + c2) / 2:.2f}\n")
        o.flush()
