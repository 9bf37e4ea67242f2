#include "ckpt/format/state_file_writer.h"

#include <zstd.h>

#include <string>
#include <utility>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "state_file_format.h"

namespace ckpt::format {
namespace {

using base::Result;
using base::Status;

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

class StateFileWriterImpl final : public StateFileWriter {
 public:
  StateFileWriterImpl(base::Fs& fs, std::string path, StateFileWriterOptions options,
                      std::unique_ptr<base::WritableFile> file)
      : fs_(fs), path_(std::move(path)), options_(options), file_(std::move(file)) {
    index_.kind = options_.kind;
    index_.compression = options_.compression;
    raw_.reserve(options_.block_size_bytes);
  }

  ~StateFileWriterImpl() override {
    if (!finished_) Abandon();
    if (cctx_ != nullptr) ZSTD_freeCCtx(cctx_);
  }

  Status Init() {
    if (options_.compression == pb::COMPRESSION_ZSTD) {
      cctx_ = ZSTD_createCCtx();
      if (cctx_ == nullptr) return Status::Internal("ZSTD_createCCtx failed");
    }
    std::string header;
    internal::EncodeFileHeader({kStateFileVersion, options_.kind, options_.compression}, &header);
    return Write(header);
  }

  Status BeginSection(uint32_t section_id) override {
    CKPT_RETURN_IF_ERROR(CheckUsable());
    if (!index_.sections.empty() && section_id <= index_.sections.back().section_id) {
      return Status::InvalidArgument(internal::Where(path_) + "section " +
                                     std::to_string(section_id) + " does not follow section " +
                                     std::to_string(index_.sections.back().section_id));
    }
    SectionInfo s;
    s.section_id = section_id;
    s.logical_offset = logical_offset_;
    index_.sections.push_back(s);
    return Status::OK();
  }

  Result<uint64_t> Add(std::string_view record) override {
    CKPT_RETURN_IF_ERROR(CheckUsable());
    const uint64_t framed = VarintLength(record.size()) + record.size();
    if (framed > kMaxBlockRawBytes) {
      return Status::InvalidArgument(internal::Where(path_) + "record of " +
                                     std::to_string(record.size()) +
                                     " bytes exceeds the block limit of " +
                                     std::to_string(kMaxBlockRawBytes));
    }
    if (index_.sections.empty()) CKPT_RETURN_IF_ERROR(BeginSection(0));
    // Records never straddle blocks: close the block if this one would overflow it.
    if (!raw_.empty() && raw_.size() + framed > options_.block_size_bytes) {
      CKPT_RETURN_IF_ERROR(FlushBlock());
    }
    const uint64_t offset = logical_offset_;
    base::PutLengthPrefixed(&raw_, record);
    ++block_records_;
    logical_offset_ += framed;
    SectionInfo& s = index_.sections.back();
    s.length += framed;
    ++s.record_count;
    ++index_.total_records;
    if (raw_.size() >= options_.block_size_bytes) CKPT_RETURN_IF_ERROR(FlushBlock());
    return offset;
  }

  uint64_t logical_offset() const override { return logical_offset_; }

  Result<StateFileSummary> Finish() override {
    CKPT_RETURN_IF_ERROR(CheckUsable());
    CKPT_RETURN_IF_ERROR(FlushBlock());
    index_.logical_size = logical_offset_;
    std::string tail;
    internal::EncodeIndex(index_, &tail);
    internal::Trailer trailer;
    trailer.index_offset = file_offset_;
    trailer.index_length = tail.size();
    trailer.index_checksum = base::Xxh3(tail);
    internal::EncodeTrailer(trailer, &tail);
    CKPT_RETURN_IF_ERROR(Write(tail));
    CKPT_RETURN_IF_ERROR(Fail(file_->Sync()));
    CKPT_RETURN_IF_ERROR(Fail(file_->Close()));
    finished_ = true;
    StateFileSummary summary;
    summary.path = path_;
    summary.size_bytes = file_offset_;
    summary.checksum_xxh3 = file_hash_.Digest();
    summary.record_count = index_.total_records;
    summary.logical_size = index_.logical_size;
    summary.compression = options_.compression;
    return summary;
  }

  void Abandon() override {
    if (finished_) return;
    finished_ = true;
    file_->Close().IgnoreError();
    fs_.RemoveFile(path_).IgnoreError();
  }

 private:
  Status CheckUsable() const {
    if (finished_) {
      return Status::FailedPrecondition(internal::Where(path_) + "writer already finished");
    }
    return error_;
  }

  // Remembers the first failure: after it the file is unusable and every call reports it.
  Status Fail(Status s) {
    if (!s.ok() && error_.ok()) error_ = s;
    return s;
  }

