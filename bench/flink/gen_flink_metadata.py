#!/usr/bin/env python3
"""Writes a synthetic Apache Flink `_metadata` (version 5, as Flink 2.0 writes it) with
OPERATORS operators x SUBTASKS subtasks, each subtask holding a KEY_GROUPS_V2 keyed handle over
its key-group range (one offset per key group, relative file handle) and a partitionable
operator-state handle: the byte layout of docs/flink-format.md. Deterministic.
Usage: gen_flink_metadata.py OUT_DIR [OPERATORS=10] [SUBTASKS=1000] [MAXP=32768]"""
import struct, sys, os

out = sys.argv[1]
ops = int(sys.argv[2]) if len(sys.argv) > 2 else 10
subtasks = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
maxp = int(sys.argv[4]) if len(sys.argv) > 4 else 32768

def utf(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b

buf = [struct.pack(">iiqi", 0x4960672D, 5, 42, 0), struct.pack(">i", ops)]
for o in range(ops):
    buf.append(utf("Operator %d" % o) + utf("op-%d" % o))
    buf.append(struct.pack(">qqii", o + 1, 0x1234, subtasks, maxp))
    buf.append(b"\x00")  # no coordinator state
    buf.append(struct.pack(">i", subtasks))
    for s in range(subtasks):
        start = (s * maxp + subtasks - 1) // subtasks
        end = ((s + 1) * maxp + subtasks - 1) // subtasks - 1
        n = end - start + 1
        buf.append(struct.pack(">i", s))
        # managed operator state: one list state with one entry
        buf.append(struct.pack(">ib", 1, 4) + struct.pack(">i", 1) + utf("offsets") +
                   struct.pack(">bi", 0, 1) + struct.pack(">q", 0) +
                   b"\x06" + utf("op-%d-%d-operator" % (o, s)) + struct.pack(">q", 64))
        buf.append(struct.pack(">i", 0))  # no raw operator state
        buf.append(struct.pack(">bii", 12, start, n) + b"".join(struct.pack(">q", 512 + 16 * k) for k in range(n)))
        buf.append(b"\x06" + utf("op-%d-%d-keyed" % (o, s)) + struct.pack(">q", 512 + 16 * n))
        buf.append(utf("%08d-%08d" % (o, s)))
        buf.append(b"\x00")  # raw keyed: null
        buf.append(struct.pack(">ii", 0, 0))  # no channel state
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "_metadata"), "wb") as f:
    f.write(b"".join(buf))
