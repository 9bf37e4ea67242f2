// Private to ckpt::ops: dump of an Apache Flink snapshot. Keyed state of canonical savepoints
// (full key-group streams) is decoded entry by entry, keys and values through the serializer
// snapshots of the keyed-state meta information; a part whose serializer is not a built-in one is
// shown as {"serializer": class, "bytes": "0x..."} — never a guessed value.
#pragma once

#include <string>
#include <vector>

#include "ckpt/ops/dump.h"
#include "read/key_tally.h"

namespace ckpt::ops::internal {

// stats --top-keys over the dump of one operator: each keyed entry's serialized bytes (key,
// namespace, map key and value as the stream holds them, without the key-group prefix) go to
// `tally` under the entry's key JSON, and full-layout values (whose length is recorded) are not
// decoded. Entries whose bytes cannot be attributed to a key are not tallied: `unknown` then
// says why.
struct FlinkKeySizing {
  KeyTally* tally = nullptr;
  std::vector<std::string> states;  // the operator's declared state names, in order
  std::string unknown;
};

base::Result<uint64_t> DumpFlink(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                                 const DumpSink& sink, const base::Progress& progress,
                                 FlinkKeySizing* sizing = nullptr);

}  // namespace ckpt::ops::internal
