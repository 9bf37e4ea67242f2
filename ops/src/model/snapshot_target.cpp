// CheckSnapshotTarget: is what the user named a snapshot? See open.h.
#include <algorithm>
#include <map>

#include "ckpt/format/layout.h"
#include "ckpt/format/snapshot_discovery.h"
#include "ckpt/ops/open.h"

namespace ckpt::ops {
namespace {

bool IsFile(base::Fs& fs, const std::string& path) {
  auto info = fs.Stat(path);
  return info.ok() && !info->is_dir;
}

bool LooksLikeSnapshotDirName(const std::string& name) {
  if (name.rfind("savepoint-", 0) == 0) return true;
  if (name.size() <= 4 || name.rfind("chk-", 0) != 0) return false;
  return std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The newest complete snapshot among `found`: the highest checkpoint id, else the savepoint whose
// `_metadata` was written last. nullptr when none is complete.
const format::DiscoveredSnapshot* NewestComplete(base::Fs& fs,
                                                 const std::vector<format::DiscoveredSnapshot>& found) {
  const format::DiscoveredSnapshot* best = nullptr;
  int64_t best_mtime = 0;
  for (const auto& s : found) {
    if (!s.has_metadata) continue;
    if (s.checkpoint_id) {
      if (best == nullptr || !best->checkpoint_id || *s.checkpoint_id > *best->checkpoint_id) {
        best = &s;
      }
      continue;
    }
    if (best != nullptr && best->checkpoint_id) continue;
    auto md = fs.Stat(base::JoinPath(s.dir, format::kMetadataFileName));
    const int64_t mtime = md.ok() ? md->mtime_ms : 0;
    if (best == nullptr || mtime > best_mtime) {
      best = &s;
      best_mtime = mtime;
    }
  }
  return best;
}

base::Status RootIsNoSnapshot(base::Fs& fs, const std::string& path,
                              const std::vector<format::DiscoveredSnapshot>& found) {
  std::map<std::string, int> jobs;
  for (const auto& s : found) {
    if (!s.job_id_hex.empty()) ++jobs[s.job_id_hex];
  }
  std::string what = "'" + path + "' is a checkpoint root, not a snapshot: it holds " +
                     std::to_string(found.size()) + " snapshot(s)";
  if (jobs.size() == 1) what += " of job " + jobs.begin()->first;
  if (jobs.size() > 1) what += " of " + std::to_string(jobs.size()) + " jobs";
  const format::DiscoveredSnapshot* newest = NewestComplete(fs, found);
  if (newest == nullptr) {
    what += "; none of them is complete (no _metadata)";
  } else {
    what += "; the newest complete one is " + newest->rel + ": did you mean '" + newest->dir +
            "'?";
  }
  return base::Status::InvalidArgument(what + " ('ckpt-tool ls " + path + "' lists them)");
}

}  // namespace

base::Status CheckSnapshotTarget(base::Fs& fs, const std::string& path) {
  auto info = fs.Stat(path);
  if (!info.ok()) return base::Status::OK();  // the verb names what is wrong with the path
  if (!info->is_dir) {
    if (base::BaseName(path) == format::kMetadataFileName) return base::Status::OK();
    const std::string dir = base::DirName(path);
    const std::string dir_name = base::BaseName(dir);
    if (IsFile(fs, base::JoinPath(dir, format::kMetadataFileName))) {
      return base::Status::InvalidArgument("'" + path + "' is a file of the snapshot '" + dir +
                                           "', not a snapshot: did you mean '" + dir + "'?");
    }
    if (dir_name == "shared" || dir_name == "taskowned") {
      return base::Status::InvalidArgument(
          "'" + path + "' is a state file in the " + dir_name + "/ directory of the job '" +
          base::DirName(dir) + "', not a snapshot: name one of its chk-<n> directories");
    }
    return base::Status::OK();  // perhaps a metadata file under another name: validate says
  }
  if (IsFile(fs, base::JoinPath(path, format::kMetadataFileName))) return base::Status::OK();
  // An incomplete snapshot (no _metadata yet) is a snapshot: validate reports it (CKPT-M001).
  if (LooksLikeSnapshotDirName(base::BaseName(path))) return base::Status::OK();
  auto found = format::DiscoverSnapshots(fs, path);
  if (!found.ok()) return base::Status::OK();  // the verb's own read reports it
  if (!found->empty()) return RootIsNoSnapshot(fs, path, *found);
  auto entries = fs.ListDir(path);
  if (entries.ok() && std::any_of(entries->begin(), entries->end(),
                                  [](const base::DirEntry& e) { return !e.is_dir; })) {
    return base::Status::OK();  // files but no _metadata: an incomplete snapshot
  }
  return base::Status::InvalidArgument(
      "'" + path + "' holds no snapshot: no _metadata in it, and no chk-<n>/ or savepoint-*/ " +
      "directory below it");
}

}  // namespace ckpt::ops
