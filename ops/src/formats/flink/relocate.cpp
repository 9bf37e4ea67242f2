// RelocateFlink: see formats/flink/relocate.h. Output paths: a file inside the snapshot directory keeps
// its relative path; one in the job's `shared/` or `taskowned/` goes to the same folder name in
// the output; anything else to `external/<name>` (a clash gets "-<n>"), as for our format.
#include "formats/flink/relocate.h"

#include <map>
#include <set>

#include "ckpt/base/resolving_fs.h"

#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "model/file_fs.h"
#include "rewrite/output_publish.h"
#include "rewrite/relocate_copy.h"

namespace ckpt::ops::internal {
namespace {

class Planner {
 public:
  Planner(base::Fs& fs, const flink::Metadata& md, const std::string& dir) : fs_(fs), md_(md), dir_(dir) {
    if (base::BaseName(dir).rfind("chk-", 0) == 0) job_dir_ = base::DirName(dir);
  }

  // Rewrites `h` (a file handle) to a relative handle naming its planned copy.
  base::Status Visit(flink::StreamHandle* h) {
    switch (h->type) {
      case flink::StreamHandle::Type::kKeyGroups: {
        auto kg = std::make_shared<flink::KeyGroupsHandle>(*h->nested);
        CKPT_RETURN_IF_ERROR(Visit(&kg->delegate));
        h->nested = std::move(kg);
        return base::Status::OK();
      }
      case flink::StreamHandle::Type::kSegmentFile:
        return base::Status::Unimplemented(
            md_.path + ": a file-merging segment of " + h->path +
            " cannot be made relative (Flink has no relative segment handle); relocate supports "
            "snapshots written without file merging");
      case flink::StreamHandle::Type::kFile:
      case flink::StreamHandle::Type::kRelativeFile:
        break;
      default:
        return base::Status::OK();
    }
    // A relative handle names a file beside `_metadata`; an absolute one its file by path or
    // URI, on whichever filesystem that URI names (a checkpoint's s3://.../shared/<uuid>).
    CKPT_ASSIGN_OR_RETURN(std::string source, flink::HandleLocation(md_, *h));
    auto it = planned_.find(source);
    if (it == planned_.end()) {
      CKPT_ASSIGN_OR_RETURN(RelocatedFile f, Plan(*h, source));
      it = planned_.emplace(source, files_.size()).first;
      files_.push_back(std::move(f));
    }
    h->type = flink::StreamHandle::Type::kRelativeFile;
    h->path = files_[it->second].output_path;
    return base::Status::OK();
  }

  base::Status VisitKeyed(flink::KeyedHandle* h) {
    if (h->key_groups != nullptr) {
      auto kg = std::make_shared<flink::KeyGroupsHandle>(*h->key_groups);
      CKPT_RETURN_IF_ERROR(Visit(&kg->delegate));
      h->key_groups = std::move(kg);
    }
    CKPT_RETURN_IF_ERROR(Visit(&h->meta));
    for (auto* list : {&h->shared_files, &h->private_files}) {
      for (auto& f : *list) CKPT_RETURN_IF_ERROR(Visit(&f.handle));
    }
    for (auto* list : {&h->materialized, &h->non_materialized}) {
      for (auto& k : *list) CKPT_RETURN_IF_ERROR(VisitKeyed(&k));
    }
    for (auto& [off, sh] : h->handles_and_offsets) CKPT_RETURN_IF_ERROR(Visit(&sh));
    return base::Status::OK();
  }

  base::Status VisitSubtask(flink::SubtaskState* st) {
    for (auto* oh : {&st->managed_operator, &st->raw_operator}) {
      if (oh->has_value()) CKPT_RETURN_IF_ERROR(Visit(&(*oh)->delegate));
    }
    CKPT_RETURN_IF_ERROR(VisitKeyed(&st->managed_keyed));
    CKPT_RETURN_IF_ERROR(VisitKeyed(&st->raw_keyed));
    for (auto* list : {&st->input_channels, &st->result_subpartitions}) {
      for (auto& c : *list) CKPT_RETURN_IF_ERROR(Visit(&c.delegate));
    }
    return base::Status::OK();
  }

  std::vector<RelocatedFile> TakeFiles() { return std::move(files_); }

