// CheckpointCoordinator: creation, periodic triggering, savepoints, expiry and aborts.
// Acknowledgements and finalization live in checkpoint_coordinator_ack.cpp.
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "checkpoint/checkpoint_coordinator_pending.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"

namespace ckpt::engine {

namespace {

void DefaultProperty(std::map<std::string, std::string>& p, const std::string& k, std::string v) {
  p.emplace(k, std::move(v));
}

}  // namespace

base::Result<std::unique_ptr<CheckpointCoordinator>> CheckpointCoordinator::Create(
    base::Fs& fs, Clock& clock, CheckpointRuntime& runtime, CheckpointCoordinatorOptions options) {
  CKPT_ASSIGN_OR_RETURN(std::string job_hex, format::JobIdHex(options.job_id));
  if (options.job_graph.operators_size() == 0) {
    return base::Status::InvalidArgument("checkpoint coordinator: the job graph has no operators");
  }
  if (options.max_concurrent == 0) {
    return base::Status::InvalidArgument("checkpoint coordinator: max_concurrent must be >= 1");
  }
  uint32_t expected = 0;
  std::map<format::OperatorId, uint32_t> parallelism;
  for (const auto& op : options.job_graph.operators()) {
    CKPT_ASSIGN_OR_RETURN(format::OperatorId id, format::OperatorId::FromBytes(op.operator_id()));
    parallelism[id] = op.parallelism();
    expected += op.parallelism();
  }
  auto& p = options.properties;
  DefaultProperty(p, "execution.checkpointing.interval", std::to_string(options.interval_ms));
  DefaultProperty(p, "execution.checkpointing.timeout", std::to_string(options.timeout_ms));
  DefaultProperty(p, "execution.checkpointing.min-pause", std::to_string(options.min_pause_ms));
  DefaultProperty(p, "execution.checkpointing.max-concurrent-checkpoints",
                  std::to_string(options.max_concurrent));
  DefaultProperty(p, "execution.checkpointing.tolerable-failed-checkpoints",
                  std::to_string(options.tolerable_failures));
  DefaultProperty(p, "execution.checkpointing.mode", pb::CheckpointingMode_Name(options.mode));
  DefaultProperty(p, "execution.checkpointing.num-retained",
                  std::to_string(options.num_retained));
  DefaultProperty(p, "execution.checkpointing.externalized-checkpoint-retention",
                  pb::RetentionPolicy_Name(options.retention));
  DefaultProperty(p, "state.backend.type", "hashmap");
  std::string job_dir =
      options.checkpoint_dir.empty() ? "" : format::JobDir(options.checkpoint_dir, job_hex);
  std::optional<pb::RestoreInfo> restored = options.restored_from;
  std::unique_ptr<CheckpointCoordinator> c(new CheckpointCoordinator(
      fs, clock, runtime, std::move(options), std::move(job_dir), std::move(job_hex), expected));
  c->parallelism_ = std::move(parallelism);
  std::string restored_dir;
  if (restored) {
    base::Result<format::SnapshotLocation> loc = format::LocateSnapshot(fs, restored->path());
    if (loc.ok()) restored_dir = loc->dir;
  }
  for (const CompletedCheckpoint& earlier : c->options_.earlier_checkpoints) {
    if (c->options_.stats) {
      // The history survives restarts: each retained snapshot carries its own metrics.
      base::Result<pb::CheckpointMetadata> md = format::ReadMetadataFile(fs, earlier.metadata_path);
      if (md.ok()) c->options_.stats->AddFromMetadata(*md, earlier.dir);
    }
    if (earlier.dir == restored_dir) continue;  // registered below as the restored snapshot
    c->store_.Add(earlier).IgnoreError();
  }
  if (restored) {
    // The restored snapshot serves restarts until the first checkpoint completes; it is deleted
    // when subsumed only if this job claimed it.
    base::Result<format::SnapshotLocation> loc = format::LocateSnapshot(fs, restored->path());
    if (loc.ok()) {
      CompletedCheckpoint r;
      r.checkpoint_id = restored->checkpoint_id();
      r.kind = restored->kind() == pb::SNAPSHOT_KIND_UNSPECIFIED ? pb::CHECKPOINT
                                                                  : restored->kind();
      r.dir = loc->dir;
      r.metadata_path = loc->metadata;
      r.owned = restored->claim_mode() == pb::CLAIM;
      r.restored = true;
      c->store_.Add(r).IgnoreError();
      c->counts_.restored = 1;
      if (c->options_.stats) {
        RestoredCheckpointStats rs;
        rs.checkpoint_id = r.checkpoint_id;
        rs.savepoint = r.kind == pb::SAVEPOINT;
        rs.external_path = r.dir;
        rs.restore_timestamp_ms = clock.NowMs();
        c->options_.stats->ReportRestored(rs);
      }
    }
  }
  return c;
}

CheckpointCoordinator::CheckpointCoordinator(base::Fs& fs, Clock& clock,
                                             CheckpointRuntime& runtime,
                                             CheckpointCoordinatorOptions options,
                                             std::string job_dir, std::string job_id_hex,
                                             uint32_t expected_acks)
    : fs_(fs),
      clock_(clock),
      runtime_(runtime),
      options_(std::move(options)),
      job_dir_(std::move(job_dir)),
      job_id_hex_(std::move(job_id_hex)),
      expected_acks_(expected_acks),
      store_(fs, options_.num_retained, options_.retention),
      next_checkpoint_id_(options_.first_checkpoint_id < 1 ? 1 : options_.first_checkpoint_id),
      last_trigger_ms_(clock.NowMs()),
      rng_(static_cast<uint64_t>(clock.NowMs()) ^ reinterpret_cast<uintptr_t>(this)) {
  // The history says which completed checkpoints are gone (Flink's `discarded`).
  if (options_.stats) {
    store_.OnDeleted([stats = options_.stats](const CompletedCheckpoint& c) {
      stats->ReportDiscarded(c.checkpoint_id);
    });
  }
}

CheckpointCoordinator::~CheckpointCoordinator() { Stop(); }

void CheckpointCoordinator::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { RunLoop(); });
}

