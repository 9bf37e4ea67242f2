// Savepoint disposal: the metadata's exclusive files, then empty directories.
#include "rest/savepoint_disposal.h"

#include <set>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"

namespace ckpt::engine::rest {

base::Result<DisposalPlan> PlanDisposal(base::Fs& fs, const std::string& user_path) {
  CKPT_ASSIGN_OR_RETURN(format::SnapshotLocation loc, format::LocateSnapshot(fs, user_path));
  CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md, format::ReadMetadataFile(fs, loc.metadata));
  DisposalPlan plan;
  plan.dir = loc.dir;
  plan.metadata = loc.metadata;
  std::set<std::string> seen;
  for (const pb::FileEntry& f : md.files()) {
    if (f.scope() != pb::EXCLUSIVE) continue;
    base::Result<std::string> path = format::ResolveFile(loc.dir, f);
    if (!path.ok()) return path.status().WithContext(loc.metadata);
    if (*path == loc.metadata || !seen.insert(*path).second) continue;
    plan.files.push_back(std::move(*path));
  }
  return plan;
}

base::Status Dispose(base::Fs& fs, const DisposalPlan& plan) {
  base::Status st = fs.RemoveFile(plan.metadata);
  if (!st.ok() && !st.IsNotFound()) return st.WithContext("disposing " + plan.dir);
  std::set<std::string> dirs;
  for (const std::string& file : plan.files) {
    st = fs.RemoveFile(file);
    if (!st.ok() && !st.IsNotFound()) return st.WithContext("disposing " + plan.dir);
    // Every directory between the file and the savepoint directory (ResolveFile keeps
    // exclusive files below it).
    for (std::string d = base::DirName(file); d.size() > plan.dir.size(); d = base::DirName(d)) {
      dirs.insert(d);
    }
  }
  // Deepest first: a longer path is never a parent of a shorter one.
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) fs.RemoveDir(*it).IgnoreError();
  st = fs.RemoveDir(plan.dir);
  if (!st.ok() && st.code() != base::StatusCode::kFailedPrecondition && !st.IsNotFound()) {
    return st.WithContext("disposing " + plan.dir);
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine::rest
