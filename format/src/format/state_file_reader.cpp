#include "ckpt/format/state_file_reader.h"

#include <algorithm>
#include <string>
#include <utility>

#include "ckpt/base/checksum.h"
#include "state_file_block.h"
#include "state_file_format.h"
#include "state_file_iterator.h"

namespace ckpt::format {
namespace {

using base::Result;
using base::Status;
using internal::Where;

// VerifyChecksums reads this much per pread: large sequential reads, as xxhsum does.
constexpr size_t kVerifyChunkBytes = 4u << 20;

Status ReadExactly(const base::RandomAccessFile& file, uint64_t offset, size_t n, char* out,
                   const char* what) {
  CKPT_ASSIGN_OR_RETURN(size_t got, file.ReadAt(offset, n, out));
  if (got != n) {
    return Status::Corruption(Where(file.path()) + "short read of the " + what + " at offset " +
                              std::to_string(offset) + " (file changed or truncated)");
  }
  return Status::OK();
}

class StateFileReaderImpl final : public StateFileReader {
 public:
  explicit StateFileReaderImpl(std::shared_ptr<internal::OpenStateFile> file)
      : file_(std::move(file)), size_(file_->file->Size()) {}

  const std::string& path() const override { return file_->path; }
  uint64_t file_size() const override { return size_; }
  const StateFileIndex& index() const override { return file_->index; }

  Status VerifyChecksums(const base::Progress& progress) const override;

  Result<std::unique_ptr<RecordIterator>> NewIterator() const override {
    return internal::NewRecordIterator(file_, 0, UINT64_MAX, /*caller_offset=*/true);
  }

  Result<std::unique_ptr<RecordIterator>> NewSectionIterator(uint32_t section_id) const override {
    const auto& s = file_->index.sections;
    auto it = std::lower_bound(
        s.begin(), s.end(), section_id,
        [](const SectionInfo& x, uint32_t id) { return x.section_id < id; });
    if (it == s.end() || it->section_id != section_id) {
      return Status::NotFound(Where(path()) + "no section " + std::to_string(section_id));
    }
    return internal::NewRecordIterator(file_, it->logical_offset, it->record_count,
                                       /*caller_offset=*/false);
  }

  Result<std::unique_ptr<RecordIterator>> NewIteratorAt(uint64_t logical_offset,
                                                        uint64_t max_records) const override {
    return internal::NewRecordIterator(file_, logical_offset, max_records,
                                       /*caller_offset=*/true);
  }

 private:
  std::shared_ptr<const internal::OpenStateFile> file_;
  const uint64_t size_;
};

// Feeds the byte range [begin, end) of a file to its caller in large sequential reads.
class ChunkedReader {
 public:
  ChunkedReader(const base::RandomAccessFile& file, uint64_t begin, uint64_t end)
      : file_(file), next_(begin), end_(end) {
    buf_ = scratch_.Reserve(static_cast<size_t>(std::min<uint64_t>(kVerifyChunkBytes, end - begin)));
  }

  // Hands out up to `want` bytes (at least one) from the current position.
  Result<std::string_view> Take(size_t want) {
    if (pos_ == len_) {
      if (next_ >= end_) return Status::Internal("read past the verified range");
      len_ = static_cast<size_t>(std::min<uint64_t>(kVerifyChunkBytes, end_ - next_));
      CKPT_RETURN_IF_ERROR(ReadExactly(file_, next_, len_, buf_, "blocks"));
      next_ += len_;
      pos_ = 0;
    }
    const size_t n = std::min(want, len_ - pos_);
    std::string_view out(buf_ + pos_, n);
    pos_ += n;
    return out;
  }
  uint64_t consumed() const { return next_ - (len_ - pos_); }

 private:
  const base::RandomAccessFile& file_;
  internal::ScratchBuffer scratch_;
  char* buf_ = nullptr;
  uint64_t next_;
  const uint64_t end_;
  size_t len_ = 0;
  size_t pos_ = 0;
};

Status StateFileReaderImpl::VerifyChecksums(const base::Progress& progress) const {
  const auto& blocks = file_->index.blocks;
  if (blocks.empty()) return Status::OK();
  const uint64_t begin = blocks.front().file_offset;
  const uint64_t end = blocks.back().file_offset + kBlockHeaderSize + blocks.back().stored_length;
  ChunkedReader in(*file_->file, begin, end);
  internal::BlockHasher hasher;
  char header[kBlockHeaderSize];
  uint64_t reported = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const BlockInfo& info = blocks[i];
    for (size_t got = 0; got < kBlockHeaderSize;) {
      CKPT_ASSIGN_OR_RETURN(std::string_view piece, in.Take(kBlockHeaderSize - got));
      piece.copy(header + got, piece.size());
      got += piece.size();
    }
    hasher.Reset(header);
    for (uint64_t left = info.stored_length; left > 0;) {
      CKPT_ASSIGN_OR_RETURN(std::string_view piece, in.Take(left));
      hasher.Update(piece.data(), piece.size());
      left -= piece.size();
    }
    CKPT_RETURN_IF_ERROR(internal::CheckBlockHeader(path(), i, info,
                                                    file_->index.compression, header));
    CKPT_RETURN_IF_ERROR(internal::CheckBlockChecksum(path(), i, info, hasher.Digest()));
    if (in.consumed() - reported >= kVerifyChunkBytes || i + 1 == blocks.size()) {
      reported = in.consumed();
      if (progress.cancelled()) return Status::Cancelled(Where(path()) + "verification cancelled");
      progress.Report(reported - begin, end - begin, path());
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<StateFileReader>> StateFileReader::Open(base::Fs& fs,
                                                               const std::string& path) {
  auto open = std::make_shared<internal::OpenStateFile>();
  open->path = path;
  CKPT_ASSIGN_OR_RETURN(open->file, fs.OpenRead(path));
  const base::RandomAccessFile& file = *open->file;
  const uint64_t size = file.Size();
  if (size < kStateFileHeaderSize + kStateFileTrailerSize) {
    return Status::Corruption(Where(path) + "too small for a state-file container (" +
                              std::to_string(size) + " bytes)");
  }
  char header_bytes[kStateFileHeaderSize];
  CKPT_RETURN_IF_ERROR(ReadExactly(file, 0, kStateFileHeaderSize, header_bytes, "header"));
  CKPT_ASSIGN_OR_RETURN(internal::FileHeader header,
                        internal::DecodeFileHeader({header_bytes, kStateFileHeaderSize}, path));
  char trailer_bytes[kStateFileTrailerSize];
  CKPT_RETURN_IF_ERROR(ReadExactly(file, size - kStateFileTrailerSize, kStateFileTrailerSize,
                                   trailer_bytes, "trailer"));
  CKPT_ASSIGN_OR_RETURN(
      internal::Trailer trailer,
      internal::DecodeTrailer({trailer_bytes, kStateFileTrailerSize}, size, path));
  // DecodeTrailer bounded index_length by the file size.
  std::string index_bytes(static_cast<size_t>(trailer.index_length), '\0');
  CKPT_RETURN_IF_ERROR(
      ReadExactly(file, trailer.index_offset, index_bytes.size(), index_bytes.data(), "index"));
  if (base::Xxh3(index_bytes) != trailer.index_checksum) {
    return Status::Corruption(Where(path) + "footer index checksum mismatch");
  }
  CKPT_ASSIGN_OR_RETURN(open->index,
                        internal::DecodeIndex(index_bytes, header, trailer.index_offset, path));
  return std::unique_ptr<StateFileReader>(std::make_unique<StateFileReaderImpl>(std::move(open)));
}

}  // namespace ckpt::format
