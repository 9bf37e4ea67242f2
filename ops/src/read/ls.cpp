// ls: root listings (jobs -> snapshots) and the per-snapshot operator table.
#include "ckpt/ops/ls.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/snapshot_discovery.h"
#include "ckpt/ops/open.h"
#include "formats/snapshot_format.h"

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
  auto loaded = internal::FormatAt(fs, metadata).LoadForListing(fs, dir, metadata);
  if (!loaded.ok()) {
    entry->health = SnapshotHealth::kCorrupt;
    entry->problem = loaded.status().ToString();
    return;
  }
  const Snapshot& s = *loaded;
  entry->checkpoint_id = s.checkpoint_id;
  entry->kind = s.kind;
  entry->savepoint_format = s.savepoint_format;
  entry->checkpoint_type = s.checkpoint_type;
  entry->mode = s.mode;
  entry->trigger_timestamp_ms = s.trigger_timestamp_ms;
  entry->operator_count = static_cast<uint32_t>(s.operators.size());
  entry->end_to_end_duration_ms = s.metrics.end_to_end_duration;
  if (entry->job_id_hex.empty()) entry->job_id_hex = s.job_id_hex;
  // The one size model (docs/sizes.md), not the writer's metrics, so ls, files, stats, show and
  // the inspector agree for every snapshot.
  entry->full_size_bytes = s.full_size_bytes;
  entry->checkpointed_size_bytes = s.checkpointed_size_bytes;
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
  CKPT_ASSIGN_OR_RETURN(std::vector<format::DiscoveredSnapshot> found,
                        format::DiscoverSnapshots(fs, root));
  std::map<std::string, JobListing> jobs;
  for (const auto& d : found) {
    SnapshotEntry e;
    e.path = d.rel.empty() ? "." : d.rel;
    e.job_id_hex = d.job_id_hex;
    if (d.checkpoint_id) e.checkpoint_id = *d.checkpoint_id;
    Describe(fs, d.dir, &e);
    if (e.job_id_hex.empty() && d.checkpoint_id) {
      // A job directory whose name is not a job id and whose snapshot says nothing.
      e.job_id_hex = d.job_rel.empty() ? base::BaseName(root) : base::BaseName(d.job_rel);
    }
    if (e.job_id_hex.empty()) e.job_id_hex = "unknown";
    JobListing& job = jobs[e.job_id_hex];
    job.job_id_hex = e.job_id_hex;
    job.snapshots.push_back(std::move(e));
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

size_t CorruptCount(const std::vector<JobListing>& jobs) {
  size_t n = 0;
  for (const auto& job : jobs) {
    for (const auto& s : job.snapshots) n += s.health == SnapshotHealth::kCorrupt ? 1 : 0;
  }
  return n;
}

std::vector<OperatorRow> OperatorTable(const Snapshot& snapshot) {
  std::vector<OperatorRow> rows;
  for (const auto& op : snapshot.operators) {
    OperatorRow r;
    r.checkpoint_id = snapshot.checkpoint_id;
    r.operator_name = op.name;
    r.uid = op.uid;
    r.uid_origin = op.uid_origin;
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

MetadataRow MetadataLine(const Snapshot& snapshot) {
  MetadataRow row;
  row.checkpoint_id = snapshot.checkpoint_id;
  row.own_bytes = snapshot.metadata_own_bytes();
  row.file_bytes = snapshot.metadata_size_bytes;
  row.inline_state_bytes = snapshot.inline_state_bytes;
  return row;
}

base::Result<LsResult> Ls(base::Fs& fs, const std::string& path,
                          const std::vector<std::string>& uids) {
  // ls shows nothing of the keyed-state meta information: `_metadata` only.
  CKPT_ASSIGN_OR_RETURN(Opened opened,
                        Open(fs, path, LoadOptions{.state_meta = false, .uids = uids}));
  LsResult result;
  result.is_snapshot = opened.is_snapshot();
  if (result.is_snapshot) {
    result.operators = OperatorTable(*opened.snapshot);
    result.metadata = MetadataLine(*opened.snapshot);
  } else {
    result.jobs = std::move(opened.jobs);
  }
  return result;
}

}  // namespace ckpt::ops
