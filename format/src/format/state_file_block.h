// Private: loads one block of a state-file container — one positional read, header and
// checksum checks against the footer index, zstd decompression into a reused buffer with a
// reused ZSTD_DCtx. Not thread-safe: one per iterator.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/state_file.h"
#include "state_file_format.h"

struct ZSTD_DCtx_s;

namespace ckpt::format::internal {

// A growable byte buffer that does not zero what it hands out (decompression overwrites it).
class ScratchBuffer {
 public:
  char* Reserve(size_t n);
  char* data() const { return data_.get(); }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
};

// Checks a block header read from disk (24 bytes at `header_bytes`) against its index entry:
// reserved bytes, lengths, record count, checksum field, codec. Corruption naming the block.
base::Status CheckBlockHeader(const std::string& path, size_t block_index, const BlockInfo& info,
                              pb::Compression file_compression, const char* header_bytes);
// Corruption naming the block unless `actual` (the computed XXH3) equals the indexed checksum.
base::Status CheckBlockChecksum(const std::string& path, size_t block_index,
                                const BlockInfo& info, uint64_t actual);

class BlockReader {
 public:
  BlockReader(const base::RandomAccessFile& file, pb::Compression file_compression);
  ~BlockReader();
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;

  // Reads, verifies and decompresses block `block_index`; the view stays valid until the next
  // Load. Corruption naming the file and block on any mismatch; IOError from the file.
  base::Result<std::string_view> Load(size_t block_index, const BlockInfo& info);

 private:
  const base::RandomAccessFile& file_;
  const pb::Compression file_compression_;
  ZSTD_DCtx_s* dctx_ = nullptr;
  BlockHasher hasher_;
  ScratchBuffer stored_;
  ScratchBuffer raw_;
};

}  // namespace ckpt::format::internal
