#include "ckpt/engine/operators/part_file_committer.h"

#include <algorithm>
#include <set>

#include "ckpt/engine/operators/part_file_names.h"

namespace ckpt::engine::operators {
namespace {

base::Status CheckSize(const std::string& path, uint64_t actual, uint64_t expected) {
  if (actual == expected) return base::Status::OK();
  return base::Status::Corruption("part file " + path + " has " + std::to_string(actual) +
                                  " bytes but the snapshot recorded " + std::to_string(expected));
}

}  // namespace

base::Status CommitPendingPartFile(base::Fs& fs, const PendingPartFile& file) {
  base::Result<base::FileInfo> pending = fs.Stat(file.pending_path);
  if (pending.ok()) {
    CKPT_RETURN_IF_ERROR(CheckSize(file.pending_path, pending->size_bytes, file.size_bytes));
    CKPT_RETURN_IF_ERROR(fs.Rename(file.pending_path, file.final_path));
    return fs.SyncDir(base::DirName(file.final_path));
  }
  if (!pending.status().IsNotFound()) return pending.status();
  // The rename may have happened before a failure: then the committed file is the proof.
  base::Result<base::FileInfo> committed = fs.Stat(file.final_path);
  if (committed.ok()) return CheckSize(file.final_path, committed->size_bytes, file.size_bytes);
  if (!committed.status().IsNotFound()) return committed.status();
  return base::Status::NotFound("pending part file " + file.pending_path +
                                " and its committed name " + file.final_path +
                                " are both missing (checkpoint " +
                                std::to_string(file.checkpoint_id) + ")");
}

base::Result<PartFileRecovery> RecoverPartFiles(
    base::Fs& fs, const std::string& dir, const std::string& uid, uint32_t subtask,
    uint32_t parallelism, const std::vector<PendingPartFile>& restored_pending) {
  if (parallelism == 0 || subtask >= parallelism) {
    return base::Status::InvalidArgument("subtask " + std::to_string(subtask) +
                                         " out of range for parallelism " +
                                         std::to_string(parallelism));
  }
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
  PartFileRecovery out;
  std::set<std::string> keep;
  for (const PendingPartFile& file : restored_pending) {
    const bool was_pending = fs.Stat(file.pending_path).ok();
    CKPT_RETURN_IF_ERROR(CommitPendingPartFile(fs, file));
    if (was_pending) ++out.committed;
    keep.insert(base::BaseName(file.pending_path));
    if (auto name = ParsePartFileName(base::BaseName(file.final_path));
        name && name->subtask == subtask) {
      out.next_part_number = std::max(out.next_part_number, name->n + 1);
    }
  }
  CKPT_ASSIGN_OR_RETURN(std::vector<base::DirEntry> entries, fs.ListDir(dir));
  for (const base::DirEntry& entry : entries) {
    if (entry.is_dir) continue;
    std::optional<PartFileName> name = ParsePartFileName(entry.name);
    if (!name || name->uid != uid) continue;
    if (!name->in_progress) {
      if (name->subtask == subtask) {
        out.next_part_number = std::max(out.next_part_number, name->n + 1);
      }
      continue;
    }
    if (name->subtask % parallelism != subtask || keep.count(entry.name) > 0) continue;
    const std::string path = base::JoinPath(dir, entry.name);
    base::Status removed = fs.RemoveFile(path);
    if (!removed.ok() && !removed.IsNotFound()) return removed;
    out.discarded.push_back(path);
  }
  if (!out.discarded.empty()) CKPT_RETURN_IF_ERROR(fs.SyncDir(dir));
  std::sort(out.discarded.begin(), out.discarded.end());
  return out;
}

}  // namespace ckpt::engine::operators
