// Private: the byte grammar of the state-file container (format/docs/state-files.md) — header,
// block header, footer index and trailer encoders/decoders, shared by the writer and the reader.
// Pure functions; thread-safe.
#pragma once

#include "ckpt/base/checksum.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/state_file.h"

namespace ckpt::format::internal {

// The fixed 16-byte file header.
struct FileHeader {
  uint16_t version = kStateFileVersion;
  pb::FileKind kind = pb::FILE_KIND_UNSPECIFIED;
  pb::Compression compression = pb::COMPRESSION_UNSPECIFIED;
};
void EncodeFileHeader(const FileHeader& header, std::string* out);
// Checks magic, version and reserved bytes. Corruption / Unimplemented (newer version), each
// naming `path`. `bytes` must hold kStateFileHeaderSize bytes.
base::Result<FileHeader> DecodeFileHeader(std::string_view bytes, const std::string& path);

// The fixed 24-byte block header.
struct BlockHeader {
  uint32_t stored_length = 0;
  uint32_t raw_length = 0;
  uint32_t record_count = 0;
  pb::Compression codec = pb::COMPRESSION_NONE;
  uint64_t checksum = 0;
};
// Writes the first 16 bytes (everything the checksum covers) into `out[0..16)`.
void EncodeBlockHeaderPrefix(const BlockHeader& header, char* out);
// Decodes all 24 bytes; false if the reserved bytes are not zero.
bool DecodeBlockHeader(const char* bytes, BlockHeader* header);

// The fixed 32-byte trailer.
struct Trailer {
  uint64_t index_offset = 0;
  uint64_t index_length = 0;
  uint64_t index_checksum = 0;
};
void EncodeTrailer(const Trailer& trailer, std::string* out);
// Checks the magic and that the index lies between the header and the trailer of a file of
// `file_size` bytes. Corruption naming `path`.
base::Result<Trailer> DecodeTrailer(std::string_view bytes, uint64_t file_size,
                                    const std::string& path);

void EncodeIndex(const StateFileIndex& index, std::string* out);
// Decodes the index and checks it against the file: blocks contiguous from the header to
// `index_offset`, logical offsets consistent, sections ascending and covering the record stream.
// Every count is bounded by the bytes left before anything is allocated. Corruption naming
// `path`.
base::Result<StateFileIndex> DecodeIndex(std::string_view bytes, const FileHeader& header,
                                         uint64_t index_offset, const std::string& path);

// XXH3-64 over a block header's first 16 bytes followed by its stored bytes, fed in pieces.
class BlockHasher {
 public:
  void Reset(const char* header16);
  void Update(const char* data, size_t n);
  uint64_t Digest() const { return stream_.Digest(); }

 private:
  base::Xxh3Stream stream_;
};

// "state file <path>: " — the prefix of every Corruption message.
std::string Where(const std::string& path);
std::string WhereBlock(const std::string& path, size_t block, uint64_t file_offset);

}  // namespace ckpt::format::internal
