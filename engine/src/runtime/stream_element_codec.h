// The wire encoding of stream elements inside network buffers, for the runtime's Record: the
// codec itself is ckpt/format/stream_element.h (documented there and in FORMAT.md, since
// unaligned checkpoints persist these bytes verbatim as channel state and ckpt-tool decodes
// them). On the wire each element is a frame (u32 LE length + these bytes, record_writer.h)
// that may span buffers. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/status.h"
#include "ckpt/engine/record.h"
#include "ckpt/format/stream_element.h"

namespace ckpt::engine::runtime {

using format::kRecordTag;
using format::kWatermarkTag;
static_assert(format::kNoElementTimestamp == kNoTimestamp);

namespace codec_internal {
// LEB128 of zigzag(v) into `p`; returns the end (at most 10 bytes).
inline char* PutZigZagVarint(int64_t v, char* p) {
  uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (u >= 0x80) {
    *p++ = static_cast<char>((u & 0x7f) | 0x80);
    u >>= 7;
  }
  *p++ = static_cast<char>(u);
  return p;
}
// The inverse, at most 10 bytes of `in`; false if the varint does not end there.
inline bool GetZigZagVarint(std::string_view* in, int64_t* v) {
  uint64_t u = 0;
  const size_t n = in->size() < 10 ? in->size() : 10;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = static_cast<uint8_t>((*in)[i]);
    u |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      in->remove_prefix(i + 1);
      *v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
      return true;
    }
  }
  return false;
}
// Value type tag of int64 (stream_element.h).
inline constexpr char kInt64ValueTag = 1;
}  // namespace codec_internal

// A record of an int64 key and an int64 value (the keyed aggregates' input) is written here,
// byte for byte what format::AppendRecordElement writes, in one append; others go there.
inline void AppendRecordElement(const Record& record, std::string* out) {
  const int64_t* key = std::get_if<int64_t>(&record.key.v);
  const int64_t* value = std::get_if<int64_t>(&record.value.v);
  if (key == nullptr || value == nullptr) {
    format::AppendRecordElement(record.key, record.value, record.timestamp, out);
    return;
  }
  char bytes[2 + 10 + 2 * 11];
  char* p = bytes;
  *p++ = static_cast<char>(kRecordTag);
  if (record.timestamp == kNoTimestamp) {
    *p++ = 0;
  } else {
    *p++ = 1;
    p = codec_internal::PutZigZagVarint(record.timestamp, p);
  }
  *p++ = codec_internal::kInt64ValueTag;
  p = codec_internal::PutZigZagVarint(*key, p);
  *p++ = codec_internal::kInt64ValueTag;
  p = codec_internal::PutZigZagVarint(*value, p);
  out->append(bytes, static_cast<size_t>(p - bytes));
}
inline void AppendWatermarkElement(int64_t watermark, std::string* out) {
  format::AppendWatermarkElement(watermark, out);
}

// Decodes the element at the front of `*in`, advancing it. Exactly one of `record`/`watermark`
// is set (returns the tag). Corruption on malformed bytes.
// A record of an int64 key and value is read here, in place into `record`'s int64 alternatives;
// anything else (and anything malformed, for its error) by format::DecodeStreamElement.
inline base::Result<uint8_t> DecodeElement(std::string_view* in, Record* record,
                                           int64_t* watermark) {
  std::string_view rest = *in;
  int64_t ts = kNoTimestamp, key = 0, value = 0;
  if (rest.size() >= 6 && static_cast<uint8_t>(rest[0]) == kRecordTag &&
      (rest[1] == 0 || rest[1] == 1)) {
    const bool has_ts = rest[1] == 1;
    rest.remove_prefix(2);
    if ((!has_ts || codec_internal::GetZigZagVarint(&rest, &ts)) && rest.size() >= 2 &&
        rest[0] == codec_internal::kInt64ValueTag) {
      rest.remove_prefix(1);
      if (codec_internal::GetZigZagVarint(&rest, &key) && rest.size() >= 2 &&
          rest[0] == codec_internal::kInt64ValueTag) {
        rest.remove_prefix(1);
        if (codec_internal::GetZigZagVarint(&rest, &value)) {
          record->key.v = key;
          record->value.v = value;
          record->timestamp = has_ts ? ts : kNoTimestamp;
          *in = rest;
          return kRecordTag;
        }
      }
    }
  }
  return format::DecodeStreamElement(in, &record->key, &record->value, &record->timestamp,
                                     watermark);
}

}  // namespace ckpt::engine::runtime
