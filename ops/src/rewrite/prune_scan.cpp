#include "rewrite/prune_scan.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/snapshot_discovery.h"
#include "formats/snapshot_format.h"
#include "validate/parallel_checks.h"

namespace ckpt::ops::internal {
namespace {

base::Status WalkTree(base::Fs& fs, const std::string& abs_root, const std::string& rel,
                      ScannedTree* tree) {
  std::string abs = JoinRel(abs_root, rel);
  auto listed = fs.ListDir(abs);
  if (!listed.ok()) {
    // Vanished while we looked (a live job subsumed that checkpoint): nothing to plan for it.
    if (listed.status().IsNotFound()) return base::Status::OK();
    return listed.status();
  }
  const auto entries = std::move(listed).value();
  for (const auto& e : entries) {
    std::string child = JoinRel(rel, e.name);
    if (e.is_dir) {
      CKPT_RETURN_IF_ERROR(WalkTree(fs, abs_root, child, tree));
      continue;
    }
    ScannedFile f;
    f.rel = child;
    f.abs = JoinRel(abs_root, child);
    auto info = fs.Stat(f.abs);
    if (info.ok()) {
      f.size_bytes = info->size_bytes;
      // A zero or negative mtime is not a real age: treat it as unknown (never deleted).
      if (info->mtime_ms > 0) f.mtime_ms = info->mtime_ms;
    } else if (info.status().IsNotFound()) {
      continue;  // vanished while we looked: nothing to plan for it
    }
    tree->files.push_back(std::move(f));
  }
  tree->dirs_post_order.push_back(rel);
  return base::Status::OK();
}

void ReadSnapshotMetadata(base::Fs& fs, ScannedSnapshot* snap) {
  std::string path = base::JoinPath(snap->abs, format::kMetadataFileName);
  auto info = fs.Stat(path);
  if (!info.ok()) {
    if (!info.status().IsNotFound()) {
      snap->metadata_state = MetadataState::kUnreadable;
      snap->metadata_error = info.status().ToString();
    }
    return;
  }
  if (info->mtime_ms > 0) snap->metadata_mtime_ms = info->mtime_ms;
  // Every format's metadata is read as our protobuf (an Apache Flink file table resolves relative
  // handles against the chk-N directory and absolute ones in <job>/shared/ as SHARED), so
  // reachability works unchanged; taskowned/ is never scanned, so never deleted.
  auto facts = FormatAt(fs, path).ReadPruneFacts(fs, snap->abs, path);
  if (!facts.ok()) {
    // Anything but a clean read means its references are unknown: it must block deletions.
    snap->metadata_state = facts.status().IsNotFound() ? MetadataState::kMissing
                                                       : MetadataState::kUnreadable;
    snap->metadata_error = facts.status().ToString();
    return;
  }
  snap->metadata_state = MetadataState::kReadable;
  if (facts->restore_files_status.ok()) {
    snap->restore_files = std::move(facts->restore_files);
  } else {
    snap->restore_files_error = facts->restore_files_status.message();
  }
  if (snap->checkpoint_id < 0) snap->checkpoint_id = facts->metadata.checkpoint_id();
  snap->metadata = std::move(facts->metadata);
}

// ReadSnapshotMetadata of every snapshot in `snaps`, on ParallelWorkers threads (the caller's
// among them): each `_metadata` is independent, and on an object store each read waits on the
// network.
void ReadAllSnapshotMetadata(base::Fs& fs, std::vector<ScannedSnapshot>* snaps) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < snaps->size(); i = next++) ReadSnapshotMetadata(fs, &(*snaps)[i]);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < ParallelWorkers(snaps->size()); ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
}

base::Result<bool> IsJobDir(base::Fs& fs, const std::string& abs) {
  CKPT_ASSIGN_OR_RETURN(auto entries, fs.ListDir(abs));
  for (const auto& e : entries) {
    if (!e.is_dir) continue;
    if (e.name == format::kSharedDirName || e.name == format::kTaskOwnedDirName ||
        format::ParseCheckpointDirName(e.name)) {
      return true;
    }
  }
  return false;
}

base::Result<bool> HasMetadata(base::Fs& fs, const std::string& abs) {
  auto info = fs.Stat(base::JoinPath(abs, format::kMetadataFileName));
  if (info.ok()) return !info->is_dir;
  if (info.status().IsNotFound()) return false;
  return info.status();
}

base::Status ScanJob(base::Fs& fs, const std::string& abs_root, const std::string& rel,
                     ScannedRoot* out) {
  ScannedJob job;
  job.rel = rel;
  std::string abs = JoinRel(abs_root, rel);
  CKPT_ASSIGN_OR_RETURN(auto entries, fs.ListDir(abs));
  std::vector<ScannedSnapshot> found;
  for (const auto& e : entries) {
    if (!e.is_dir) continue;
    if (auto id = format::ParseCheckpointDirName(e.name)) {
      ScannedSnapshot snap;
      snap.rel = JoinRel(rel, e.name);
      snap.abs = JoinRel(abs_root, snap.rel);
      snap.checkpoint_id = *id;
      snap.is_checkpoint_dir = true;
      found.push_back(std::move(snap));
    }
  }
  // Each checkpoint's `_metadata` is read before its directory is listed, so every file it
  // references that was there when it was read is listed too.
  ReadAllSnapshotMetadata(fs, &found);
  for (ScannedSnapshot& snap : found) {
    CKPT_RETURN_IF_ERROR(WalkTree(fs, abs_root, snap.rel, &snap.tree));
    if (fs.Stat(snap.abs).status().IsNotFound()) continue;  // subsumed while we looked
    job.checkpoints.push_back(std::move(snap));
  }
  for (const auto& e : entries) {
    if (!e.is_dir) continue;
    std::string child_rel = JoinRel(rel, e.name);
    if (e.name == format::kSharedDirName) {
      job.shared.emplace();
      CKPT_RETURN_IF_ERROR(WalkTree(fs, abs_root, child_rel, &*job.shared));
    } else if (e.name == format::kTaskOwnedDirName) {
      job.task_owned.emplace();
      CKPT_RETURN_IF_ERROR(WalkTree(fs, abs_root, child_rel, &*job.task_owned));
    }
  }
  // The job lock (format/layout.h kJobLockFileName): only probed when the file exists, so a dry
  // run never creates it; a lock we get is released at once. Without locks nothing is known.
  job.lock_path = base::JoinPath(abs, format::kJobLockFileName);
  if (!fs.SupportsLocks()) {
    job.liveness_unknown = true;
  } else if (fs.Stat(job.lock_path).ok()) {
    base::Result<std::unique_ptr<base::FileLock>> lock = fs.TryLockFile(job.lock_path);
    job.live = !lock.ok() && lock.status().code() == base::StatusCode::kFailedPrecondition;
  }
  std::sort(job.checkpoints.begin(), job.checkpoints.end(),
            [](const auto& a, const auto& b) { return a.checkpoint_id < b.checkpoint_id; });
  out->jobs.push_back(std::move(job));
  return base::Status::OK();
}

}  // namespace

