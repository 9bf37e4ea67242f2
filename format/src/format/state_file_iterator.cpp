#include "state_file_iterator.h"

#include <algorithm>
#include <string>

#include "ckpt/base/endian.h"
#include "state_file_block.h"
#include "state_file_format.h"

namespace ckpt::format::internal {
namespace {

using base::Result;
using base::Status;

class BlockRecordIterator final : public RecordIterator {
 public:
  BlockRecordIterator(std::shared_ptr<const OpenStateFile> file, uint64_t max_records)
      : file_(std::move(file)),
        index_(file_->index),
        blocks_(file_->index.blocks),
        reader_(*file_->file, file_->index.compression),
        remaining_(max_records) {}

  // Positions the iterator on the record at `offset`.
  Status Seek(uint64_t offset, bool caller_offset) {
    if (offset >= index_.logical_size) {
      next_block_ = blocks_.size();
      if (offset == index_.logical_size) return Status::OK();
      return Status::InvalidArgument(Where(file_->path) + "logical offset " +
                                     std::to_string(offset) + " is past the end (" +
                                     std::to_string(index_.logical_size) + ")");
    }
    // The last block whose logical offset is <= offset.
    auto it = std::upper_bound(
        blocks_.begin(), blocks_.end(), offset,
        [](uint64_t off, const BlockInfo& b) { return off < b.logical_offset; });
    next_block_ = static_cast<size_t>(it - blocks_.begin()) - 1;
    CKPT_RETURN_IF_ERROR(LoadNextBlock());
    std::string_view unused;
    while (current_offset() < offset) {
      if (!ParseRecord(&unused)) return ParseError();
    }
    if (current_offset() != offset) {
      std::string msg = Where(file_->path) + "logical offset " + std::to_string(offset) +
                        " is not the start of a record";
      return caller_offset ? Status::InvalidArgument(msg) : Status::Corruption(msg);
    }
    section_ = SectionAt(offset);
    SetSection();
    return Status::OK();
  }

  Result<bool> Next(RecordRef* record) override {
    if (remaining_ == 0) return false;
    while (pos_ == block_.size()) {
      CKPT_RETURN_IF_ERROR(FinishBlock());
      if (next_block_ >= blocks_.size()) return false;
      CKPT_RETURN_IF_ERROR(LoadNextBlock());
    }
    const uint64_t offset = current_offset();
    // Sections tile the stream; move past the ones (possibly empty) that end before this record.
    if (offset >= section_end_) AdvanceSection(offset);
    std::string_view bytes;
    if (!ParseRecord(&bytes)) return ParseError();
    record->section_id = section_id_;
    record->logical_offset = offset;
    record->bytes = bytes;
    --remaining_;
    return true;
  }

 private:
  uint64_t current_offset() const { return block_logical_ + pos_; }

  void SetSection() {
    const auto& s = index_.sections;
    section_end_ = section_ < s.size() ? s[section_].logical_offset + s[section_].length
                                       : UINT64_MAX;
    section_id_ = section_ < s.size() ? s[section_].section_id : 0;
  }

  void AdvanceSection(uint64_t offset) {
    const auto& s = index_.sections;
    while (section_ < s.size() && s[section_].logical_offset + s[section_].length <= offset) {
      ++section_;
    }
    SetSection();
  }

  size_t SectionAt(uint64_t offset) const {
    const auto& s = index_.sections;
    auto it = std::upper_bound(s.begin(), s.end(), offset, [](uint64_t off, const SectionInfo& x) {
      return off < x.logical_offset + x.length;
    });
    return static_cast<size_t>(it - s.begin());
  }

  Status LoadNextBlock() {
    const BlockInfo& info = blocks_[next_block_];
    CKPT_ASSIGN_OR_RETURN(block_, reader_.Load(next_block_, info));
    current_block_ = next_block_++;
    block_logical_ = info.logical_offset;
    pos_ = 0;
    block_records_ = 0;
    block_record_count_ = info.record_count;
    return Status::OK();
  }

  Status FinishBlock() {
    if (current_block_ < blocks_.size() && block_records_ != blocks_[current_block_].record_count) {
      return BlockError("holds " + std::to_string(block_records_) + " records, header says " +
                        std::to_string(blocks_[current_block_].record_count));
    }
    current_block_ = blocks_.size();
    return Status::OK();
  }

  // Parses the record at pos_; false if the block is malformed (ParseError() says why).
  bool ParseRecord(std::string_view* bytes) {
    // Fast path for the common one-byte length prefix; the general decoder otherwise.
    const size_t left = block_.size() - pos_;
    const uint8_t first = static_cast<uint8_t>(block_[pos_]);
    if (first < 0x80 && first < left) {
      *bytes = block_.substr(pos_ + 1, first);
      pos_ += 1 + first;
    } else {
      std::string_view in = block_.substr(pos_);
      if (!base::GetLengthPrefixed(&in, bytes)) return false;
      pos_ = block_.size() - in.size();
    }
    return ++block_records_ <= block_record_count_;
  }

  Status ParseError() const {
    if (block_records_ > block_record_count_) {
      return BlockError("more records than the header's " + std::to_string(block_record_count_));
    }
    return BlockError("malformed record at logical offset " + std::to_string(current_offset()));
  }

  Status BlockError(const std::string& what) const {
    return Status::Corruption(WhereBlock(file_->path, current_block_,
                                         blocks_[current_block_].file_offset) +
                              what);
  }

  std::shared_ptr<const OpenStateFile> file_;
  const StateFileIndex& index_;
  const std::vector<BlockInfo>& blocks_;
  BlockReader reader_;
  uint64_t remaining_;
  size_t next_block_ = 0;
  size_t current_block_ = SIZE_MAX;  // SIZE_MAX: none loaded
  size_t section_ = 0;
  uint64_t section_end_ = 0;  // logical end of section_ (UINT64_MAX past the last)
  uint32_t section_id_ = 0;
  std::string_view block_;
  uint64_t block_logical_ = 0;
  size_t pos_ = 0;
  uint32_t block_records_ = 0;
  uint32_t block_record_count_ = 0;
};

}  // namespace

Result<std::unique_ptr<RecordIterator>> NewRecordIterator(
    std::shared_ptr<const OpenStateFile> file, uint64_t logical_offset, uint64_t max_records,
    bool caller_offset) {
  auto it = std::make_unique<BlockRecordIterator>(std::move(file), max_records);
  // An empty section yields nothing: no need to read (or trust) the block it sits in.
  if (max_records == 0 && !caller_offset) return std::unique_ptr<RecordIterator>(std::move(it));
  CKPT_RETURN_IF_ERROR(it->Seek(logical_offset, caller_offset));
  return std::unique_ptr<RecordIterator>(std::move(it));
}

}  // namespace ckpt::format::internal
