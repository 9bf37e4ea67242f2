#include "ckpt/engine/operators/part_file_writer.h"

#include <utility>

#include "ckpt/engine/operators/part_file_names.h"

namespace ckpt::engine::operators {

PartFileWriter::PartFileWriter(base::Fs& fs, std::string dir, std::string uid, uint32_t subtask,
                               uint64_t next_part_number, size_t buffer_bytes)
    : fs_(fs),
      dir_(std::move(dir)),
      uid_(std::move(uid)),
      subtask_(subtask),
      next_part_number_(next_part_number),
      buffer_bytes_(buffer_bytes == 0 ? 1 : buffer_bytes) {}

PartFileWriter::~PartFileWriter() { Abandon(); }

base::Status PartFileWriter::WriteLine(std::string_view line) {
  if (!file_) {
    const std::string path =
        base::JoinPath(dir_, InProgressFileName(uid_, subtask_, next_part_number_));
    CKPT_ASSIGN_OR_RETURN(file_, fs_.OpenWriteExclusive(path));
    open_part_number_ = next_part_number_++;
    written_bytes_ = 0;
    buffer_.clear();
    checksum_.Reset();
  }
  buffer_.append(line);
  buffer_.push_back('\n');
  if (buffer_.size() >= buffer_bytes_) return Flush();
  return base::Status::OK();
}

base::Status PartFileWriter::Flush() {
  if (buffer_.empty()) return base::Status::OK();
  CKPT_RETURN_IF_ERROR(file_->Append(buffer_));
  checksum_.Update(buffer_);
  written_bytes_ += buffer_.size();
  buffer_.clear();
  return base::Status::OK();
}

base::Result<std::optional<PendingPartFile>> PartFileWriter::CloseForCommit(
    int64_t checkpoint_id) {
  if (!file_) return std::optional<PendingPartFile>();
  CKPT_RETURN_IF_ERROR(Flush());
  CKPT_RETURN_IF_ERROR(file_->Sync());
  CKPT_RETURN_IF_ERROR(file_->Close());
  PendingPartFile pending;
  pending.pending_path = file_->path();
  pending.final_path = base::JoinPath(dir_, FinalFileName(uid_, subtask_, open_part_number_));
  pending.size_bytes = written_bytes_;
  pending.checksum_xxh3 = checksum_.Digest();
  pending.checkpoint_id = checkpoint_id;
  file_.reset();
  return std::optional<PendingPartFile>(std::move(pending));
}

void PartFileWriter::Abandon() {
  if (!file_) return;
  file_->Close().IgnoreError();  // the file is garbage for the next restore to discard
  file_.reset();
  buffer_.clear();
}

}  // namespace ckpt::engine::operators
