// Private to ckpt::ops: dump of an Apache Flink snapshot. Keyed state of canonical savepoints
// (full key-group streams) is decoded entry by entry, keys and values through the serializer
// snapshots of the keyed-state meta information; a part whose serializer is not a built-in one is
// shown as {"serializer": class, "bytes": "0x..."} — never a guessed value.
#pragma once

#include "ckpt/ops/dump.h"

namespace ckpt::ops::internal {

base::Result<uint64_t> DumpFlink(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                                 const DumpSink& sink, const base::Progress& progress);

}  // namespace ckpt::ops::internal
