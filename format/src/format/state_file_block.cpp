#include "state_file_block.h"

#include <zstd.h>

#include <string>

#include "ckpt/base/checksum.h"
#include "state_file_format.h"

namespace ckpt::format::internal {

using base::Status;

char* ScratchBuffer::Reserve(size_t n) {
  if (n > capacity_) {
    data_.reset(new char[n]);
    capacity_ = n;
  }
  return data_.get();
}

Status CheckBlockHeader(const std::string& path, size_t block_index, const BlockInfo& info,
                        pb::Compression file_compression, const char* header_bytes) {
  BlockHeader h;
  if (!DecodeBlockHeader(header_bytes, &h)) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "reserved block-header bytes are not zero");
  }
  if (h.stored_length != info.stored_length || h.raw_length != info.raw_length ||
      h.record_count != info.record_count || h.checksum != info.checksum) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "block header disagrees with the footer index");
  }
  if (h.codec != pb::COMPRESSION_NONE &&
      !(h.codec == pb::COMPRESSION_ZSTD && file_compression == pb::COMPRESSION_ZSTD)) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "unknown block codec " + std::to_string(h.codec));
  }
  if (h.codec == pb::COMPRESSION_NONE && h.stored_length != h.raw_length) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "uncompressed block with stored length != raw length");
  }
  return Status::OK();
}

Status CheckBlockChecksum(const std::string& path, size_t block_index, const BlockInfo& info,
                          uint64_t actual) {
  if (actual != info.checksum) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "checksum mismatch (stored " + base::ChecksumHex(info.checksum) +
                              ", computed " + base::ChecksumHex(actual) + ")");
  }
  return Status::OK();
}

BlockReader::BlockReader(const base::RandomAccessFile& file, pb::Compression file_compression)
    : file_(file), file_compression_(file_compression) {}

BlockReader::~BlockReader() {
  if (dctx_ != nullptr) ZSTD_freeDCtx(dctx_);
}

base::Result<std::string_view> BlockReader::Load(size_t block_index, const BlockInfo& info) {
  const std::string& path = file_.path();
  // The index was checked against the file size, so this allocation is bounded by the file.
  const size_t total = kBlockHeaderSize + info.stored_length;
  char* buf = stored_.Reserve(total);
  CKPT_ASSIGN_OR_RETURN(size_t n, file_.ReadAt(info.file_offset, total, buf));
  if (n != total) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "truncated block (read " + std::to_string(n) + " of " +
                              std::to_string(total) + " bytes)");
  }
  std::string_view stored(buf + kBlockHeaderSize, info.stored_length);
  CKPT_RETURN_IF_ERROR(CheckBlockHeader(path, block_index, info, file_compression_, buf));
  hasher_.Reset(buf);
  hasher_.Update(stored.data(), stored.size());
  CKPT_RETURN_IF_ERROR(CheckBlockChecksum(path, block_index, info, hasher_.Digest()));
  if (static_cast<uint8_t>(buf[12]) == pb::COMPRESSION_NONE) return stored;

  const unsigned long long content = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (content != info.raw_length) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "zstd frame does not declare the block's raw length");
  }
  if (dctx_ == nullptr) {
    dctx_ = ZSTD_createDCtx();
    if (dctx_ == nullptr) return Status::Internal("ZSTD_createDCtx failed");
  }
  char* raw = raw_.Reserve(info.raw_length);
  const size_t got =
      ZSTD_decompressDCtx(dctx_, raw, info.raw_length, stored.data(), stored.size());
  if (ZSTD_isError(got) || got != info.raw_length) {
    return Status::Corruption(WhereBlock(path, block_index, info.file_offset) +
                              "zstd decompression failed: " +
                              (ZSTD_isError(got) ? std::string(ZSTD_getErrorName(got))
                                                 : "short output " + std::to_string(got)));
  }
  return std::string_view(raw, info.raw_length);
}

}  // namespace ckpt::format::internal
