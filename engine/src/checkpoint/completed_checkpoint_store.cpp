// CompletedCheckpointStore: retention of completed checkpoints and deletion of subsumed ones.
#include "ckpt/engine/checkpoint/completed_checkpoint_store.h"

#include <utility>

#include "ckpt/format/layout.h"

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

base::Status CompletedCheckpointStore::Add(const CompletedCheckpoint& checkpoint) {
  std::vector<CompletedCheckpoint> subsumed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    checkpoints_.push_back(checkpoint);
    while (checkpoints_.size() > num_retained_) {
      subsumed.push_back(std::move(checkpoints_.front()));
      checkpoints_.pop_front();
    }
  }
  base::Status first;
  for (const auto& c : subsumed) {
    if (!Deletable(c)) continue;
    base::Status st = DeleteSnapshotDir(fs_, c.dir);
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
    if (!Deletable(c)) continue;
    base::Status st = DeleteSnapshotDir(fs_, c.dir);
    if (!st.ok() && first.ok()) first = st;
  }
  return first;
}

}  // namespace ckpt::engine
