#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "ckpt/format/layout.h"
#include "ckpt/ops/prune.h"
#include "rewrite/prune_restorable.h"
#include "rewrite/prune_scan.h"
#include "rewrite/prune_uploads.h"

namespace ckpt::ops {
namespace {

using internal::ScannedFile;
using internal::ScannedSnapshot;
using internal::ScannedTree;

// Every path some kept snapshot references, with the names of the snapshots that do.
using RefIndex = std::map<std::string, std::set<std::string>>;

// `job_rel` ("" for a root that is the job directory) is stripped from names in the same job, so
// the reason reads "referenced by chk-12 and chk-13".
std::string ReferencedBy(const std::set<std::string>& names, const std::string& job_rel) {
  std::vector<std::string> v;
  for (const auto& n : names) {
    bool same_job = !job_rel.empty() && n.rfind(job_rel + "/", 0) == 0;
    v.push_back(same_job ? n.substr(job_rel.size() + 1) : n);
  }
  // chk-9 before chk-10: order by id where the names are checkpoints of one job.
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  constexpr size_t kShown = 4;
  std::string out = "referenced by ";
  size_t shown = std::min(v.size(), kShown);
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += (i + 1 == shown && v.size() <= kShown) ? " and " : ", ";
    out += v[i];
  }
  if (v.size() > kShown) out += " and " + std::to_string(v.size() - kShown) + " more";
  return out;
}

std::set<std::string> SnapshotRefs(const ScannedSnapshot& snap) {
  return internal::SnapshotReferences(snap);
}

class Planner {
 public:
  Planner(const PruneOptions& options, int64_t now_ms, PrunePlan* plan)
      : options_(options), now_ms_(now_ms), plan_(plan) {
    guard_ms_ = options.older_than_ms.value_or(options.min_orphan_age_ms);
  }

  void AddRefs(const ScannedSnapshot& snap) {
    for (const auto& r : SnapshotRefs(snap)) refs_[r].insert(snap.rel);
  }

  // Why `f` must be kept as an orphan candidate, or "" if it may go.
  std::string OrphanKeepReason(const ScannedFile& f) const {
    auto it = refs_.find(f.abs);
    if (it != refs_.end()) return ReferencedBy(it->second, job_rel_);
    if (!f.mtime_ms) return "age unknown";
    if (now_ms_ - *f.mtime_ms < guard_ms_) {
      return "not referenced, but younger than the age guard (" + FormatDuration(guard_ms_) + ")";
    }
    return "";
  }

  // Why the open upload at `location` started at `initiated_ms` must be kept, or "" if it may
  // be aborted.
  std::string UploadKeepReason(const std::string& location, int64_t initiated_ms) const {
    auto it = refs_.find(internal::NormalizeAbsolute(location));
    if (it != refs_.end()) return ReferencedBy(it->second, job_rel_);
    if (initiated_ms <= 0) return "start time unknown";
    if (now_ms_ - initiated_ms < guard_ms_) {
      return "started less than the age guard (" + FormatDuration(guard_ms_) + ") ago";
    }
    return "";
  }
  void AbortUpload(const std::string& rel, const std::string& upload_id, std::string reason) {
    plan_->steps.push_back({PruneAction::kAbortUpload, rel, std::move(reason), 0, upload_id});
    ++plan_->uploads_to_abort;
  }

  void Keep(const std::string& rel, std::string reason) {
    plan_->kept.push_back({rel, std::move(reason)});
  }
  void Step(PruneAction action, const std::string& rel, std::string reason, uint64_t size = 0) {
    plan_->steps.push_back({action, rel, std::move(reason), size, {}});
    if (action == PruneAction::kRemoveFile) {
      plan_->bytes_to_free += size;
      ++plan_->files_to_delete;
    }
  }

  // Deletes the files of `tree` that `may_delete` allows (else keeps them with the reason it
  // gives), then every directory left empty, deepest first. `keep_root_dir` keeps the tree's
  // top directory itself (shared/).
  template <typename Fn>
  void DeleteTree(const ScannedTree& tree, const std::string& why, bool keep_root_dir,
                  Fn keep_reason) {
    std::set<std::string> occupied;
    for (const auto& f : tree.files) {
      std::string reason = keep_reason(f);
      if (reason.empty()) {
        Step(PruneAction::kRemoveFile, f.rel, why, f.size_bytes);
        continue;
      }
      Keep(f.rel, reason);
      for (std::string d = base::DirName(f.rel); !d.empty() && d != "." && d != "/";
           d = base::DirName(d)) {
        if (!occupied.insert(d).second) break;
      }
    }
    for (size_t i = 0; i < tree.dirs_post_order.size(); ++i) {
      const std::string& d = tree.dirs_post_order[i];
      bool is_top = i + 1 == tree.dirs_post_order.size();
      if (occupied.count(d) || (is_top && keep_root_dir)) continue;
      Step(PruneAction::kRemoveDir, d, why);
    }
  }

