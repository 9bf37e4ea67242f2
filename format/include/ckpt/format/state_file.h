// Constants and plain types of the state-file container: header, checksummed zstd blocks and a
// footer index of sections (key groups, operator states, channels). Byte grammar:
// format/docs/state-files.md. Plain data; thread-safe to read.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ckpt/format/proto.h"

namespace ckpt::format {

inline constexpr std::string_view kStateFileMagic{"CKPTSTAT", 8};
inline constexpr uint16_t kStateFileVersion = 1;
inline constexpr size_t kStateFileHeaderSize = 16;
inline constexpr size_t kBlockHeaderSize = 24;
inline constexpr size_t kStateFileTrailerSize = 32;
// No block decompresses to more than this; larger records are refused by the writer.
inline constexpr uint32_t kMaxBlockRawBytes = 256u << 20;

// One block as recorded in the footer index.
struct BlockInfo {
  uint64_t file_offset = 0;     // where the block header starts
  uint32_t stored_length = 0;   // bytes after the block header (compressed or not)
  uint32_t raw_length = 0;      // bytes after decompression
  uint32_t record_count = 0;
  uint64_t logical_offset = 0;  // offset of the block's first byte in the record stream
  uint64_t checksum = 0;        // XXH3-64 over the block header's first 16 bytes and stored bytes
};

// One section (key group, operator state, channel...) as recorded in the footer index.
struct SectionInfo {
  uint32_t section_id = 0;      // key group for KEYED_STATE; writer-defined otherwise
  uint64_t logical_offset = 0;  // offset of the section's first record
  uint64_t length = 0;          // logical bytes of the section's records (with their prefixes)
  uint64_t record_count = 0;
};

// The whole footer index.
struct StateFileIndex {
  pb::FileKind kind = pb::FILE_KIND_UNSPECIFIED;
  pb::Compression compression = pb::COMPRESSION_UNSPECIFIED;
  std::vector<BlockInfo> blocks;      // in file order
  std::vector<SectionInfo> sections;  // ascending section_id, ascending logical offsets
  uint64_t total_records = 0;
  uint64_t logical_size = 0;          // total bytes of the record stream
};

// A record as seen by an iterator. `bytes` stays valid until the iterator's next call.
struct RecordRef {
  uint32_t section_id = 0;
  uint64_t logical_offset = 0;  // of the record's length prefix
  std::string_view bytes;
};

}  // namespace ckpt::format
