// Record: the unit of data flowing between operators, and how a record's key is encoded and
// assigned to a key group (the same bytes the keyed state backend stores). Plain value type;
// the free functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

// Timestamp of a record that has none (Flink's Long.MIN_VALUE convention).
inline constexpr int64_t kNoTimestamp = std::numeric_limits<int64_t>::min();
// Watermark that closes all event time (end of input, drain).
inline constexpr int64_t kMaxWatermark = std::numeric_limits<int64_t>::max();

// One stream element. `key` is Void for unkeyed streams; a HASH edge routes by it and keyed
// operators see it as their current key. Operators may move from records they receive.
struct Record {
  format::Value key;
  format::Value value;
  int64_t timestamp = kNoTimestamp;

  Record() = default;
  explicit Record(format::Value v, int64_t ts = kNoTimestamp)
      : value(std::move(v)), timestamp(ts) {}
  Record(format::Value k, format::Value v, int64_t ts = kNoTimestamp)
      : key(std::move(k)), value(std::move(v)), timestamp(ts) {}
  bool operator==(const Record&) const = default;
};

// The natural type of a key: int64 -> INT64, string -> STRING, Bytes -> BYTES, bool -> BOOL,
// double -> DOUBLE, Tuple -> TUPLE of the fields' natural types. InvalidArgument for Void,
// List, Map and ProtoMessage keys (they have no stable natural type). Keyed state declares this
// type as its key type, so tools decode keys without the job's code.
base::Result<pb::TypeDescriptor> KeyTypeOf(const format::Value& key);

// Appends the encoding of `key` with its natural type (format/docs/values.md) to `out`.
// InvalidArgument as KeyTypeOf. Fast path for int64 and string keys (no allocation beyond `out`).
base::Status EncodeRecordKey(const format::Value& key, std::string* out);

// The key group of an encoded key (format::KeyGroupForKey). Requires max_parallelism > 0.
uint32_t KeyGroupOfEncodedKey(std::string_view encoded_key, uint32_t max_parallelism);

}  // namespace ckpt::engine