void CheckpointCoordinator::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CheckpointCoordinator::RunLoop() {
  const auto wait = std::chrono::milliseconds(
      std::clamp<int64_t>(options_.interval_ms / 10, 1, 50));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    Tick();
    lock.lock();
    cv_.wait_for(lock, wait, [this] { return stop_; });
  }
}

void CheckpointCoordinator::Tick() {
  std::lock_guard<std::mutex> trigger(trigger_mu_);
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t now = clock_.NowMs();
  std::vector<int64_t> expired;
  for (const auto& [id, p] : pending_) {
    if (now - p->options.trigger_timestamp_ms >= options_.timeout_ms) expired.push_back(id);
  }
  for (int64_t id : expired) {
    auto it = pending_.find(id);
    if (it == pending_.end()) continue;
    const bool checkpoint = !it->second->options.is_savepoint();
    AbortLocked(lock, id,
                base::Status::Cancelled("checkpoint " + std::to_string(id) + " expired after " +
                                        std::to_string(now - it->second->options.trigger_timestamp_ms) +
                                        " ms (timeout " + std::to_string(options_.timeout_ms) +
                                        " ms)"),
                checkpoint);
  }
  if (options_.interval_ms <= 0 || job_dir_.empty() || SavepointPendingLocked()) return;
  const uint32_t periodic = InFlightCheckpointsLocked();
  if (periodic >= options_.max_concurrent) return;
  if (options_.min_pause_ms > 0 && periodic > 0) return;
  const int64_t t = clock_.NowMs();
  if (t - last_trigger_ms_ < options_.interval_ms) return;
  if (last_finish_ms_ > 0 && t - last_finish_ms_ < options_.min_pause_ms) return;
  TriggerLocked(lock, pb::CHECKPOINT, pb::SAVEPOINT_POST_ACTION_UNSPECIFIED,
                pb::SAVEPOINT_FORMAT_UNSPECIFIED, "", nullptr)
      .status()
      .IgnoreError();  // a failed trigger is counted and reported through the runtime
}

uint32_t CheckpointCoordinator::InFlightCheckpointsLocked() const {
  uint32_t n = finalizing_checkpoints_;
  for (const auto& [id, p] : pending_) n += p->periodic ? 1 : 0;
  return n;
}

bool CheckpointCoordinator::SavepointPendingLocked() const {
  for (const auto& [id, p] : pending_) {
    if (p->options.is_savepoint()) return true;
  }
  return false;
}