std::set<std::string> SnapshotReferences(const ScannedSnapshot& snap) {
  std::set<std::string> refs;
  if (!snap.metadata) return refs;
  for (const auto& f : snap.metadata->files()) {
    auto resolved = format::ResolveFile(snap.abs, f);
    // An escaping or malformed reference is validate's business; it cannot protect a file here
    // because it does not name one inside the storage.
    if (resolved.ok()) refs.insert(NormalizeAbsolute(*resolved));
  }
  for (const auto& op : snap.metadata->operators()) {
    for (const auto& st : op.subtasks()) {
      for (const auto& c : st.committables()) {
        if (!c.pending_path().empty()) refs.insert(NormalizeAbsolute(c.pending_path()));
        if (!c.final_path().empty()) refs.insert(NormalizeAbsolute(c.final_path()));
      }
    }
  }
  return refs;
}

std::string JoinRel(const std::string& base, const std::string& rel) {
  if (rel.empty()) return base;
  if (base.empty()) return rel;
  return base::JoinPath(base, rel);
}

std::string NormalizeAbsolute(const std::string& path) {
  // A URI ("s3://bucket/key") is absolute already: its "scheme://authority" stays as it is and
  // only the path after it is normalized.
  std::string authority;
  std::string full = path;
  const size_t slashes = path.find("://");
  if (!base::SchemeOf(path).empty() && slashes != std::string::npos) {
    const size_t path_start = path.find('/', slashes + 3);
    authority = path.substr(0, path_start);
    full = path_start == std::string::npos ? std::string("/") : path.substr(path_start);
  }
  if (full.empty() || full[0] != '/') {
    char buf[4096];
    std::string cwd = getcwd(buf, sizeof(buf)) != nullptr ? std::string(buf) : std::string("/");
    full = cwd + "/" + full;
  }
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= full.size()) {
    size_t slash = full.find('/', start);
    if (slash == std::string::npos) slash = full.size();
    std::string comp = full.substr(start, slash - start);
    if (comp == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!comp.empty() && comp != ".") {
      parts.push_back(comp);
    }
    start = slash + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return authority + (out.empty() ? "/" : out);
}

base::Result<ScannedRoot> ScanRoot(base::Fs& fs, const std::string& root) {
  auto info = fs.Stat(root);
  if (!info.ok()) {
    if (info.status().IsNotFound()) return base::Status::NotFound(root + " does not exist");
    return info.status();
  }
  if (!info->is_dir) return base::Status::InvalidArgument(root + " is not a directory");
  ScannedRoot out;
  out.root = root;
  out.abs_root = NormalizeAbsolute(root);
  // The snapshots are those format::DiscoverSnapshots finds (the walk ls, the inspector and
  // ckpt-engine --from-latest use); their job directories are scanned whole (chk-*, shared/).
  CKPT_ASSIGN_OR_RETURN(std::vector<format::DiscoveredSnapshot> found,
                        format::DiscoverSnapshots(fs, out.abs_root));
  std::set<std::string> job_dirs;
  for (const auto& d : found) {
    if (d.checkpoint_id) {
      job_dirs.insert(d.job_rel);
    } else {
      ScannedSnapshot snap;
      snap.rel = d.rel;
      snap.abs = JoinRel(out.abs_root, d.rel);
      ReadSnapshotMetadata(fs, &snap);
      out.other_snapshots.push_back(std::move(snap));
    }
  }
  // A job whose checkpoints are all gone still has shared/ files to plan for.
  CKPT_ASSIGN_OR_RETURN(bool root_is_job, IsJobDir(fs, out.abs_root));
  if (root_is_job) job_dirs.insert("");
  CKPT_ASSIGN_OR_RETURN(auto entries, fs.ListDir(out.abs_root));
  for (const auto& e : entries) {
    if (!e.is_dir || root_is_job) continue;
    const std::string abs = JoinRel(out.abs_root, e.name);
    CKPT_ASSIGN_OR_RETURN(bool has, HasMetadata(fs, abs));
    if (has) continue;
    CKPT_ASSIGN_OR_RETURN(bool is_job, IsJobDir(fs, abs));
    if (is_job) job_dirs.insert(e.name);
  }
  for (const std::string& job : job_dirs) CKPT_RETURN_IF_ERROR(ScanJob(fs, out.abs_root, job, &out));
  return out;
}

}  // namespace ckpt::ops::internal