  // The job whose files are being planned (names in reasons are relative to it).
  void SetJob(const std::string& job_rel) { job_rel_ = job_rel; }
  int64_t guard_ms() const { return guard_ms_; }
  const PruneOptions& options() const { return options_; }
  int64_t now_ms() const { return now_ms_; }

 private:
  const PruneOptions& options_;
  int64_t now_ms_;
  int64_t guard_ms_;
  PrunePlan* plan_;
  RefIndex refs_;
  std::string job_rel_;
};

// "" for "chk-3"; "job" for "job/chk-3".
std::string JobOf(const std::string& checkpoint_rel) {
  std::string d = base::DirName(checkpoint_rel);
  return d == "." ? "" : d;
}

std::string Rel(const std::string& rel, std::string_view leaf) {
  return internal::JoinRel(rel, std::string(leaf));
}

// "job <rel>", or "the job" for a root that is the job directory.
std::string JobName(const std::string& job_rel) {
  return job_rel.empty() ? std::string("the job") : "job " + job_rel;
}

// "chk-7", "chk-7 and chk-6", "chk-8, chk-7 and chk-6".
std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace

base::Result<PrunePlan> PlanPrune(base::Fs& fs, const std::string& root,
                                  const PruneOptions& options) {
  if (options.keep_last == 0) {
    return base::Status::InvalidArgument("--keep-last must be at least 1: prune never deletes "
                                         "the newest restorable checkpoint");
  }
  if ((options.older_than_ms && *options.older_than_ms < 0) || options.min_orphan_age_ms < 0) {
    return base::Status::InvalidArgument("ages must not be negative");
  }
  int64_t now_ms = options.now_ms;
  if (now_ms == 0) {
    now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  }
  CKPT_ASSIGN_OR_RETURN(auto scan, internal::ScanRoot(fs, root));
  PrunePlan plan;
  plan.root = root;
  plan.options = options;
  Planner planner(options, now_ms, &plan);

  // Verdicts.
  std::map<std::string, SnapshotVerdict> verdict;  // by rel
  for (auto& job : scan.jobs) {
    if (job.liveness_unknown) {
      plan.notes.push_back("cannot tell whether job " + (job.rel.empty() ? "." : job.rel) +
                           " is running: this filesystem has no file locks; executing this "
                           "plan is refused here");
    }
    if (job.live) {
      // An engine runs this job: it may reference, or be writing, anything in its directory.
      const std::string name = job.rel.empty() ? std::string(".") : job.rel;
      plan.notes.push_back("job " + name + " is running (" + job.lock_path +
                           " is held): nothing in it is deleted; its engine retires its own "
                           "checkpoints");
      for (const auto& c : job.checkpoints) {
        PruneSnapshot ps{c.rel, c.checkpoint_id, SnapshotVerdict::kRetained,
                         "kept: its job is running"};
        if (c.metadata_state == internal::MetadataState::kMissing) {
          ps.verdict = SnapshotVerdict::kIncomplete;
          ps.reason = "no _metadata: in flight in the running job, kept with all its files";
        } else if (c.metadata_state == internal::MetadataState::kUnreadable) {
          ps.verdict = SnapshotVerdict::kCorrupt;
          ps.reason = "unreadable _metadata (" + c.metadata_error + "); kept with all its files";
        }
        plan.snapshots.push_back(ps);
      }
      continue;
    }
    std::vector<const ScannedSnapshot*> complete;
    for (const auto& c : job.checkpoints) {
      PruneSnapshot ps{c.rel, c.checkpoint_id, SnapshotVerdict::kRetained, ""};
      if (c.metadata_state == internal::MetadataState::kMissing) {
        ps.verdict = SnapshotVerdict::kIncomplete;
        ps.reason = "no _metadata (failed, aborted or still running); its files are orphans";
      } else if (c.metadata_state == internal::MetadataState::kUnreadable) {
        ps.verdict = SnapshotVerdict::kCorrupt;
        ps.reason = "unreadable _metadata (" + c.metadata_error + "); kept with all its files";
      } else if (c.metadata->kind() == pb::SAVEPOINT) {
        // A savepoint is the user's, wherever it was written: never deleted, never counted
        // towards retention.
        ps.verdict = SnapshotVerdict::kSavepoint;
        ps.reason = "savepoint: owned by the user, never deleted";
      } else {
        complete.push_back(&c);
      }
      if (ps.verdict != SnapshotVerdict::kRetained) plan.snapshots.push_back(ps);
    }
    std::sort(complete.begin(), complete.end(), [](const auto* a, const auto* b) {
      return a->checkpoint_id > b->checkpoint_id;
    });
    // Newest first, each checked as a restore would check it until keep_last restore; one that
    // would not is kept and not counted, so the newest restorable checkpoint is never deleted.
    const std::string keep_last = "--keep-last " + std::to_string(options.keep_last);
    std::vector<std::string> not_counted;
    uint32_t restorable = 0;
    for (const ScannedSnapshot* cp : complete) {
      const ScannedSnapshot& c = *cp;
      PruneSnapshot ps{c.rel, c.checkpoint_id, SnapshotVerdict::kRetained, ""};
      if (restorable < options.keep_last) {
        std::string why = c.restore_files_error;
        if (why.empty()) {
          why = internal::UnrestorableReason(fs, c.abs, c.restore_files, options.deep);
        }
        if (!why.empty()) {
          ps.verdict = SnapshotVerdict::kDamaged;
          ps.reason = "would not restore (" + why + "): not counted towards " + keep_last +
                      ", kept with its files";
          not_counted.push_back(base::BaseName(c.rel));
        } else {
          ++restorable;
          ps.reason = "among the newest " + std::to_string(options.keep_last) + " restorable (" +
                      keep_last + ")";
          if (restorable == 1 && !not_counted.empty()) {
            plan.notes.push_back(JobName(job.rel) + ": " + base::BaseName(c.rel) +
                                 " is the newest restorable checkpoint; " +
                                 Names(not_counted) + " would not restore and did not count");
          }
        }
      } else if (options.older_than_ms) {
        int64_t completed = c.metadata->completion_timestamp();
        if (completed <= 0 && c.metadata_mtime_ms) completed = *c.metadata_mtime_ms;
        if (completed <= 0) {
          ps.reason = "completion time unknown; --older-than cannot apply";
        } else if (now_ms - completed < *options.older_than_ms) {
          ps.reason = "completed less than " + FormatDuration(*options.older_than_ms) + " ago";
        } else {
          ps.verdict = SnapshotVerdict::kSubsumed;
          ps.reason = "beyond " + keep_last + " and older than " +
                      FormatDuration(*options.older_than_ms);
        }
      } else {
        ps.verdict = SnapshotVerdict::kSubsumed;
        ps.reason = "subsumed: beyond " + keep_last;
      }
      plan.snapshots.push_back(ps);
    }
    if (restorable == 0 && !not_counted.empty()) {
      plan.notes.push_back(JobName(job.rel) + " has no restorable checkpoint (" +
                           Names(not_counted) + " would not restore): all are kept");
    }
  }
  for (const auto& s : scan.other_snapshots) {
    std::string reason = s.metadata_state == internal::MetadataState::kReadable &&
                                 s.metadata->kind() == pb::SAVEPOINT
                             ? "savepoint: owned by the user, never deleted"
                             : "not a chk-<n> of a job directory: never touched";
    plan.snapshots.push_back({s.rel, s.checkpoint_id, SnapshotVerdict::kSavepoint, reason});
    planner.AddRefs(s);
  }
  for (const auto& ps : plan.snapshots) verdict[ps.path] = ps.verdict;
  for (const auto& job : scan.jobs) {
    for (const auto& c : job.checkpoints) {
      SnapshotVerdict v = verdict[c.rel];
      if (v == SnapshotVerdict::kRetained || v == SnapshotVerdict::kSavepoint ||
          v == SnapshotVerdict::kDamaged) {
        planner.AddRefs(c);
      }
    }
  }

  // Phase 1: subsumed checkpoints lose `_metadata` first, so a crash never leaves a complete
  // checkpoint with missing files.
  std::vector<const ScannedSnapshot*> subsumed;
  for (const auto& job : scan.jobs) {
    if (job.live) continue;
    for (const auto& c : job.checkpoints) {
      if (verdict[c.rel] == SnapshotVerdict::kSubsumed) subsumed.push_back(&c);
    }
  }
  for (const auto* c : subsumed) {
    std::string name = base::BaseName(c->rel);
    uint64_t size = 0;
    for (const auto& f : c->tree.files) {
      if (f.rel == Rel(c->rel, format::kMetadataFileName)) size = f.size_bytes;
    }
    planner.Step(PruneAction::kRemoveFile, Rel(c->rel, format::kMetadataFileName),
                 name + " is subsumed: its _metadata goes first, making it incomplete", size);
    planner.Step(PruneAction::kSyncDir, c->rel, "make the removal of " + name +
                                                    "/_metadata durable before its files go");
  }
  // Phase 2: their files, except what a kept snapshot still references.
  for (const auto* c : subsumed) {
    planner.SetJob(JobOf(c->rel));
    std::set<std::string> own = SnapshotRefs(*c);
    std::string meta = Rel(c->rel, format::kMetadataFileName);
    ScannedTree tree = c->tree;
    std::erase_if(tree.files, [&](const ScannedFile& f) { return f.rel == meta; });
    planner.DeleteTree(tree, "file of subsumed " + base::BaseName(c->rel), false, [&](const ScannedFile& f) {
      std::string r = planner.OrphanKeepReason(f);
      if (r.empty() || r.rfind("referenced by", 0) == 0) return r;
      return own.count(f.abs) ? std::string() : r;  // its own files are old by definition
    });
  }
  // Phase 3: orphans in incomplete and retained checkpoints and in shared/.
  for (const auto& job : scan.jobs) {
    if (job.live) {
      for (const auto& c : job.checkpoints) {
        for (const auto& f : c.tree.files) planner.Keep(f.rel, "its job is running");
      }
      if (job.shared) {
        for (const auto& f : job.shared->files) planner.Keep(f.rel, "its job is running");
      }
      continue;
    }
    planner.SetJob(job.rel);
    std::string blocker;
    for (const auto& c : job.checkpoints) {
      SnapshotVerdict v = verdict[c.rel];
      std::string meta = Rel(c.rel, format::kMetadataFileName);
      if (v == SnapshotVerdict::kCorrupt) {
        if (blocker.empty()) blocker = base::BaseName(c.rel);
        for (const auto& f : c.tree.files) {
          planner.Keep(f.rel, base::BaseName(c.rel) + " has an unreadable _metadata; its files are kept");
        }
      } else if (v == SnapshotVerdict::kDamaged) {
        for (const auto& f : c.tree.files) {
          planner.Keep(f.rel, base::BaseName(c.rel) + " would not restore; its files are kept");
        }
      } else if (v == SnapshotVerdict::kIncomplete) {
        planner.DeleteTree(c.tree, "orphan: " + base::BaseName(c.rel) + " is incomplete", false,
                           [&](const ScannedFile& f) { return planner.OrphanKeepReason(f); });
      } else if (v == SnapshotVerdict::kRetained) {
        planner.DeleteTree(c.tree, "orphan: no retained _metadata references it", true,
                           [&](const ScannedFile& f) {
                             if (f.rel == meta) return "_metadata of retained " + base::BaseName(c.rel);
                             return planner.OrphanKeepReason(f);
                           });
      }
    }
    if (!job.shared) continue;
    if (!blocker.empty()) {
      plan.notes.push_back("orphans in " + Rel(job.rel, format::kSharedDirName) +
                           " are not deleted: " + blocker +
                           " has an unreadable _metadata, so what it references is unknown");
      for (const auto& f : job.shared->files) {
        std::string r = planner.OrphanKeepReason(f);
        planner.Keep(f.rel, r.empty() ? "references unknown while " + blocker +
                                            "/_metadata is unreadable"
                                      : r);
      }
      continue;
    }
    planner.DeleteTree(*job.shared, "orphan: no retained _metadata references it", true,
                       [&](const ScannedFile& f) { return planner.OrphanKeepReason(f); });
  }
  // Phase 4: multipart uploads left open in the checkpoint storage of stopped jobs (an engine
  // killed while it uploaded a state file). Invisible to every reader, but billed until aborted.
  internal::OpenUploads open = internal::ListOpenUploads(scan);
  if (!open.listing_error.empty()) {
    plan.notes.push_back("open multipart uploads under " + root + " were not listed (" +
                         open.listing_error + "): none is aborted");
  }
  for (const internal::PlacedUpload& u : open.uploads) {
    std::string keep;
    if (u.job < 0 || !u.in_checkpoint_storage) {
      keep = "not in a job's chk-*, shared/ or taskowned/: not prune's to abort";
    } else if (scan.jobs[u.job].live) {
      keep = "its job is running";
    } else if (scan.jobs[u.job].liveness_unknown) {
      keep = "cannot tell whether its job is running";
    } else {
      planner.SetJob(scan.jobs[u.job].rel);
      keep = planner.UploadKeepReason(u.upload.location, u.upload.initiated_ms);
    }
    if (keep.empty()) {
      int64_t age_s = (now_ms - u.upload.initiated_ms) / 1000;
      planner.AbortUpload(u.rel, u.upload.upload_id,
                          "multipart upload left open by a stopped job (started " +
                              FormatDuration(age_s * 1000) + " ago)");
    } else {
      planner.Keep(u.rel, "open multipart upload " + u.upload.upload_id + ": " + keep);
    }
  }
  for (const auto& job : scan.jobs) {
    if (job.live) continue;
    const std::string prefix = job.rel.empty() ? "" : job.rel + "/";
    for (const PruneStep& step : plan.steps) {
      if (prefix.empty() || step.path.rfind(prefix, 0) == 0) {
        plan.job_dirs.push_back(job.rel);
        break;
      }
    }
  }
  std::sort(plan.snapshots.begin(), plan.snapshots.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  std::sort(plan.kept.begin(), plan.kept.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  return plan;
}

}  // namespace ckpt::ops
