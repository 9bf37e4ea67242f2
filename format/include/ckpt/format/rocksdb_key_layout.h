// The byte layout of the engine's RocksDB keyed state (FORMAT.md "RocksDB native keyed state"):
// keys of every column family, LIST values, and the list merge operator's semantics. Written by
// the engine's RocksDB backend, read by the tools from the SSTs of a native snapshot. Pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"

namespace ckpt::format::rocksdb_layout {

// Key: key group (2 bytes big-endian) | escaped key | escaped namespace | user key (MAP only).
// Escaping keeps the byte order of (key, namespace) pairs: 0x00 -> 0x00 0xFF, end -> 0x00 0x01,
// so all keys of a key group, and of a (key group, key, namespace), are contiguous.
void AppendKeyGroup(uint32_t key_group, std::string* out);
void AppendEscaped(std::string_view bytes, std::string* out);

struct ParsedKey {
  uint32_t key_group = 0;
  std::string key;
  std::string ns;
  std::string_view user_key;  // into the parsed bytes
};
// False if `bytes` is not a key of this layout (too short, a bad escape, no terminator).
bool ParseStateKey(std::string_view bytes, ParsedKey* out);

// The smallest key of key group `key_group` (the exclusive end of the range before it); past
// every key group for `key_group` > 0xFFFF.
std::string KeyGroupStart(uint32_t key_group);

// Name of the LIST merge operator: it appends the operand's bytes to the stored bytes.
inline constexpr std::string_view kListMergeOperatorName = "ckpt.ListAppend";

// LIST values: concatenated encoded elements. Decodes into a format::List value; Corruption
// naming `state` if the bytes do not decode.
base::Result<format::Value> DecodeListValue(const pb::TypeDescriptor& element_type,
                                            std::string_view bytes, const std::string& state);

}  // namespace ckpt::format::rocksdb_layout
