// Key encoding of records: natural types and the format's value encoding, with fast paths for
// the common int64 and string keys (the hash partitioner runs this once per record).
#include "ckpt/engine/record.h"

#include <type_traits>

#include "ckpt/base/murmur3.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/value_codec.h"

namespace ckpt::engine {
namespace {

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace

base::Result<pb::TypeDescriptor> KeyTypeOf(const format::Value& key) {
  return std::visit(
      [](const auto& x) -> base::Result<pb::TypeDescriptor> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          return format::types::Int64();
        } else if constexpr (std::is_same_v<T, std::string>) {
          return format::types::String();
        } else if constexpr (std::is_same_v<T, format::Bytes>) {
          return format::types::Bytes();
        } else if constexpr (std::is_same_v<T, bool>) {
          return format::types::Bool();
        } else if constexpr (std::is_same_v<T, double>) {
          return format::types::Double();
        } else if constexpr (std::is_same_v<T, format::Tuple>) {
          std::vector<pb::TypeDescriptor> fields;
          for (const format::Value& f : x.fields) {
            CKPT_ASSIGN_OR_RETURN(pb::TypeDescriptor t, KeyTypeOf(f));
            fields.push_back(std::move(t));
          }
          return format::types::Tuple(std::move(fields));
        } else {
          return base::Status::InvalidArgument(
              "record key has no natural type (keys must be int64, string, bytes, bool, double "
              "or a tuple of those)");
        }
      },
      key.v);
}

base::Status EncodeRecordKey(const format::Value& key, std::string* out) {
  if (const int64_t* i = std::get_if<int64_t>(&key.v)) {
    // INT64: zig-zag varint (format/docs/values.md).
    AppendVarint((static_cast<uint64_t>(*i) << 1) ^ static_cast<uint64_t>(*i >> 63), out);
    return base::Status::OK();
  }
  if (const std::string* s = std::get_if<std::string>(&key.v)) {
    AppendVarint(s->size(), out);
    out->append(*s);
    return base::Status::OK();
  }
  CKPT_ASSIGN_OR_RETURN(pb::TypeDescriptor type, KeyTypeOf(key));
  return format::EncodeValue(type, key, out);
}

uint32_t KeyGroupOfEncodedKey(std::string_view encoded_key, uint32_t max_parallelism) {
  // Twice per record (the hash partitioner, the keyed operator): for a power-of-two max
  // parallelism (Flink's default 128) the remainder is a mask, not a 64-bit division; the same
  // number as format::KeyGroupForKey (tested).
  if ((max_parallelism & (max_parallelism - 1)) == 0) {
    return static_cast<uint32_t>(base::Murmur3X64_64(encoded_key, 0) & (max_parallelism - 1));
  }
  return format::KeyGroupForKey(encoded_key, max_parallelism);
}

}  // namespace ckpt::engine
