// Writes the key-group sections of a Flink full snapshot stream (the canonical savepoint format
// FullSnapshotAsyncWriter writes, read back by FullSnapshotRestoreOperation and by
// ReadKeyGroupSection): per non-empty key group, i16 kvStateId, then (i32 length, key bytes,
// i32 length, value bytes) pairs ordered by state id; the last key of each state run carries
// META_DATA_FOLLOWS (0x80 in its first byte) and is followed by the next state id or 0xFFFF
// (end of key group). With `compressed` each section is one Snappy framed stream (as Flink's
// SnappyStreamCompressionDecorator writes). Not thread-safe (a buffer being filled).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/status.h"

namespace ckpt::flink {

struct KeyGroupWriteEntry {
  uint16_t state_id = 0;
  std::string key;    // the full RocksDB-style key (key-group prefix first), flag bit clear
  std::string value;
};

class KeyGroupStreamWriter {
 public:
  // `head`: the bytes before the first section (the KeyedBackendSerializationProxy).
  KeyGroupStreamWriter(std::string head, bool compressed)
      : out_(std::move(head)), compressed_(compressed) {}

  // Appends one key group's section (entries in any order; they are sorted by state id, then
  // key bytes) and returns its offset in the stream, or 0 for no entries (Flink's "empty").
  // InvalidArgument for an empty key, a key whose first byte has the flag bit set, a state id
  // of 0xFFFF, or a key or value over 2^31-1 bytes.
  base::Status AddKeyGroup(std::vector<KeyGroupWriteEntry> entries, int64_t* offset);

  const std::string& bytes() const { return out_; }
  std::string Release() { return std::move(out_); }

 private:
  std::string out_;
  bool compressed_;
};

// `plain` as a Snappy framed stream: the stream identifier, then one compressed chunk (or
// uncompressed, where Snappy does not shrink it) per 64 KiB, each with its masked CRC-32C.
std::string SnappyFrame(std::string_view plain);

}  // namespace ckpt::flink
