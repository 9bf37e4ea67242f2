// VerifyPrune: after a prune, what it kept is scanned again, as a user would find it: every kept
// snapshot must still open, and each touched job's newest retained checkpoint must still pass
// the restore check that made the plan keep it.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/ops/ls.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/snapshot.h"
#include "rewrite/prune_restorable.h"
#include "rewrite/prune_scan.h"
#include "rewrite/prune_verify.h"

namespace ckpt::ops {
namespace {

// The job directory of plan.job_dirs that holds snapshot `path` (the longest matching one),
// or nullptr when the prune deleted nothing in its job.
const std::string* PruneVerifyJobOf(const PrunePlan& plan, const std::string& path) {
  const std::string* best = nullptr;
  for (const std::string& job : plan.job_dirs) {
    const bool inside = job.empty() || path.rfind(job + "/", 0) == 0;
    if (inside && (best == nullptr || job.size() > best->size())) best = &job;
  }
  return best;
}

bool PruneVerifyKeeps(const PruneSnapshot& s) {
  switch (s.verdict) {
    case SnapshotVerdict::kRetained:
    case SnapshotVerdict::kDamaged:
      return true;
    case SnapshotVerdict::kSavepoint:
      return s.checkpoint_id >= 0;  // -1: its metadata did not load before the prune either
    case SnapshotVerdict::kSubsumed:
    case SnapshotVerdict::kIncomplete:
    case SnapshotVerdict::kCorrupt:
      return false;
  }
  return false;
}

// Why the snapshot at `dir` no longer restores ("" if it does).
std::string PruneVerifyRestoreProblem(base::Fs& fs, const std::string& dir, bool deep) {
  base::Result<Snapshot> snapshot = LoadSnapshot(fs, dir);
  if (!snapshot.ok()) return snapshot.status().ToString();
  base::Result<std::vector<format::ExpectedFile>> files = internal::RestoreFiles(*snapshot, dir);
  if (!files.ok()) return files.status().ToString();
  return internal::UnrestorableReason(fs, dir, *files, deep);
}

}  // namespace

bool PruneVerification::ok() const {
  for (const PruneVerifiedSnapshot& s : snapshots) {
    if (!s.opens || (s.restorable && !*s.restorable)) return false;
  }
  return true;
}

base::Result<PruneVerification> VerifyPrune(base::Fs& fs, const PrunePlan& plan,
                                            const base::Progress& progress) {
  CKPT_ASSIGN_OR_RETURN(std::vector<JobListing> jobs, ListRoot(fs, plan.root));
  std::map<std::string, const SnapshotEntry*> listed;  // by path relative to the root
  for (const JobListing& job : jobs) {
    for (const SnapshotEntry& e : job.snapshots) listed[e.path] = &e;
  }
  PruneVerification out;
  // Each touched job's newest retained checkpoint: its id and index into out.snapshots.
  std::map<std::string, std::pair<int64_t, size_t>> newest_retained;
  for (const PruneSnapshot& s : plan.snapshots) {
    if (!PruneVerifyKeeps(s)) continue;
    const std::string* job = PruneVerifyJobOf(plan, s.path);
    if (job == nullptr) continue;  // nothing was deleted in its job
    if (progress.cancelled()) {
      return base::Status::Cancelled("prune verification stopped at " + s.path);
    }
    PruneVerifiedSnapshot v;
    v.path = s.path;
    v.verdict = s.verdict;
    auto it = listed.find(s.path);
    if (it == listed.end()) {
      v.problem = "no longer found under " + plan.root;
    } else if (it->second->health != SnapshotHealth::kComplete) {
      v.problem = std::string(SnapshotHealthName(it->second->health)) + ": " + it->second->problem;
    } else {
      LoadOptions options;
      options.state_meta = false;
      base::Result<Snapshot> loaded =
          LoadSnapshot(fs, internal::JoinRel(plan.root, s.path), options);
      v.opens = loaded.ok();
      if (!loaded.ok()) v.problem = loaded.status().ToString();
    }
    if (s.verdict == SnapshotVerdict::kRetained) {
      auto [slot, inserted] =
          newest_retained.emplace(*job, std::make_pair(s.checkpoint_id, out.snapshots.size()));
      if (!inserted && s.checkpoint_id > slot->second.first) {
        slot->second = {s.checkpoint_id, out.snapshots.size()};
      }
    }
    out.snapshots.push_back(std::move(v));
  }
  for (const auto& [job, newest] : newest_retained) {
    PruneVerifiedSnapshot& v = out.snapshots[newest.second];
    out.restore_checked.push_back(v.path);
    if (!v.opens) {
      v.restorable = false;
      continue;
    }
    if (progress.cancelled()) {
      return base::Status::Cancelled("prune verification stopped at " + v.path);
    }
    const std::string problem =
        PruneVerifyRestoreProblem(fs, internal::JoinRel(plan.root, v.path), plan.options.deep);
    v.restorable = problem.empty();
    if (!problem.empty()) v.problem = "does not restore: " + problem;
  }
  return out;
}

namespace internal {

base::Status VerifyPruneAfterExecute(base::Fs& fs, const PrunePlan& plan,
                                     const base::Progress& progress,
                                     PruneVerification* verification) {
  CKPT_ASSIGN_OR_RETURN(PruneVerification v, VerifyPrune(fs, plan, progress));
  size_t failed = 0;
  const PruneVerifiedSnapshot* first = nullptr;
  for (const PruneVerifiedSnapshot& s : v.snapshots) {
    if (s.opens && (!s.restorable || *s.restorable)) continue;
    ++failed;
    if (first == nullptr) first = &s;
  }
  std::string message;
  if (first != nullptr) {
    message = "after the prune, " + first->path + " (" +
              std::string(SnapshotVerdictName(first->verdict)) + ") " + first->problem;
    if (failed > 1) message += " (and " + std::to_string(failed - 1) + " more kept snapshots)";
  }
  if (verification != nullptr) *verification = std::move(v);
  if (!message.empty()) return base::Status::Corruption(message);
  return base::Status::OK();
}

}  // namespace internal
}  // namespace ckpt::ops
