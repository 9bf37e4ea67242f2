// The reference engine's wire encoding of stream elements: what its network buffers carry and,
// verbatim, what the channel state of its unaligned checkpoints persists (FORMAT.md "Channel
// state written by ckpt-engine"). A channel's byte stream is a sequence of frames
//   frame     = u32 LE length, then `length` bytes of one element (a frame may span buffers,
//               and the input and output handles of one logical channel: channel_stream.h)
//   element   = u8 tag, then
//     tag 1 (record):    u8 flags (bit 0: has timestamp) [zigzag varint timestamp] key value
//     tag 2 (watermark): zigzag varint watermark
//   value     = u8 type tag, payload: 0 void | 1 int64 zigzag varint | 2 double 8 bytes LE |
//               3 bool u8 | 4 string varint len + bytes | 5 bytes varint len + bytes |
//               6 tuple varint n + n values | 7 list varint n + n values |
//               8 map varint n + n key/value pairs | 9 proto varint len + wire bytes
// (varint: LEB128, 7 bits per byte, low group first; zigzag: (v << 1) ^ (v >> 63); nesting
// deeper than 64 values is malformed). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/value.h"

namespace ckpt::format {

inline constexpr uint8_t kRecordTag = 1;
inline constexpr uint8_t kWatermarkTag = 2;
inline constexpr size_t kStreamFrameHeaderBytes = 4;
// The timestamp of a record that has none (Flink's Long.MIN_VALUE; encoded as flags 0).
inline constexpr int64_t kNoElementTimestamp = std::numeric_limits<int64_t>::min();

// Appends one element (no frame header).
void AppendRecordElement(const Value& key, const Value& value, int64_t timestamp,
                         std::string* out);
void AppendWatermarkElement(int64_t watermark, std::string* out);

// Decodes the element at the front of `*in`, advancing it: a record sets key, value and
// timestamp, a watermark sets `watermark`; returns the tag. Corruption on malformed bytes.
// Values already held are reused (a string keeps its capacity).
base::Result<uint8_t> DecodeStreamElement(std::string_view* in, Value* key, Value* value,
                                          int64_t* timestamp, int64_t* watermark);

// The next frame of `*run` as `*element`, advancing `*run`; false once `*run` is empty.
// Corruption if `*run` ends inside a frame (its header or its bytes).
base::Result<bool> NextStreamFrame(std::string_view* run, std::string_view* element);

}  // namespace ckpt::format
