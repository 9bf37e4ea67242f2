// ls: root listings (jobs -> snapshots) and the per-snapshot operator table.
#include "ckpt/ops/ls.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "flink_model.h"
#include "snapshot_raw.h"

namespace ckpt::ops {
namespace {

bool HasMetadata(base::Fs& fs, const std::string& dir) {
  auto info = fs.Stat(base::JoinPath(dir, format::kMetadataFileName));
  return info.ok() && !info->is_dir;
}

// Fills `entry` from the snapshot directory's metadata (or marks it incomplete/corrupt).
void Describe(base::Fs& fs, const std::string& dir, SnapshotEntry* entry) {
  const std::string metadata = base::JoinPath(dir, format::kMetadataFileName);
  if (!HasMetadata(fs, dir)) {
    entry->health = SnapshotHealth::kIncomplete;
    entry->problem = "no _metadata (never completed, or being written)";
    return;
  }
  Snapshot s;
  if (internal::IsFlinkMetadataFile(fs, metadata)) {  // Apache Flink's own format
    auto flink = internal::LoadFlinkSnapshot(fs, dir, metadata);
    if (!flink.ok()) {
      entry->health = SnapshotHealth::kCorrupt;
      entry->problem = flink.status().ToString();
      return;
    }
    s = std::move(flink).value();
  } else {
    auto md = format::ReadMetadataFile(fs, metadata);
    if (!md.ok()) {
      entry->health = SnapshotHealth::kCorrupt;
      entry->problem = md.status().ToString();
      return;
    }
    s = BuildSnapshotModel(std::move(md).value(), dir, metadata);
  }
  entry->checkpoint_id = s.checkpoint_id;
  entry->kind = s.kind;
  entry->savepoint_format = s.savepoint_format;
  entry->checkpoint_type = s.checkpoint_type;
  entry->mode = s.mode;
  entry->trigger_timestamp_ms = s.trigger_timestamp_ms;
  entry->operator_count = static_cast<uint32_t>(s.operators.size());
  entry->end_to_end_duration_ms = s.metrics.end_to_end_duration;
  if (entry->job_id_hex.empty()) entry->job_id_hex = s.job_id_hex;
  // Prefer the sizes the writer recorded; fall back to the file table.
  uint64_t own = 0;
  for (const auto& f : s.files) {
    if (f.scope != FileScope::kShared || f.created_by_checkpoint_id == s.checkpoint_id) {
      own += f.size_bytes;
    }
  }
  entry->full_size_bytes = s.metrics.state_size != 0 ? s.metrics.state_size : s.total_file_bytes;
  entry->checkpointed_size_bytes =
      s.metrics.checkpointed_size != 0 ? s.metrics.checkpointed_size : own;
}

void AddEntry(base::Fs& fs, const std::string& root, const std::string& rel,
              const std::string& job_hint, std::map<std::string, JobListing>* jobs) {
  SnapshotEntry e;
  e.path = rel;
  e.job_id_hex = job_hint;
  if (auto id = format::ParseCheckpointDirName(base::BaseName(rel))) e.checkpoint_id = *id;
  Describe(fs, base::JoinPath(root, rel), &e);
  if (e.job_id_hex.empty()) e.job_id_hex = "unknown";
  JobListing& job = (*jobs)[e.job_id_hex];
  job.job_id_hex = e.job_id_hex;
  job.snapshots.push_back(std::move(e));
}

bool IsSnapshotDirName(const std::string& name) {
  return format::ParseCheckpointDirName(name).has_value() || format::IsSavepointDirName(name);
}

}  // namespace

std::string_view SnapshotHealthName(SnapshotHealth h) {
  switch (h) {
    case SnapshotHealth::kComplete: return "complete";
    case SnapshotHealth::kIncomplete: return "incomplete";
    case SnapshotHealth::kCorrupt: return "corrupt";
  }
  return "corrupt";
}

base::Result<std::vector<JobListing>> ListRoot(base::Fs& fs, const std::string& root) {
  CKPT_ASSIGN_OR_RETURN(base::FileInfo info, fs.Stat(root));
  if (!info.is_dir) return base::Status::InvalidArgument(root + " is not a directory");
  std::map<std::string, JobListing> jobs;
  CKPT_ASSIGN_OR_RETURN(auto entries, fs.ListDir(root));
  // `root` may itself be a job directory (it holds chk-* directly).
  const bool root_is_job = std::any_of(entries.begin(), entries.end(), [](const auto& e) {
    return e.is_dir && format::ParseCheckpointDirName(e.name).has_value();
  });
  for (const auto& e : entries) {
    if (!e.is_dir) continue;
    if (IsSnapshotDirName(e.name)) {
      AddEntry(fs, root, e.name, root_is_job && !format::IsSavepointDirName(e.name)
                                     ? base::BaseName(root) : std::string(), &jobs);
      continue;
    }
    if (e.name == format::kSharedDirName || e.name == format::kTaskOwnedDirName) continue;
    auto sub = fs.ListDir(base::JoinPath(root, e.name));
    if (!sub.ok()) continue;  // unreadable subdirectory: not a job directory we can list
    for (const auto& s : *sub) {
      if (s.is_dir && IsSnapshotDirName(s.name)) {
        AddEntry(fs, root, base::JoinPath(e.name, s.name),
                 format::IsSavepointDirName(s.name) ? std::string() : e.name, &jobs);
      }
    }
  }
  std::vector<JobListing> out;
  for (auto& [id, job] : jobs) {
    std::sort(job.snapshots.begin(), job.snapshots.end(),
              [](const SnapshotEntry& a, const SnapshotEntry& b) {
                return std::tie(a.checkpoint_id, a.path) < std::tie(b.checkpoint_id, b.path);
              });
    out.push_back(std::move(job));
  }
  return out;
}

std::vector<OperatorRow> OperatorTable(const Snapshot& snapshot) {
  std::vector<OperatorRow> rows;
  for (const auto& op : snapshot.operators) {
    OperatorRow r;
    r.checkpoint_id = snapshot.checkpoint_id;
    r.operator_name = op.name;
    r.uid = op.uid;
    r.uid_hash = op.id_hex;
    r.parallelism = op.parallelism;
    r.max_parallelism = op.max_parallelism;
    r.subtask_state_count = op.subtasks.size();
    r.coordinator_state_bytes = op.coordinator ? op.coordinator->size_bytes : 0;
    r.total_bytes = op.total_bytes;
    rows.push_back(std::move(r));
  }
  return rows;
}

base::Result<LsResult> Ls(base::Fs& fs, const std::string& path) {
  LsResult result;
  CKPT_ASSIGN_OR_RETURN(base::FileInfo info, fs.Stat(path));
  if (!info.is_dir || HasMetadata(fs, path)) {
    CKPT_ASSIGN_OR_RETURN(Snapshot s, LoadSnapshot(fs, path));
    result.is_snapshot = true;
    result.operators = OperatorTable(s);
    return result;
  }
  CKPT_ASSIGN_OR_RETURN(result.jobs, ListRoot(fs, path));
  return result;
}

}  // namespace ckpt::ops