base::Result<int64_t> CheckpointCoordinator::TriggerCheckpoint(bool full) {
  std::lock_guard<std::mutex> trigger(trigger_mu_);
  std::unique_lock<std::mutex> lock(mu_);
  if (job_dir_.empty()) {
    return base::Status::FailedPrecondition(
        "cannot trigger a checkpoint: no checkpoint directory is configured");
  }
  const uint32_t periodic = InFlightCheckpointsLocked();
  if (periodic >= options_.max_concurrent) {
    return base::Status::FailedPrecondition(
        "cannot trigger a checkpoint: " + std::to_string(periodic) +
        " checkpoint(s) in progress, max concurrent is " +
        std::to_string(options_.max_concurrent));
  }
  if (SavepointPendingLocked()) {
    return base::Status::FailedPrecondition(
        "cannot trigger a checkpoint while a savepoint is in progress");
  }
  return TriggerLocked(lock, pb::CHECKPOINT, pb::SAVEPOINT_POST_ACTION_UNSPECIFIED,
                       pb::SAVEPOINT_FORMAT_UNSPECIFIED, "", nullptr, full);
}

std::shared_future<base::Result<CompletedCheckpoint>> CheckpointCoordinator::TriggerSavepoint(
    std::string target_dir, pb::SavepointPostAction post_action, pb::SavepointFormat format) {
  auto promise = std::make_shared<Promise>();
  std::shared_future<base::Result<CompletedCheckpoint>> future = promise->get_future().share();
  if (target_dir.empty()) target_dir = options_.savepoint_dir;
  if (target_dir.empty()) {
    promise->set_value(base::Status::InvalidArgument(
        "no savepoint directory: pass a target directory or configure --savepoint-dir"));
    return future;
  }
  if (post_action == pb::SAVEPOINT_POST_ACTION_UNSPECIFIED) post_action = pb::POST_ACTION_NONE;
  std::lock_guard<std::mutex> trigger(trigger_mu_);
  std::unique_lock<std::mutex> lock(mu_);
  // On failure the promise has been fulfilled by the abort.
  TriggerLocked(lock, pb::SAVEPOINT, post_action, format, target_dir, promise)
      .status()
      .IgnoreError();
  return future;
}

base::Result<int64_t> CheckpointCoordinator::TriggerLocked(std::unique_lock<std::mutex>& lock,
                                                           pb::SnapshotKind kind,
                                                           pb::SavepointPostAction post_action,
                                                           pb::SavepointFormat format,
                                                           const std::string& target_dir,
                                                           std::shared_ptr<Promise> promise,
                                                           bool full) {
  const bool checkpoint = kind == pb::CHECKPOINT;
  int64_t id = next_checkpoint_id_++;
  std::string dir;
  if (checkpoint) {
    // Skip ids whose directory holds a published checkpoint (an earlier run of this job);
    // a directory without `_metadata` is an incomplete leftover and is replaced below.
    for (;; id = next_checkpoint_id_++) {
      dir = format::CheckpointDir(job_dir_, id);
      if (!fs_.Stat(base::JoinPath(dir, format::kMetadataFileName)).ok()) break;
    }
  } else {
    dir = base::JoinPath(target_dir, format::NewSavepointDirName(job_id_hex_, rng_));
  }
  const int64_t now = clock_.NowMs();
  auto pending = std::make_unique<Pending>();
  pending->options.checkpoint_id = id;
  pending->options.trigger_timestamp_ms = now;
  pending->options.kind = kind;
  pending->options.post_action = checkpoint ? pb::SAVEPOINT_POST_ACTION_UNSPECIFIED : post_action;
  pending->options.savepoint_format = checkpoint ? pb::SAVEPOINT_FORMAT_UNSPECIFIED : format;
  pending->options.mode = options_.mode;
  pending->options.snapshot_dir = dir;
  pending->options.full = checkpoint && full;
  pending->periodic = checkpoint;
  pending->promise = std::move(promise);
  const CheckpointOptions co = pending->options;
  pending_[id] = std::move(pending);
  if (options_.stats) {
    options_.stats->ReportPending(id, kind, now, expected_acks_, co.savepoint_format,
                                  co.post_action);
  }
  ++counts_.triggered;
  ++counts_.in_progress;
  if (checkpoint) last_trigger_ms_ = now;
  lock.unlock();

  base::Status st;
  if (fs_.Stat(dir).ok()) st = base::RemoveAll(fs_, dir);
  if (st.ok()) st = fs_.CreateDirs(dir);
  std::vector<CoordinatorSnapshot> coordinators;
  bool refused = false;
  if (st.ok()) {
    base::Result<std::vector<CoordinatorSnapshot>> cs = runtime_.SnapshotCoordinators(id);
    if (cs.ok()) {
      coordinators = std::move(*cs);
    } else {
      st = cs.status().WithContext("snapshotting operator coordinators");
    }
  }
  if (st.ok()) {
    lock.lock();
    auto it = pending_.find(id);
    if (it != pending_.end()) it->second->coordinators = std::move(coordinators);
    lock.unlock();
    st = runtime_.InjectBarriers(co);
    // The job is not running (restarting, finishing): as Flink's NOT_ALL_REQUIRED_TASKS_RUNNING
    // this is not a failed checkpoint and does not count towards tolerable failures.
    refused = st.code() == base::StatusCode::kFailedPrecondition;
  }
  lock.lock();
  if (!st.ok()) {
    const base::Status reason =
        st.WithContext(std::string(checkpoint ? "checkpoint " : "savepoint ") +
                       std::to_string(id) + " could not be triggered");
    if (pending_.count(id) != 0) {
      AbortLocked(lock, id, reason, checkpoint && !refused,
                  refused ? AbortLog::kQuiet : AbortLog::kLog);
      if (refused) {
        --counts_.failed;
        --counts_.triggered;
      }
    }
    return reason;
  }
  return id;
}

