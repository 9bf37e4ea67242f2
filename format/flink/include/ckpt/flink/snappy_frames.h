// The Snappy framing format (github.com/google/snappy framing_format.txt) that Flink's
// SnappyStreamCompressionDecorator writes (xerial SnappyFramedOutputStream, 64 KiB blocks) around
// each compressed key-group section when the keyed backend meta information says `compressed`.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"

namespace ckpt::flink {

// Decompresses every chunk of `framed` (concatenated framed streams are allowed: a stream
// identifier chunk may recur, as it does where Flink closes one compressed section and opens the
// next), checking each chunk's masked CRC-32C. `file` and `base_offset` (the file offset of
// framed[0]) locate errors: Corruption "<file>: at byte <n>: ..." for a truncated chunk, a bad
// checksum, an unskippable reserved chunk type or a block larger than the format allows.
base::Result<std::string> DecompressSnappyFrames(std::string_view framed, const std::string& file,
                                                 uint64_t base_offset);

// CRC-32C (Castagnoli) of `data`, and the framing format's masked form of it.
uint32_t Crc32c(std::string_view data);
uint32_t MaskCrc32c(uint32_t crc);

}  // namespace ckpt::flink
