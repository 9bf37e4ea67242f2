#include "ckpt/engine/operators/multipart_part_files.h"

#include <algorithm>
#include <set>

#include "ckpt/engine/operators/part_file_names.h"

namespace ckpt::engine::operators {
base::Result<base::RecoverableCommit> MultipartCommitOf(const PendingPartFile& file) {
  auto bad = [&file](std::string_view why) {
    return base::Status::Corruption("pending part file " + file.final_path + " (checkpoint " +
                                    std::to_string(file.checkpoint_id) + "): " + std::string(why));
  };
  if (file.upload_id.empty()) return bad("records no multipart upload id");
  if (file.part_etags.empty()) return bad("records no parts of its upload");
  for (const std::string& etag : file.part_etags) {
    if (etag.empty()) return bad("records an empty part ETag");
  }
  base::RecoverableCommit out;
  out.location = file.final_path;
  out.upload_id = file.upload_id;
  out.part_etags = file.part_etags;
  out.size_bytes = file.size_bytes;
  return out;
}

base::Status CommitMultipartPartFile(base::RecoverableWriter& writer,
                                     const PendingPartFile& file) {
  CKPT_ASSIGN_OR_RETURN(base::RecoverableCommit commit, MultipartCommitOf(file));
  return writer.Commit(commit);
}

base::Result<PartFileRecovery> RecoverMultipartPartFiles(
    base::RecoverableWriter& writer, base::Fs& fs, const std::string& dir, const std::string& uid,
    uint32_t subtask, uint32_t parallelism, const std::vector<PendingPartFile>& restored_pending) {
  if (parallelism == 0 || subtask >= parallelism) {
    return base::Status::InvalidArgument("subtask " + std::to_string(subtask) +
                                         " out of range for parallelism " +
                                         std::to_string(parallelism));
  }
  PartFileRecovery out;
  std::set<std::string> keep;  // upload ids of the restored pending files
  for (const PendingPartFile& file : restored_pending) {
    CKPT_ASSIGN_OR_RETURN(base::RecoverableCommit commit, MultipartCommitOf(file));
    CKPT_RETURN_IF_ERROR(writer.Commit(commit));
    ++out.committed;
    keep.insert(commit.upload_id);
    if (auto name = ParsePartFileName(base::BaseName(file.final_path));
        name && name->subtask == subtask) {
      out.next_part_number = std::max(out.next_part_number, name->n + 1);
    }
  }
  CKPT_ASSIGN_OR_RETURN(std::vector<base::OpenUpload> open,
                        writer.ListOpen(base::JoinPath(dir, "part-")));
  for (const base::OpenUpload& upload : open) {
    if (base::DirName(upload.location) != dir) continue;
    std::optional<PartFileName> name = ParsePartFileName(base::BaseName(upload.location));
    if (!name || name->in_progress || name->uid != uid) continue;
    if (name->subtask % parallelism != subtask || keep.count(upload.upload_id) > 0) continue;
    CKPT_RETURN_IF_ERROR(writer.Abort(upload));
    out.discarded.push_back(upload.location);
  }
  base::Result<std::vector<base::DirEntry>> entries = fs.ListDir(dir);
  if (!entries.ok() && !entries.status().IsNotFound()) return entries.status();
  if (entries.ok()) {
    for (const base::DirEntry& entry : *entries) {
      std::optional<PartFileName> name = ParsePartFileName(entry.name);
      if (entry.is_dir || !name || name->in_progress || name->uid != uid) continue;
      if (name->subtask == subtask) {
        out.next_part_number = std::max(out.next_part_number, name->n + 1);
      }
    }
  }
  std::sort(out.discarded.begin(), out.discarded.end());
  return out;
}

MultipartPartFileWriter::MultipartPartFileWriter(base::RecoverableWriter& writer, std::string dir,
                                                 std::string uid, uint32_t subtask,
                                                 uint64_t next_part_number)
    : writer_(writer),
      dir_(std::move(dir)),
      uid_(std::move(uid)),
      subtask_(subtask),
      next_part_number_(next_part_number) {}

base::Status MultipartPartFileWriter::WriteLine(std::string_view line) {
  if (!stream_) {
    location_ = base::JoinPath(dir_, FinalFileName(uid_, subtask_, next_part_number_));
    CKPT_ASSIGN_OR_RETURN(stream_, writer_.Open(location_));
    ++next_part_number_;
    checksum_.Reset();
  }
  line_.assign(line);
  line_.push_back('\n');
  checksum_.Update(line_);
  return stream_->Write(line_);
}

base::Result<std::optional<PendingPartFile>> MultipartPartFileWriter::CloseForCommit(
    int64_t checkpoint_id) {
  if (!stream_) return std::optional<PendingPartFile>();
  CKPT_ASSIGN_OR_RETURN(base::RecoverableCommit commit, stream_->CloseForCommit());
  stream_.reset();
  PendingPartFile pending;
  pending.final_path = commit.location;
  pending.upload_id = commit.upload_id;
  pending.part_etags = commit.part_etags;
  pending.size_bytes = commit.size_bytes;
  pending.checksum_xxh3 = checksum_.Digest();
  pending.checkpoint_id = checkpoint_id;
  return std::optional<PendingPartFile>(std::move(pending));
}

void MultipartPartFileWriter::Abandon() { stream_.reset(); }

}  // namespace ckpt::engine::operators
