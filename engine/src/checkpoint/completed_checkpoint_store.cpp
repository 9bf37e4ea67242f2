// CompletedCheckpointStore: retention of completed checkpoints and deletion of subsumed ones,
// with reference counting of the SHARED files they reference.
#include "ckpt/engine/checkpoint/completed_checkpoint_store.h"

#include <utility>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"

namespace ckpt::engine {

CompletedCheckpointStore::CompletedCheckpointStore(base::Fs& fs, uint32_t num_retained,
                                                   pb::RetentionPolicy retention)
    : fs_(fs),
      num_retained_(num_retained == 0 ? 1 : num_retained),
      retention_(retention == pb::RETENTION_POLICY_UNSPECIFIED ? pb::NO_EXTERNALIZED
                                                               : retention) {}

namespace {

// The engine may delete only what it owns, and never a savepoint it took itself.
bool Deletable(const CompletedCheckpoint& c) {
  if (!c.owned) return false;
  if (c.kind == pb::SAVEPOINT && !c.restored) return false;
  return true;
}

}  // namespace

base::Status CompletedCheckpointStore::DeleteSnapshotDir(base::Fs& fs, const std::string& dir) {
  // `_metadata` goes first: if we crash midway the directory is incomplete, never restorable.
  base::Status st = fs.RemoveFile(base::JoinPath(dir, format::kMetadataFileName));
  if (!st.ok() && !st.IsNotFound()) return st.WithContext("deleting " + dir);
  CKPT_RETURN_IF_ERROR_CTX(base::RemoveAll(fs, dir), "deleting " + dir);
  return base::Status::OK();
}

base::Status CompletedCheckpointStore::RegisterSharedFiles(const CompletedCheckpoint& c) {
  if (c.metadata_path.empty()) return base::Status::OK();
  base::Result<pb::CheckpointMetadata> md = format::ReadMetadataFile(fs_, c.metadata_path);
  if (!md.ok()) {
    // Unknown references: its shared files are never deleted (safe, possibly leaking).
    return md.status().WithContext("registering the shared files of " + c.dir);
  }
  std::vector<std::string> shared;
  for (const pb::FileEntry& f : md->files()) {
    if (f.scope() != pb::SHARED) continue;
    base::Result<std::string> path = format::ResolveFile(c.dir, f);
    if (!path.ok()) return path.status().WithContext(c.metadata_path);
    shared.push_back(std::move(*path));
  }
  if (!shared.empty()) registry_.Register(c.dir, shared, Deletable(c));
  return base::Status::OK();
}

base::Status CompletedCheckpointStore::Discard(const CompletedCheckpoint& c) {
  base::Status first;
  if (Deletable(c)) {
    first = DeleteSnapshotDir(fs_, c.dir);
    if (first.ok() && on_deleted_) on_deleted_(c);
  }
  // Shared files go when no retained snapshot references them (never those of a snapshot the
  // engine does not own: the registry protects them).
  for (const std::string& path : registry_.Release(c.dir)) {
    base::Status st = fs_.RemoveFile(path);
    if (!st.ok() && !st.IsNotFound() && first.ok()) first = st.WithContext("deleting " + path);
    // A per-checkpoint upload directory goes with its last file (fails while others remain).
    fs_.RemoveDir(base::DirName(path)).IgnoreError();
  }
  return first;
}

base::Status CompletedCheckpointStore::Add(const CompletedCheckpoint& checkpoint) {
  base::Status registered = RegisterSharedFiles(checkpoint);
  std::vector<CompletedCheckpoint> subsumed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    checkpoints_.push_back(checkpoint);
    while (checkpoints_.size() > num_retained_) {
      subsumed.push_back(std::move(checkpoints_.front()));
      checkpoints_.pop_front();
    }
  }
  base::Status first = registered;
  for (const auto& c : subsumed) {
    base::Status st = Discard(c);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

std::optional<CompletedCheckpoint> CompletedCheckpointStore::Latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (checkpoints_.empty()) return std::nullopt;
  return checkpoints_.back();
}

std::vector<CompletedCheckpoint> CompletedCheckpointStore::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {checkpoints_.begin(), checkpoints_.end()};
}

base::Status CompletedCheckpointStore::Shutdown(JobTermination how) {
  bool discard = false;
  switch (retention_) {
    case pb::RETAIN_ON_CANCELLATION:
      discard = how == JobTermination::kFinished;
      break;
    case pb::DELETE_ON_CANCELLATION:
      discard = how == JobTermination::kFinished || how == JobTermination::kCancelled;
      break;
    default:  // NO_EXTERNALIZED
      discard = how != JobTermination::kSuspended;
      break;
  }
  if (!discard) return base::Status::OK();
  std::deque<CompletedCheckpoint> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.swap(checkpoints_);
  }
  base::Status first;
  for (const auto& c : all) {
    base::Status st = Discard(c);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

}  // namespace ckpt::engine
