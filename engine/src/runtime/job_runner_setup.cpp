// JobRunner: Create (spec overrides, validation, job id, restore plan, coordinator) and the
// public control methods.
#include <chrono>
#include <random>
#include <thread>

#include "ckpt/engine/checkpoint/checkpoint_discovery.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "job_runner_impl.h"

namespace ckpt::engine {
namespace {

base::Result<std::string> JobIdBytes(const std::string& hex, const std::string& field) {
  base::Result<format::OperatorId> id = format::OperatorId::FromHex(hex);
  if (!id.ok()) {
    return base::Status::InvalidArgument(field + ": job id must be 32 hex digits, got '" + hex +
                                         "'");
  }
  return id->ToBytes();
}

std::string RandomJobIdBytes() {
  std::random_device rd;
  std::mt19937_64 rng((uint64_t{rd()} << 32) ^ rd());
  std::string bytes(16, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  return bytes;
}

// Highest chk-<n> in `job_dir` (complete or not), so a resumed job never reuses a directory
// name a crashed run left behind.
int64_t HighestCheckpointDir(base::Fs& fs, const std::string& job_dir) {
  int64_t highest = 0;
  base::Result<std::vector<base::DirEntry>> entries = fs.ListDir(job_dir);
  if (!entries.ok()) return 0;
  for (const base::DirEntry& e : *entries) {
    if (std::optional<int64_t> id = format::ParseCheckpointDirName(e.name)) {
      highest = std::max(highest, *id);
    }
  }
  return highest;
}


// Takes <job_dir>/_job.lock, waiting up to `wait_ms` for a short-lived holder (a prune deleting
// in the job directory); FailedPrecondition if it stays held (another engine runs this job), or
// if the filesystem has no locks (Fs::SupportsLocks): another engine on the same job directory
// could not be ruled out, and two would overwrite each other's checkpoints.
base::Result<std::unique_ptr<base::FileLock>> LockJobDir(base::Fs& fs, const std::string& job_dir,
                                                         uint64_t wait_ms) {
  const std::string path = base::JoinPath(job_dir, format::kJobLockFileName);
  const auto no_locks = [&](const std::string& why) {
    return base::Status::FailedPrecondition(
        "job directory " + job_dir + ": " + why +
        ", so no other engine running this job can be ruled out (" + path + " cannot be held)");
  };
  if (!fs.SupportsLocks()) return no_locks("its filesystem has no file locks");
  CKPT_RETURN_IF_ERROR_CTX(fs.CreateDirs(job_dir), "creating the job directory");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  while (true) {
    base::Result<std::unique_ptr<base::FileLock>> lock = fs.TryLockFile(path);
    if (lock.ok()) return lock;
    if (lock.status().code() == base::StatusCode::kUnimplemented) {
      return no_locks(lock.status().message());
    }
    if (lock.status().code() != base::StatusCode::kFailedPrecondition ||
        std::chrono::steady_clock::now() >= deadline) {
      if (lock.status().code() == base::StatusCode::kFailedPrecondition) {
        return base::Status::FailedPrecondition(
            "job directory " + job_dir + " is in use: another engine runs this job (" + path +
            " stayed locked for " + std::to_string(wait_ms) + " ms)");
      }
      return lock.status().WithContext("locking the job directory");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

std::string JobRunner::Impl::ChooseLatest(const DiscoveredCheckpoints& found,
                                          std::vector<std::string>* report,
                                          base::Status* refusal) const {
  const CompletedCheckpoint* chosen = found.complete.empty() ? nullptr : &found.complete.front();
  const int64_t chosen_id = chosen != nullptr ? chosen->checkpoint_id : -1;
  for (const SkippedSnapshot& s : found.skipped_detail) {
    if (s.checkpoint_id <= chosen_id) continue;
    report->push_back("Skipped newer snapshot " + s.name + ": " + s.reason);
  }
  if (found.finished_at && *found.finished_at >= chosen_id) {
    *refusal = base::Status::FailedPrecondition(
        "job " + job_id_hex_ + " already finished (final checkpoint " +
        std::to_string(*found.finished_at) + ", recorded in " +
        base::JoinPath(job_dir_, kFinishedMarkerName) +
        "): its output is complete and there is nothing to resume; pass --allow-empty-start to "
        "run it again from the beginning");
    return "";
  }
  if (chosen == nullptr) {
    if (!found.any_published) {
      report->push_back("No snapshot of job " + job_id_hex_ + " was ever published in " +
                        job_dir_ + " (killed before its first checkpoint): nothing was " +
                        "committed, starting without state");
      return "";
    }
    std::string msg = "no usable snapshot of job " + job_id_hex_ + " in " + job_dir_ +
                      " although the job published some, so starting empty would repeat " +
                      "committed output; skipped:";
    for (const std::string& s : found.skipped) msg += " [" + s + "]";
    *refusal = base::Status::FailedPrecondition(
        msg + ". Pass --allow-empty-start to start without state anyway, or -s to choose one");
    return "";
  }
  const SnapshotOrigin origin = found.origins.front();
  report->push_back(
      std::string("Chose ") +
      (origin == SnapshotOrigin::kCheckpointDir ? "checkpoint "
       : origin == SnapshotOrigin::kSavepointRef ? "savepoint "
                                                 : "the snapshot it was restored from, ") +
      std::to_string(chosen_id) + " (" + chosen->dir + "): the newest usable snapshot of job " +
      job_id_hex_);
  return chosen->dir;
}

JobRunner::JobRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JobRunner::~JobRunner() = default;

base::Result<std::unique_ptr<JobRunner>> JobRunner::Create(pb::JobSpec spec,
                                                           JobRunnerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->fs_ = options.fs != nullptr ? options.fs : &base::Fs::Default();
  impl->registry_ = options.registry != nullptr ? options.registry : &OperatorRegistry::Builtin();
  if (options.parallelism) {
    if (*options.parallelism == 0) {
      return base::Status::InvalidArgument("--parallelism must be at least 1");
    }
    // The parsed spec has every operator's parallelism filled in, so "operators that do not
    // set their own" are those at the spec's default.
    const uint32_t old_default = spec.parallelism() == 0 ? 1 : spec.parallelism();
    for (pb::OperatorSpec& op : *spec.mutable_operators()) {
      if (op.parallelism() == 0 || op.parallelism() == old_default) {
        op.set_parallelism(*options.parallelism);
      }
    }
    spec.set_parallelism(*options.parallelism);
  }
  pb::CheckpointSpec* cp = spec.mutable_checkpointing();
  if (options.interval_ms) cp->set_interval_ms(*options.interval_ms);
  if (options.mode) cp->set_mode(*options.mode);
  if (options.num_retained) cp->set_num_retained(*options.num_retained);
  if (options.retention) cp->set_retention(*options.retention);
  if (options.max_restart_attempts) spec.mutable_restart()->set_max_attempts(*options.max_restart_attempts);
  if (options.restart_delay_ms) spec.mutable_restart()->set_delay_ms(*options.restart_delay_ms);
  // The spec's network settings replace the options' (zero: not set); `ckpt-engine run` writes
  // its flags into the spec, so a flag wins over the spec and the spec over the defaults.
  NetworkOptions& net = options.network;
  if (cp->aligned_checkpoint_timeout_ms() > 0) {
    net.aligned_checkpoint_timeout_ms = static_cast<int64_t>(cp->aligned_checkpoint_timeout_ms());
  }
  if (cp->max_subtasks_per_channel_state_file() > 0) {
    net.max_subtasks_per_channel_state_file = cp->max_subtasks_per_channel_state_file();
  }
  if (cp->debloat()) net.debloat_enabled = true;
  if (cp->debloat_target_ms() > 0) net.debloat_target_ms = static_cast<int64_t>(cp->debloat_target_ms());
  if (cp->debloat_period_ms() > 0) net.debloat_period_ms = static_cast<int64_t>(cp->debloat_period_ms());
  if (cp->min_buffer_bytes() > 0) net.min_buffer_bytes = cp->min_buffer_bytes();
  // The spec's backend fields, then the flags that override them.
  CKPT_ASSIGN_OR_RETURN(impl->state_backend_, StateBackendConfigFromSpec(spec));
  if (options.state_backend) {
    CKPT_ASSIGN_OR_RETURN(impl->state_backend_.kind,
                          ParseStateBackendKind(*options.state_backend, "--state-backend"));
  }
  if (options.incremental) impl->state_backend_.incremental = *options.incremental;
  if (options.changelog) impl->state_backend_.changelog = *options.changelog;
  if (options.state_local_dir) impl->state_backend_.local_dir = *options.state_local_dir;
  if (options.changelog_materialization_interval_ms) {
    impl->state_backend_.materialization_interval_ms =
        *options.changelog_materialization_interval_ms;
  }
  if (impl->state_backend_.incremental && impl->state_backend_.kind != StateBackendKind::kRocksDb) {
    return base::Status::InvalidArgument(
        "incremental checkpoints (--incremental true or the spec's \"incremental\") need the "
        "rocksdb state backend (--state-backend rocksdb or \"state_backend\": \"rocksdb\")");
  }
  CKPT_RETURN_IF_ERROR(format::ValidateJobSpec(spec, "job spec"));
  CKPT_ASSIGN_OR_RETURN(impl->graph_, format::BuildJobGraph(spec));
  CKPT_RETURN_IF_ERROR(runtime::ValidateOperators(spec, impl->graph_, *impl->registry_));
  if (cp->interval_ms() > 0 && options.checkpoint_dir.empty()) {
    return base::Status::InvalidArgument(
        "checkpointing.interval_ms is " + std::to_string(cp->interval_ms()) +
        " but no checkpoint directory is set (--checkpoint-dir)");
  }
  impl->mode_ = cp->mode() == pb::CHECKPOINTING_MODE_UNSPECIFIED ? pb::ALIGNED_EXACTLY_ONCE
                                                                : cp->mode();
  // Restart strategy defaults: none without checkpointing, fixed-delay with 3 attempts with it.
  const bool checkpoints_on = cp->interval_ms() > 0;
  impl->max_attempts_ = spec.restart().max_attempts() != 0 || options.max_restart_attempts
                            ? spec.restart().max_attempts()
                            : (checkpoints_on ? 3u : 0u);
  impl->delay_ms_ = spec.restart().delay_ms() != 0 || options.restart_delay_ms
                        ? spec.restart().delay_ms()
                        : 1000;

  std::string id_hex = !options.job_id_hex.empty() ? options.job_id_hex : spec.job_id();
  if (!id_hex.empty()) {
    CKPT_ASSIGN_OR_RETURN(impl->job_id_bytes_,
                          JobIdBytes(id_hex, options.job_id_hex.empty() ? "job_id" : "--from-latest"));
  } else {
    impl->job_id_bytes_ = RandomJobIdBytes();
  }
  CKPT_ASSIGN_OR_RETURN(impl->job_id_hex_, format::JobIdHex(impl->job_id_bytes_));
  if (!options.checkpoint_dir.empty()) {
    impl->job_dir_ = format::JobDir(options.checkpoint_dir, impl->job_id_hex_);
  }

  CheckpointCoordinatorOptions co;
  co.job_id = impl->job_id_bytes_;
  co.job_name = spec.name();
  co.job_graph = impl->graph_;
  co.checkpoint_dir = options.checkpoint_dir;
  co.savepoint_dir = options.savepoint_dir;
  co.interval_ms = static_cast<int64_t>(cp->interval_ms());
  if (cp->timeout_ms() != 0) co.timeout_ms = static_cast<int64_t>(cp->timeout_ms());
  co.min_pause_ms = static_cast<int64_t>(cp->min_pause_ms());
  if (cp->max_concurrent() != 0) co.max_concurrent = cp->max_concurrent();
  co.tolerable_failures = cp->tolerable_failures();
  if (cp->num_retained() != 0) co.num_retained = cp->num_retained();
  if (cp->retention() != pb::RETENTION_POLICY_UNSPECIFIED) co.retention = cp->retention();
  co.mode = impl->mode_;
  co.log = options.log;
  impl->stats_ = std::make_shared<CheckpointStatsTracker>();
  co.stats = impl->stats_;
  if (options.restore_from_latest && !options.restore_path.empty()) {
    return base::Status::InvalidArgument("-s and --from-latest are mutually exclusive");
  }
  if (options.restore_from_latest && impl->job_dir_.empty()) {
    return base::Status::InvalidArgument("--from-latest needs a checkpoint directory");
  }
  // The job lock first: nothing below may look at or change the job directory while another
  // engine runs the job.
  if (!impl->job_dir_.empty()) {
    const bool existed = impl->fs_->Stat(impl->job_dir_).ok();
    if (options.restore_from_latest && !existed && !options.allow_empty_start) {
      return base::Status::NotFound("--from-latest: job directory " + impl->job_dir_ +
                                    " does not exist (pass --allow-empty-start to start the job "
                                    "there without state)");
    }
    CKPT_ASSIGN_OR_RETURN(impl->job_lock_,
                          LockJobDir(*impl->fs_, impl->job_dir_, options.lock_wait_ms));
  }
  if (options.restore_from_latest) {
    CKPT_ASSIGN_OR_RETURN(DiscoveredCheckpoints found,
                          DiscoverCheckpoints(*impl->fs_, impl->job_dir_));
    base::Status refusal;
    std::string chosen = impl->ChooseLatest(found, &impl->restore_report_, &refusal);
    if (!refusal.ok()) {
      if (!options.allow_empty_start) return refusal.WithContext("--from-latest");
      impl->restore_report_.push_back("Starting without state (--allow-empty-start): " +
                                      refusal.message());
    }
    if (!chosen.empty()) {
      options.restore_path = chosen;
      // The job's own checkpoints are its to delete (Flink's recovery of its completed
      // checkpoint store); a savepoint or an external snapshot keeps the requested claim mode.
      if (found.origins.front() == SnapshotOrigin::kCheckpointDir) options.claim_mode = pb::CLAIM;
    }
  }
  if (!impl->job_dir_.empty()) {
    // Leftovers of earlier runs of this job: their complete checkpoints are registered with the
    // store so retention subsumes them; incomplete ones (a run killed mid-checkpoint) can never
    // complete now that we hold the lock, so their directories go.
    base::Result<DiscoveredCheckpoints> earlier = DiscoverCheckpoints(*impl->fs_, impl->job_dir_);
    if (earlier.ok()) {
      for (size_t i = earlier->complete.size(); i-- > 0;) {  // oldest first
        const CompletedCheckpoint& c = earlier->complete[i];
        if (earlier->origins[i] != SnapshotOrigin::kCheckpointDir || !c.owned) continue;
        co.earlier_checkpoints.push_back(c);
      }
      std::vector<std::string> removed;
      for (const SkippedSnapshot& s : earlier->skipped_detail) {
        if (s.reason != "no _metadata (incomplete)") continue;
        const std::string dir = base::JoinPath(impl->job_dir_, s.name);
        if (base::RemoveAll(*impl->fs_, dir).ok()) removed.push_back(s.name);
      }
      if (!removed.empty() && options.log) {
        std::string msg = "Removed incomplete checkpoint directories of earlier runs:";
        for (const std::string& r : removed) msg += " " + r;
        options.log(msg);
      }
    }
  }
  if (!options.restore_path.empty()) {
    RestoreOptions ro;
    ro.allow_non_restored_state = options.allow_non_restored_state;
    ro.claim_mode = options.claim_mode;
    ro.keyed_backend = impl->state_backend_.kind;
    CKPT_ASSIGN_OR_RETURN(impl->initial_restore_,
                          RestorePlan::Create(*impl->fs_, options.restore_path, impl->graph_, ro));
    co.restored_from = impl->initial_restore_->restore_info();
    co.first_checkpoint_id = impl->initial_restore_->metadata().checkpoint_id() + 1;
    impl->restore_path_ = impl->initial_restore_->restore_info().path();
    impl->restore_claim_mode_ = options.claim_mode;
    // Recorded in the job directory before anything runs, so a kill before the first checkpoint
    // resumes from the same snapshot (its pending side effects are committed on restore).
    base::Result<format::SnapshotLocation> loc =
        format::LocateSnapshot(*impl->fs_, options.restore_path);
    if (!impl->job_dir_.empty() && loc.ok() &&
        base::DirName(loc->dir) != impl->job_dir_) {
      CKPT_RETURN_IF_ERROR(RecordSnapshotRef(*impl->fs_, impl->job_dir_,
                                             impl->initial_restore_->metadata().checkpoint_id(),
                                             loc->dir, /*savepoint=*/false));
    }
  }
  if (!impl->job_dir_.empty()) {
    co.first_checkpoint_id =
        std::max(co.first_checkpoint_id, HighestCheckpointDir(*impl->fs_, impl->job_dir_) + 1);
  }
  impl->spec_ = std::move(spec);
  impl->opts_ = std::move(options);
  impl->async_ = std::make_unique<runtime::AsyncExecutor>(
      impl->opts_.async_threads == 0 ? 1 : impl->opts_.async_threads);
  CKPT_ASSIGN_OR_RETURN(impl->coordinator_,
                        CheckpointCoordinator::Create(*impl->fs_, SystemClock::Get(), *impl,
                                                      std::move(co)));
  return std::unique_ptr<JobRunner>(new JobRunner(std::move(impl)));
}

base::Status JobRunner::Start() {
  std::unique_lock<std::mutex> lock(impl_->mu_);
  if (impl_->started_) return base::Status::FailedPrecondition("job already started");
  impl_->started_ = true;
  impl_->thread_ = std::thread([this] { impl_->Run(); });
  // Return once the tasks run, so a savepoint requested right after Start finds them.
  impl_->cv_.wait(lock, [&] { return impl_->running_; });
  return base::Status::OK();
}

JobResult JobRunner::Wait() {
  std::unique_lock<std::mutex> lock(impl_->mu_);
  impl_->cv_.wait(lock, [&] { return impl_->done_ || !impl_->started_; });
  if (!impl_->started_) {
    JobResult r;
    r.status = base::Status::FailedPrecondition("job was never started");
    return r;
  }
  return impl_->result_;
}

base::Result<std::string> JobRunner::StopWithSavepoint(bool drain, const std::string& target_dir) {
  std::shared_future<base::Result<CompletedCheckpoint>> f = impl_->coordinator_->TriggerSavepoint(
      target_dir, drain ? pb::POST_ACTION_TERMINATE : pb::POST_ACTION_STOP);
  base::Result<CompletedCheckpoint> r = f.get();
  if (!r.ok()) return r.status().WithContext("stop-with-savepoint");
  std::lock_guard<std::mutex> lock(impl_->mu_);
  impl_->stop_savepoint_path_ = r->dir;
  return r->dir;
}

base::Result<std::string> JobRunner::TriggerSavepoint(const std::string& target_dir) {
  std::shared_future<base::Result<CompletedCheckpoint>> f =
      impl_->coordinator_->TriggerSavepoint(target_dir, pb::POST_ACTION_NONE);
  base::Result<CompletedCheckpoint> r = f.get();
  if (!r.ok()) return r.status().WithContext("savepoint");
  return r->dir;
}

void JobRunner::Suspend() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    impl_->suspend_requested_ = true;
  }
  Cancel();
}

bool JobRunner::running() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->current_ != nullptr && !impl_->terminating_ && !impl_->done_;
}

const std::string& JobRunner::restore_path() const { return impl_->restore_path_; }
pb::ClaimMode JobRunner::restore_claim_mode() const { return impl_->restore_claim_mode_; }
const std::vector<std::string>& JobRunner::restore_report() const {
  return impl_->restore_report_;
}

void JobRunner::Cancel() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu_);
    impl_->cancel_requested_ = true;
  }
  impl_->cv_.notify_all();
}

const pb::JobGraph& JobRunner::job_graph() const { return impl_->graph_; }
const std::string& JobRunner::job_id_hex() const { return impl_->job_id_hex_; }
std::string JobRunner::job_dir() const { return impl_->job_dir_; }
CheckpointCounts JobRunner::checkpoint_counts() const { return impl_->coordinator_->counts(); }
uint32_t JobRunner::restarts() const {
  std::lock_guard<std::mutex> lock(impl_->mu_);
  return impl_->restarts_;
}

}  // namespace ckpt::engine
