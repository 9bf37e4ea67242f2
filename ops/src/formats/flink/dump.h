// Private to ckpt::ops: dump of an Apache Flink snapshot. Keyed state of canonical savepoints
// (full key-group streams) is decoded entry by entry, keys and values through the serializer
// snapshots of the keyed-state meta information; a part whose serializer is not a built-in one is
// shown as {"serializer": class, "bytes": "0x..."} — never a guessed value.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
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

// stats --ttl-expired-at over the dump of one operator: each TTL-wrapped value of a keyed entry
// (TtlStateFactory$TtlSerializer: a value, a list element, a map value) reports its last-access
// timestamp and its serialized bytes (timestamp and user value) through `value`. States whose
// values are TTL-wrapped (by the serializer snapshots of the stream's meta information) are added
// to `ttl_states` even when they hold no entry. `unknown` says which TTL values could not be read.
struct FlinkTtlScan {
  std::set<std::string> ttl_states;
  std::function<void(const std::string& state, int64_t last_access, uint64_t bytes)> value;
  std::string unknown;
};

base::Result<uint64_t> DumpFlink(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                                 const DumpSink& sink, const base::Progress& progress,
                                 FlinkKeySizing* sizing = nullptr, FlinkTtlScan* ttl = nullptr);

}  // namespace ckpt::ops::internal