 private:
  base::Result<RelocatedFile> Plan(const flink::StreamHandle& h, const std::string& source) {
    RelocatedFile f;
    f.source_path = source;
    f.size_bytes = static_cast<uint64_t>(h.size);
    auto info = FsOfSnapshotFile(fs_, dir_, source).Stat(source);
    if (!info.ok()) {
      if (info.status().IsNotFound()) {
        return base::Status::Corruption(
            md_.path + " references " + h.path + ", which does not exist" +
            (h.type == flink::StreamHandle::Type::kFile
                 ? " (an absolute path: was the snapshot or its checkpoint directory moved?)"
                 : ""));
      }
      return info.status();
    }
    auto under = [&](const std::string& base) -> std::string {
      if (base.empty() || source.size() <= base.size() + 1 || source.compare(0, base.size(), base) != 0 ||
          source[base.size()] != '/') {
        return "";
      }
      return source.substr(base.size() + 1);
    };
    std::string rel;
    if (h.type == flink::StreamHandle::Type::kRelativeFile) {
      rel = h.path;
      f.original_scope = "exclusive";
    } else if (!(rel = under(dir_)).empty()) {
      f.original_scope = "exclusive";
    } else if (!job_dir_.empty() && !(rel = under(base::JoinPath(job_dir_, "shared"))).empty()) {
      rel = "shared/" + rel;
      f.original_scope = "shared";
    } else if (!job_dir_.empty() && !(rel = under(base::JoinPath(job_dir_, "taskowned"))).empty()) {
      rel = "taskowned/" + rel;
      f.original_scope = "task-owned";
    } else {
      rel = "external/" + base::BaseName(source);
      f.original_scope = "external";
    }
    std::string unique = rel;
    for (int n = 1; used_.count(unique) || unique == "_metadata"; ++n) unique = rel + "-" + std::to_string(n);
    used_.insert(unique);
    f.output_path = unique;
    return f;
  }

  base::Fs& fs_;
  const flink::Metadata& md_;
  std::string dir_;
  std::string job_dir_;
  std::map<std::string, size_t> planned_;  // source path -> index into files_
  std::set<std::string> used_;
  std::vector<RelocatedFile> files_;
};

}  // namespace

base::Result<RelocateResult> RelocateFlink(base::Fs& fs, const format::SnapshotLocation& location,
                                           const std::string& output_dir,
                                           const RelocateOptions& options) {
  CKPT_ASSIGN_OR_RETURN(flink::Metadata md, flink::ReadFlinkMetadata(fs, location.metadata));
  CKPT_RETURN_IF_ERROR(CheckOutputPlace(fs, location.dir, output_dir));
  RelocateResult result;
  result.source_dir = location.dir;
  result.output_dir = output_dir;
  result.checkpoint_id = md.checkpoint_id;
  result.dry_run = options.dry_run;
  result.copies_verified_by = "sizes";
  const bool savepoint = md.properties.has_value() && md.properties->is_savepoint;
  result.output_type = savepoint ? "savepoint (" + (md.properties->format_type == "NATIVE"
                                                        ? std::string("native")
                                                        : std::string("canonical")) +
                                       ", self-contained)"
                                 : "checkpoint (self-contained)";

  flink::Metadata out = md;
  Planner planner(fs, md, location.dir);
  for (auto& op : out.operators) {
    for (auto& st : op.subtasks) CKPT_RETURN_IF_ERROR(planner.VisitSubtask(&st));
  }
  result.files = planner.TakeFiles();
  for (const auto& f : result.files) result.total_bytes += f.size_bytes;
  CKPT_ASSIGN_OR_RETURN(std::string bytes, flink::SerializeFlinkMetadata(out));
  if (options.dry_run) return result;
  // Files on another filesystem than the snapshot's (a local `_metadata` whose state is on S3)
  // are copied through base::ResolvingFs, which reaches both.
  base::Fs* copy_fs = &fs;
  for (const auto& f : result.files) {
    if (&FsOfSnapshotFile(fs, location.dir, f.source_path) != &fs) copy_fs = &base::ResolvingFs();
  }
  CKPT_ASSIGN_OR_RETURN(
      CopyResult copied,
      WriteSnapshotCopyWith(*copy_fs, result.files, output_dir, WriteMetadataBytes(*copy_fs, bytes),
                            CopyOptions{false, FileTransfer::kCopy}, options.progress));
  TakePublication(std::move(copied), options.verify_output, &result);
  return result;
}

}  // namespace ckpt::ops::internal
