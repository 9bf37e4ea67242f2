// The wire encoding of stream elements inside network buffers (runtime-internal; never on disk):
//   element   = u8 tag, then
//     tag 1 (record):    u8 flags (bit 0: has timestamp) [zigzag varint timestamp] key value
//     tag 2 (watermark): zigzag varint watermark
//   value     = u8 type tag, payload: 0 void | 1 int64 zigzag varint | 2 double 8 bytes LE |
//               3 bool u8 | 4 string varint len + bytes | 5 bytes (as string) |
//               6 tuple varint n + n values | 7 list (as tuple) | 8 map varint n + n key/value |
//               9 proto (as string)
// On the wire each element is a frame (u32 LE length + these bytes, record_writer.h) that may
// span buffers. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/status.h"
#include "ckpt/engine/record.h"

namespace ckpt::engine::runtime {

inline constexpr uint8_t kRecordTag = 1;
inline constexpr uint8_t kWatermarkTag = 2;

void AppendRecordElement(const Record& record, std::string* out);
void AppendWatermarkElement(int64_t watermark, std::string* out);

// Decodes the element at the front of `*in`, advancing it. Exactly one of `record`/`watermark`
// is set (returns the tag). Internal error on malformed bytes (our own encoder wrote them).
base::Result<uint8_t> DecodeElement(std::string_view* in, Record* record, int64_t* watermark);

}  // namespace ckpt::engine::runtime
