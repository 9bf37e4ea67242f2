#include "ckpt/engine/operators/multipart_part_files.h"

#include <algorithm>
#include <set>

#include "ckpt/engine/operators/part_file_names.h"

namespace ckpt::engine::operators {
namespace {

constexpr std::string_view kUploadMark = "#upload=";
constexpr std::string_view kPartsMark = ";parts=";

}  // namespace

std::string EncodeMultipartPending(const base::RecoverableCommit& commit) {
  std::string out = commit.location;
  out.append(kUploadMark).append(commit.upload_id).append(kPartsMark);
  for (size_t i = 0; i < commit.part_etags.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append(commit.part_etags[i]);
  }
  return out;
}

base::Result<base::RecoverableCommit> DecodeMultipartPending(const PendingPartFile& file) {
  auto bad = [&file](std::string_view why) {
    return base::Status::Corruption("pending part file \"" + file.pending_path + "\" of " +
                                    file.final_path + ": " + std::string(why));
  };
  std::string_view rest = file.pending_path;
  if (!rest.starts_with(file.final_path)) return bad("does not start with its final location");
  rest.remove_prefix(file.final_path.size());
  if (!rest.starts_with(kUploadMark)) return bad("no upload id");
  rest.remove_prefix(kUploadMark.size());
  const size_t parts = rest.find(kPartsMark);
  if (parts == std::string_view::npos || parts == 0) return bad("no upload id or part list");
  base::RecoverableCommit out;
  out.location = file.final_path;
  out.upload_id = std::string(rest.substr(0, parts));
  rest.remove_prefix(parts + kPartsMark.size());
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view etag = rest.substr(0, comma);
    if (etag.empty()) return bad("an empty part ETag");
    out.part_etags.emplace_back(etag);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (out.part_etags.empty()) return bad("no parts");
  out.size_bytes = file.size_bytes;
  return out;
}

base::Status CommitMultipartPartFile(base::RecoverableWriter& writer,
                                     const PendingPartFile& file) {
  CKPT_ASSIGN_OR_RETURN(base::RecoverableCommit commit, DecodeMultipartPending(file));
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
    CKPT_ASSIGN_OR_RETURN(base::RecoverableCommit commit, DecodeMultipartPending(file));
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
  pending.pending_path = EncodeMultipartPending(commit);
  pending.final_path = commit.location;
  pending.size_bytes = commit.size_bytes;
  pending.checksum_xxh3 = checksum_.Digest();
  pending.checkpoint_id = checkpoint_id;
  return std::optional<PendingPartFile>(std::move(pending));
}

void MultipartPartFileWriter::Abandon() { stream_.reset(); }

}  // namespace ckpt::engine::operators
