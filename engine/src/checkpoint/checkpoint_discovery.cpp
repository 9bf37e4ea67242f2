// Discovery of complete checkpoints under a job directory (for --from-latest).
#include "ckpt/engine/checkpoint/checkpoint_discovery.h"

#include <algorithm>
#include <utility>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/snapshot_discovery.h"

namespace ckpt::engine {

namespace {

// OK if every file the metadata references (except EXTERNAL ones) exists with its size.
base::Status CheckFiles(base::Fs& fs, const std::string& dir, const pb::CheckpointMetadata& md) {
  for (const pb::FileEntry& f : md.files()) {
    if (f.scope() == pb::EXTERNAL) continue;
    CKPT_ASSIGN_OR_RETURN(std::string path, format::ResolveFile(dir, f));
    base::Result<base::FileInfo> info = fs.Stat(path);
    if (!info.ok()) return base::Status::NotFound("missing " + f.path());
    if (info->size_bytes != f.size_bytes()) {
      return base::Status::Corruption(f.path() + " has " + std::to_string(info->size_bytes) +
                                      " bytes, metadata says " + std::to_string(f.size_bytes()));
    }
  }
  return base::Status::OK();
}

}  // namespace

base::Result<DiscoveredCheckpoints> DiscoverCheckpoints(base::Fs& fs, const std::string& job_dir) {
  // The same discovery as ckpt-tool ls and prune and the inspector (format/snapshot_discovery.h),
  // one level deep: the chk-<n> directories of this job.
  format::DiscoveryOptions one_level;
  one_level.max_depth = 1;
  CKPT_ASSIGN_OR_RETURN(std::vector<format::DiscoveredSnapshot> found,
                        format::DiscoverSnapshots(fs, job_dir, one_level));
  std::vector<std::pair<int64_t, std::string>> candidates;
  for (const auto& d : found) {
    if (d.checkpoint_id) candidates.emplace_back(*d.checkpoint_id, d.rel);
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  DiscoveredCheckpoints out;
  for (const auto& [id, name] : candidates) {
    const std::string dir = base::JoinPath(job_dir, name);
    const std::string metadata_path = base::JoinPath(dir, format::kMetadataFileName);
    base::Result<pb::CheckpointMetadata> md = format::ReadMetadataFile(fs, metadata_path);
    if (!md.ok()) {
      out.skipped.push_back(name + ": " + (md.status().IsNotFound()
                                               ? std::string("no _metadata (incomplete)")
                                               : md.status().ToString()));
      continue;
    }
    base::Status files = CheckFiles(fs, dir, *md);
    if (!files.ok()) {
      out.skipped.push_back(name + ": " + files.ToString());
      continue;
    }
    CompletedCheckpoint c;
    c.checkpoint_id = md->checkpoint_id();
    c.kind = md->kind() == pb::SNAPSHOT_KIND_UNSPECIFIED ? pb::CHECKPOINT : md->kind();
    c.dir = dir;
    c.metadata_path = metadata_path;
    c.trigger_timestamp_ms = md->trigger_timestamp();
    c.completion_timestamp_ms = md->completion_timestamp();
    c.state_size_bytes = md->metrics().state_size();
    c.owned = true;
    out.complete.push_back(std::move(c));
  }
  return out;
}

base::Result<CompletedCheckpoint> FindLatestCheckpoint(base::Fs& fs, const std::string& job_dir) {
  CKPT_ASSIGN_OR_RETURN(DiscoveredCheckpoints found, DiscoverCheckpoints(fs, job_dir));
  if (!found.complete.empty()) return found.complete.front();
  std::string msg = "no complete checkpoint in " + job_dir;
  if (!found.skipped.empty()) {
    msg += " (skipped:";
    for (const auto& s : found.skipped) msg += " [" + s + "]";
    msg += ")";
  }
  return base::Status::NotFound(msg);
}

}  // namespace ckpt::engine