bool CheckpointCoordinator::CountFailureLocked() {
  ++consecutive_failures_;
  if (consecutive_failures_ > options_.tolerable_failures) {
    consecutive_failures_ = 0;
    return true;
  }
  return false;
}

void CheckpointCoordinator::AbortLocked(std::unique_lock<std::mutex>& lock, int64_t checkpoint_id,
                                        const base::Status& reason, bool counts_as_failure,
                                        AbortLog log) {
  auto it = pending_.find(checkpoint_id);
  if (it == pending_.end()) return;
  std::unique_ptr<Pending> p = std::move(it->second);
  pending_.erase(it);
  --counts_.in_progress;
  ++counts_.failed;
  const bool fail_job = counts_as_failure && CountFailureLocked();
  if (!p->options.is_savepoint()) last_finish_ms_ = clock_.NowMs();
  if (options_.stats) options_.stats->ReportFailed(checkpoint_id, clock_.NowMs(), reason.ToString());
  aborted_dirs_[checkpoint_id] = p->options.snapshot_dir;
  while (aborted_dirs_.size() > 64) aborted_dirs_.erase(aborted_dirs_.begin());
  const uint32_t tolerable = options_.tolerable_failures;
  lock.unlock();

  if (log == AbortLog::kLog && options_.log) {
    options_.log(std::string(p->options.is_savepoint() ? "Savepoint " : "Checkpoint ") +
                 std::to_string(checkpoint_id) + " failed: " + reason.ToString());
  }
  base::RemoveAll(fs_, p->options.snapshot_dir).IgnoreError();
  runtime_.NotifyCheckpointAborted(checkpoint_id, reason);
  if (p->promise) p->promise->set_value(reason);
  if (fail_job) {
    runtime_.FailJob(base::Status(
        reason.code(), "exceeded the number of tolerable failed checkpoints (" +
                           std::to_string(tolerable) + "); last failure: " + reason.message()));
  }
  lock.lock();
}

void CheckpointCoordinator::AbortPendingCheckpoints(const base::Status& reason) {
  std::unique_lock<std::mutex> lock(mu_);
  std::vector<int64_t> ids;
  for (const auto& [id, p] : pending_) ids.push_back(id);
  for (int64_t id : ids) AbortLocked(lock, id, reason, false);
}

void CheckpointCoordinator::RemoveAbortedLeftovers() {
  std::vector<std::string> dirs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, dir] : aborted_dirs_) dirs.push_back(dir);
  }
  for (const std::string& dir : dirs) base::RemoveAll(fs_, dir).IgnoreError();
}

std::optional<CompletedCheckpoint> CheckpointCoordinator::LatestCompletedCheckpoint() const {
  return store_.Latest();
}

base::Status CheckpointCoordinator::Shutdown(JobTermination how) { return store_.Shutdown(how); }

CheckpointCounts CheckpointCoordinator::counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

std::vector<int64_t> CheckpointCoordinator::PendingCheckpointIds() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int64_t> ids;
  for (const auto& [id, p] : pending_) ids.push_back(id);
  return ids;
}

}  // namespace ckpt::engine
