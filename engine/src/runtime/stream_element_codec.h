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

inline void AppendRecordElement(const Record& record, std::string* out) {
  format::AppendRecordElement(record.key, record.value, record.timestamp, out);
}
inline void AppendWatermarkElement(int64_t watermark, std::string* out) {
  format::AppendWatermarkElement(watermark, out);
}

// Decodes the element at the front of `*in`, advancing it. Exactly one of `record`/`watermark`
// is set (returns the tag). Corruption on malformed bytes.
inline base::Result<uint8_t> DecodeElement(std::string_view* in, Record* record,
                                           int64_t* watermark) {
  return format::DecodeStreamElement(in, &record->key, &record->value, &record->timestamp,
                                     watermark);
}

}  // namespace ckpt::engine::runtime
