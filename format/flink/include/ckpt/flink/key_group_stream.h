// The key-group sections of a Flink full (canonical savepoint) snapshot stream, as
// FullSnapshotAsyncWriter writes them after the keyed backend meta information: per key group,
// i16 kvStateId, then (bytes key, bytes value) pairs; a key whose first byte has bit 0x80 set
// (META_DATA_FOLLOWS) is followed by i16 = the next kvStateId or 0xFFFF (end of key group).
// Keys are RocksDB-style: key-group prefix (1 byte if maxParallelism <= 128, else 2), the
// serialized key, the serialized namespace (and for map state the user key). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"

namespace ckpt::flink {

struct KeyGroupEntry {
  uint16_t state_id = 0;   // index into KeyedBackendMeta::states
  std::string key;         // with the META_DATA_FOLLOWS bit cleared
  std::string_view value;
  uint64_t offset = 0;     // byte offset of the entry in the stream
};

using KeyGroupSink = std::function<base::Status(const KeyGroupEntry&)>;

// Reads the key group starting at `offset` of the uncompressed `stream` until its end mark.
// Corruption "<file>: at byte <n>: ..." for truncation or impossible lengths.
base::Status ReadKeyGroupSection(std::string_view stream, uint64_t offset, const std::string& file,
                                 const KeyGroupSink& sink);

// True when `section` (one key group's bytes, uncompressed, from its start up to the next key
// group's) reads as the full-snapshot layout of key group `group`: every state id below
// `state_count`, every key's `prefix_bytes`-byte key-group prefix equal to `group`, and the end
// mark the section's last two bytes. Tag-3 streams hold this layout (RocksDB full snapshots) or the heap
// backend's, whose i32 key-group id reads, for key group 0, like the start of this one; this
// tells them apart where that id cannot.
bool IsFullLayoutSection(std::string_view section, uint32_t group, int prefix_bytes, size_t state_count);

// The number of key-group prefix bytes Flink uses for `max_parallelism`.
inline int KeyGroupPrefixBytes(int32_t max_parallelism) { return max_parallelism > 128 ? 2 : 1; }

}  // namespace ckpt::flink