  Status Write(std::string_view bytes) {
    CKPT_RETURN_IF_ERROR(Fail(file_->Append(bytes)));
    file_hash_.Update(bytes);
    file_offset_ += bytes.size();
    return Status::OK();
  }

  Status FlushBlock() {
    if (raw_.empty()) return Status::OK();
    internal::BlockHeader h;
    h.raw_length = static_cast<uint32_t>(raw_.size());
    h.record_count = block_records_;
    out_.resize(kBlockHeaderSize);
    std::string_view stored = raw_;
    h.codec = pb::COMPRESSION_NONE;
    if (cctx_ != nullptr) {
      const size_t bound = ZSTD_compressBound(raw_.size());
      out_.resize(kBlockHeaderSize + bound);
      const size_t n = ZSTD_compressCCtx(cctx_, out_.data() + kBlockHeaderSize, bound,
                                         raw_.data(), raw_.size(), options_.zstd_level);
      if (ZSTD_isError(n)) {
        return Fail(Status::Internal(internal::Where(path_) + "zstd compression failed: " +
                                     ZSTD_getErrorName(n)));
      }
      // Incompressible blocks are stored raw, so a reader never pays for a useless frame.
      if (n < raw_.size()) {
        out_.resize(kBlockHeaderSize + n);
        stored = std::string_view(out_).substr(kBlockHeaderSize);
        h.codec = pb::COMPRESSION_ZSTD;
      }
    }
    if (h.codec == pb::COMPRESSION_NONE) {
      out_.resize(kBlockHeaderSize);
      out_.append(raw_);
      stored = std::string_view(out_).substr(kBlockHeaderSize);
    }
    h.stored_length = static_cast<uint32_t>(stored.size());
    internal::EncodeBlockHeaderPrefix(h, out_.data());
    block_hasher_.Reset(out_.data());
    block_hasher_.Update(stored.data(), stored.size());
    h.checksum = block_hasher_.Digest();
    std::string checksum;
    base::PutFixed64(&checksum, h.checksum);
    checksum.copy(out_.data() + 16, 8);

    BlockInfo b;
    b.file_offset = file_offset_;
    b.stored_length = h.stored_length;
    b.raw_length = h.raw_length;
    b.record_count = h.record_count;
    b.logical_offset = logical_offset_ - raw_.size();
    b.checksum = h.checksum;
    CKPT_RETURN_IF_ERROR(Write(out_));
    index_.blocks.push_back(b);
    raw_.clear();
    block_records_ = 0;
    return Status::OK();
  }

  base::Fs& fs_;
  const std::string path_;
  const StateFileWriterOptions options_;
  std::unique_ptr<base::WritableFile> file_;
  ZSTD_CCtx* cctx_ = nullptr;
  internal::BlockHasher block_hasher_;
  base::Xxh3Stream file_hash_;
  StateFileIndex index_;
  std::string raw_;  // the block being filled: whole framed records
  std::string out_;  // block header + stored bytes of the block being written
  uint32_t block_records_ = 0;
  uint64_t logical_offset_ = 0;
  uint64_t file_offset_ = 0;
  bool finished_ = false;
  Status error_;
};

}  // namespace

Result<std::unique_ptr<StateFileWriter>> StateFileWriter::Create(base::Fs& fs, std::string path,
                                                                 StateFileWriterOptions options) {
  if (options.kind == pb::FILE_KIND_UNSPECIFIED || !pb::FileKind_IsValid(options.kind) ||
      options.kind > 0xffff) {
    return Status::InvalidArgument("state file " + path + ": a file kind is required");
  }
  if (options.compression != pb::COMPRESSION_NONE &&
      options.compression != pb::COMPRESSION_ZSTD) {
    return Status::InvalidArgument("state file " + path + ": compression must be NONE or ZSTD");
  }
  if (options.block_size_bytes == 0 || options.block_size_bytes > kMaxBlockRawBytes) {
    return Status::InvalidArgument("state file " + path + ": block size must be in [1, " +
                                   std::to_string(kMaxBlockRawBytes) + "]");
  }
  if (options.compression == pb::COMPRESSION_ZSTD &&
      (options.zstd_level < ZSTD_minCLevel() || options.zstd_level > ZSTD_maxCLevel())) {
    return Status::InvalidArgument("state file " + path + ": zstd level " +
                                   std::to_string(options.zstd_level) + " out of range");
  }
  CKPT_ASSIGN_OR_RETURN(auto file, fs.OpenWriteExclusive(path));
  auto writer = std::make_unique<StateFileWriterImpl>(fs, std::move(path), options,
                                                      std::move(file));
  CKPT_RETURN_IF_ERROR(writer->Init());
  return std::unique_ptr<StateFileWriter>(std::move(writer));
}

}  // namespace ckpt::format
