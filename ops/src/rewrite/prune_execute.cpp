#include <limits>
#include <memory>
#include <vector>

#include "ckpt/base/recoverable_writer.h"
#include "ckpt/format/layout.h"

#include "ckpt/ops/prune.h"
#include "rewrite/prune_scan.h"
#include "rewrite/prune_verify.h"

namespace ckpt::ops {

base::Status ExecutePrune(base::Fs& fs, const PrunePlan& plan, const base::Progress& progress,
                          size_t* steps_done, PruneVerification* verification) {
  size_t done = 0;
  if (steps_done != nullptr) *steps_done = 0;
  // Without locks a running engine cannot be told from none: deleting could race it.
  if (!fs.SupportsLocks() && (!plan.job_dirs.empty() || !plan.steps.empty())) {
    return base::Status::FailedPrecondition(
        "refusing to prune " + plan.root + ": its filesystem has no file locks, so an engine " +
        "running a job there cannot be ruled out: nothing deleted");
  }
  // Held until every step ran: an engine starting on one of these jobs waits or is refused.
  std::vector<std::unique_ptr<base::FileLock>> locks;
  for (const std::string& job : plan.job_dirs) {
    const std::string lock_path =
        base::JoinPath(internal::JoinRel(plan.root, job), format::kJobLockFileName);
    base::Result<std::unique_ptr<base::FileLock>> lock = fs.TryLockFile(lock_path);
    if (lock.ok()) {
      locks.push_back(std::move(*lock));
      continue;
    }
    if (lock.status().code() == base::StatusCode::kUnimplemented) {
      return base::Status::FailedPrecondition(
          "refusing to prune job " + (job.empty() ? plan.root : job) + ": " +
          lock.status().message() + ", so a running engine cannot be ruled out: nothing deleted");
    }
    if (lock.status().code() == base::StatusCode::kFailedPrecondition) {
      return base::Status::FailedPrecondition(
          "job " + (job.empty() ? plan.root : job) + " started running since the plan was made (" +
          lock_path + " is held): nothing deleted; plan again");
    }
    if (lock.status().IsNotFound()) continue;  // the job directory is gone: nothing to delete
    return lock.status().WithContext("locking job " + (job.empty() ? plan.root : job));
  }
  for (const PruneStep& step : plan.steps) {
    if (progress.cancelled()) {
      return base::Status::Cancelled("prune stopped after " + std::to_string(done) + " of " +
                                     std::to_string(plan.steps.size()) + " steps");
    }
    std::string path = internal::JoinRel(plan.root, step.path);
    base::Status st;
    switch (step.action) {
      case PruneAction::kRemoveFile:
        st = fs.RemoveFile(path);
        break;
      case PruneAction::kSyncDir:
        st = fs.SyncDir(path);
        break;
      case PruneAction::kRemoveDir:
        st = fs.RemoveDir(path);
        // Something appeared in it since the plan was made: leaving the directory is safe.
        if (st.code() == base::StatusCode::kFailedPrecondition) st = base::Status::OK();
        break;
      case PruneAction::kAbortUpload: {
        base::Result<base::RecoverableWriter*> writer = base::RecoverableWriterFor(path);
        st = writer.ok() ? (*writer)->Abort({path, step.upload_id}) : writer.status();
        break;
      }
    }
    // Already gone (a re-run after an interrupted prune): the step's goal holds.
    if (st.IsNotFound()) st = base::Status::OK();
    if (!st.ok()) {
      return st.WithContext("prune step " + std::to_string(done + 1) + "/" +
                            std::to_string(plan.steps.size()) + " (" +
                            std::string(PruneActionName(step.action)) + " " + step.path + ")");
    }
    ++done;
    if (steps_done != nullptr) *steps_done = done;
    progress.Report(done, plan.steps.size(), step.path);
  }
  // Checked while the job locks are still held, so no engine changes what is verified.
  if (plan.options.verify_output) {
    return internal::VerifyPruneAfterExecute(fs, plan, progress, verification);
  }
  return base::Status::OK();
}

base::Result<int64_t> ParseDuration(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    int64_t ms;
  };
  // "ms" before "m" and "s" so the longest suffix wins.
  static constexpr Unit kUnits[] = {{"ms", 1},          {"s", 1000},       {"m", 60'000},
                                    {"h", 3'600'000},   {"d", 86'400'000}, {"w", 604'800'000}};
  std::string_view digits = text;
  int64_t unit_ms = 1000;
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.substr(text.size() - u.suffix.size()) == u.suffix) {
      digits = text.substr(0, text.size() - u.suffix.size());
      unit_ms = u.ms;
      break;
    }
  }
  auto bad = [&](std::string_view why) {
    return base::Status::InvalidArgument("duration '" + std::string(text) + "' " +
                                         std::string(why) +
                                         " (expected e.g. 500ms, 30s, 15m, 12h, 7d, 2w)");
  };
  if (digits.empty()) return bad("has no number");
  int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return bad("is not a whole number with a unit");
    if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) return bad("is too large");
    value = value * 10 + (c - '0');
  }
  if (value > std::numeric_limits<int64_t>::max() / unit_ms) return bad("is too large");
  return value * unit_ms;
}

std::string FormatDuration(int64_t ms) {
  struct Unit {
    const char* suffix;
    int64_t ms;
  };
  static constexpr Unit kUnits[] = {{"w", 604'800'000}, {"d", 86'400'000}, {"h", 3'600'000},
                                    {"m", 60'000},      {"s", 1000}};
  if (ms == 0) return "0s";
  for (const Unit& u : kUnits) {
    if (ms % u.ms == 0) return std::to_string(ms / u.ms) + u.suffix;
  }
  return std::to_string(ms) + "ms";
}

std::string_view SnapshotVerdictName(SnapshotVerdict v) {
  switch (v) {
    case SnapshotVerdict::kRetained: return "retained";
    case SnapshotVerdict::kSubsumed: return "subsumed";
    case SnapshotVerdict::kDamaged: return "damaged";
    case SnapshotVerdict::kIncomplete: return "incomplete";
    case SnapshotVerdict::kCorrupt: return "corrupt";
    case SnapshotVerdict::kSavepoint: return "savepoint";
  }
  return "retained";
}

std::string_view PruneActionName(PruneAction a) {
  switch (a) {
    case PruneAction::kRemoveFile: return "remove";
    case PruneAction::kSyncDir: return "sync-dir";
    case PruneAction::kRemoveDir: return "remove-dir";
    case PruneAction::kAbortUpload: return "abort-upload";
  }
  return "remove";
}

}  // namespace ckpt::ops
