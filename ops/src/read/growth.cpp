// growth: the root is scanned as prune scans it (rewrite/prune_scan.h: every `_metadata` read
// once, through the format seam, as our protobuf), then each retained checkpoint's file table is
// resolved and the stored files are classified against it.
#include "ckpt/ops/growth.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "ckpt/format/layout.h"
#include "ckpt/ops/operator_label.h"
#include "model/snapshot_raw.h"
#include "rewrite/prune_scan.h"

namespace ckpt::ops {
namespace {

using internal::MetadataState;
using internal::ScannedFile;
using internal::ScannedJob;
using internal::ScannedSnapshot;
using internal::ScannedTree;

// What one retained checkpoint references, from its file table.
struct GrowthRefs {
  // Normalized absolute path -> recorded size, and whether it is a SHARED file.
  std::unordered_map<std::string, std::pair<uint64_t, bool>> files;
  // What else protects a file from being an orphan (SnapshotReferences beyond the file table:
  // sinks' pending and final files).
  std::vector<std::string> other;
  std::vector<std::pair<std::string, std::string>> operators;  // id, label
  std::vector<uint64_t> operator_bytes;
  std::string job_id_hex;
};

bool HasCommittables(const pb::CheckpointMetadata& md) {
  for (const auto& op : md.operators()) {
    for (const auto& st : op.subtasks()) {
      if (st.committables_size() > 0) return true;
    }
  }
  return false;
}

// NormalizeAbsolute(path), without its work when `path` is normalized already (an absolute
// path without empty, "." or ".." components: what ResolveFile makes of a clean reference).
std::string GrowthNormalized(const std::string& path) {
  const bool clean = !path.empty() && path[0] == '/' && path.find("//") == std::string::npos &&
                     path.find("/./") == std::string::npos &&
                     path.find("/../") == std::string::npos && path.back() != '/' &&
                     !path.ends_with("/.") && !path.ends_with("/..");
  return clean ? path : internal::NormalizeAbsolute(path);
}

// Consumes `snap`'s metadata (each is read once, and only here).
GrowthRefs GrowthRefsOf(ScannedSnapshot& snap) {
  GrowthRefs out;
  std::set<std::string> all;
  // Without committables SnapshotReferences is the resolved file table, which the model has.
  if (HasCommittables(*snap.metadata)) all = internal::SnapshotReferences(snap);
  Snapshot model = BuildSnapshotModel(std::move(*snap.metadata), snap.abs,
                                      base::JoinPath(snap.abs, format::kMetadataFileName));
  snap.metadata.reset();
  out.job_id_hex = model.job_id_hex;
  for (const SnapshotFile& f : model.files) {
    if (f.resolved_path.empty()) continue;  // escaping: names no file in the storage
    out.files.emplace(GrowthNormalized(f.resolved_path),
                      std::make_pair(f.size_bytes, f.scope == FileScope::kShared));
  }
  for (const std::string& path : all) {
    if (!out.files.count(path)) out.other.push_back(path);
  }
  for (const OperatorInfo& op : model.operators) {
    out.operators.emplace_back(op.id_hex, OperatorLabel(op.name, op.uid, op.id_hex));
    out.operator_bytes.push_back(op.total_bytes);
  }
  return out;
}

// GrowthRefsOf each of `snaps`, on a few threads (each is independent and CPU-bound).
base::Status GrowthRefsAll(const std::vector<ScannedSnapshot*>& snaps,
                           const base::Progress& progress, std::vector<GrowthRefs>* out) {
  out->assign(snaps.size(), {});
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<bool> cancelled{false};
  auto work = [&] {
    for (size_t i = next++; i < snaps.size(); i = next++) {
      if (progress.cancelled()) {
        cancelled = true;
        return;
      }
      (*out)[i] = GrowthRefsOf(*snaps[i]);
      ++done;
    }
  };
  const size_t threads =
      std::min<size_t>({std::max(1u, std::thread::hardware_concurrency()), 8, snaps.size()});
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (cancelled) return base::Status::Cancelled("growth stopped while reading checkpoints");
  progress.Report(done, snaps.size(), "checkpoints analysed");
  return base::Status::OK();
}

// A file stored under the job, and which part of the job holds it.
struct StoredFile {
  const ScannedFile* file;
  const ScannedSnapshot* checkpoint;  // its chk-* directory; null in shared/ and taskowned/
};

std::vector<StoredFile> StoredFiles(const ScannedJob& job) {
  std::vector<StoredFile> out;
  for (const ScannedSnapshot& c : job.checkpoints) {
    for (const ScannedFile& f : c.tree.files) out.push_back({&f, &c});
  }
  for (const auto* tree : {&job.shared, &job.task_owned}) {
    if (!*tree) continue;
    for (const ScannedFile& f : (*tree)->files) out.push_back({&f, nullptr});
  }
  return out;
}

void GrowthOperators(const std::vector<GrowthRefs>& refs, JobGrowth* job) {
  std::map<std::string, size_t> by_id;
  for (size_t c = 0; c < refs.size(); ++c) {
    for (size_t o = 0; o < refs[c].operators.size(); ++o) {
      const auto& [id, label] = refs[c].operators[o];
      auto [it, inserted] = by_id.emplace(id, job->operators.size());
      if (inserted) {
        GrowthOperator op;
        op.id_hex = id;
        op.bytes.assign(refs.size(), 0);
        job->operators.push_back(std::move(op));
      }
      GrowthOperator& op = job->operators[it->second];
      op.label = label;  // the latest checkpoint's name wins
      op.bytes[c] = refs[c].operator_bytes[o];
    }
  }
  const auto& cps = job->checkpoints;
  for (GrowthOperator& op : job->operators) {
    if (cps.size() < 2) continue;
    const double ids = static_cast<double>(cps.back().checkpoint_id - cps.front().checkpoint_id);
    const double delta =
        static_cast<double>(op.bytes.back()) - static_cast<double>(op.bytes.front());
    op.growth_bytes_per_checkpoint = ids > 0 ? delta / ids : 0;
  }
  std::sort(job->operators.begin(), job->operators.end(), [](const auto& a, const auto& b) {
    return a.label != b.label ? a.label < b.label : a.id_hex < b.id_hex;
  });
}

// `kept_elsewhere`: what savepoints and other snapshots under the root reference (prune never
// deletes those files either).
base::Status GrowthOfJob(ScannedJob& scanned, const std::set<std::string>& kept_elsewhere,
                         const base::Progress& progress, JobGrowth* job) {
  job->job_rel = scanned.rel;
  std::vector<ScannedSnapshot*> retained;
  std::set<const ScannedSnapshot*> unreadable;
  for (ScannedSnapshot& c : scanned.checkpoints) {
    if (c.metadata_state == MetadataState::kReadable) {
      retained.push_back(&c);
    } else if (c.metadata_state == MetadataState::kUnreadable) {
      unreadable.insert(&c);
      job->notes.push_back(base::JoinPath(c.rel, format::kMetadataFileName) +
                           " cannot be read (" + c.metadata_error +
                           "): chk-" + std::to_string(c.checkpoint_id) +
                           " is left out, its files are counted as unreadable, and shared/ files "
                           "only it may reference are counted as orphans");
    }
  }
  std::vector<GrowthRefs> refs;
  CKPT_RETURN_IF_ERROR(GrowthRefsAll(retained, progress, &refs));

  // Sizes on storage, by normalized absolute path.
  const std::vector<StoredFile> stored = StoredFiles(scanned);
  std::unordered_map<std::string, uint64_t> on_disk;
  for (const StoredFile& s : stored) on_disk.emplace(s.file->abs, s.file->size_bytes);
  auto size_of = [&](const std::string& path, uint64_t recorded) {
    auto it = on_disk.find(path);
    return it != on_disk.end() ? it->second : recorded;
  };

  // The first retained checkpoint referencing each file introduced it.
  std::unordered_map<std::string, size_t> introduced_by;
  for (size_t i = 0; i < refs.size(); ++i) {
    GrowthCheckpoint cp;
    cp.path = retained[i]->rel;
    cp.checkpoint_id = retained[i]->checkpoint_id;
    size_t missing = 0;
    for (const auto& [path, info] : refs[i].files) {
      const uint64_t size = size_of(path, info.first);
      if (!on_disk.count(path)) ++missing;
      ++cp.referenced_files;
      cp.referenced_bytes += size;
      if (!introduced_by.emplace(path, i).second) continue;
      ++cp.introduced_files;
      cp.introduced_bytes += size;
      if (info.second) cp.introduced_shared_bytes += size;
    }
    if (missing > 0) {
      job->notes.push_back(cp.path + " references " + std::to_string(missing) +
                           " file(s) not stored under the job: their recorded sizes are counted");
    }
    job->checkpoints.push_back(std::move(cp));
  }
  if (!refs.empty()) {
    const GrowthRefs& latest = refs.back();
    job->job_id_hex = latest.job_id_hex;
    for (const auto& [path, info] : latest.files) {
      const uint64_t size = size_of(path, info.first);
      job->checkpoints[introduced_by[path]].still_referenced_bytes += size;
    }
  }

  // Classify every stored file.
  // Referenced by some retained checkpoint: its file table (introduced_by has every such file)
  // or its sinks.
  std::unordered_set<std::string> other_refs;
  for (const GrowthRefs& r : refs) other_refs.insert(r.other.begin(), r.other.end());
  auto by_retained = [&](const std::string& path) {
    return introduced_by.count(path) > 0 || other_refs.count(path) > 0 ||
           kept_elsewhere.count(path) > 0;
  };
  const ScannedSnapshot* latest_snap = retained.empty() ? nullptr : retained.back();
  const std::string task_owned_prefix =
      internal::JoinRel(scanned.rel, std::string(format::kTaskOwnedDirName)) + "/";
  for (const StoredFile& s : stored) {
    const uint64_t size = s.file->size_bytes;
    ++job->stored_files;
    job->stored_bytes += size;
    const bool is_metadata =
        s.checkpoint != nullptr &&
        s.file->rel == internal::JoinRel(s.checkpoint->rel, std::string(format::kMetadataFileName));
    const bool in_task_owned =
        s.checkpoint == nullptr && s.file->rel.rfind(task_owned_prefix, 0) == 0;
    if (latest_snap != nullptr && (refs.back().files.count(s.file->abs) > 0 ||
                                   std::count(refs.back().other.begin(), refs.back().other.end(),
                                              s.file->abs) > 0 ||
                                   (is_metadata && s.checkpoint == latest_snap))) {
      ++job->needed_files;
      job->needed_bytes += size;
    } else if (by_retained(s.file->abs) ||
               (is_metadata && s.checkpoint->metadata_state == MetadataState::kReadable)) {
      ++job->not_yet_deletable_files;
      job->not_yet_deletable_bytes += size;
    } else if (s.checkpoint != nullptr && unreadable.count(s.checkpoint) > 0) {
      ++job->unreadable_files;
      job->unreadable_bytes += size;
    } else if (in_task_owned) {
      ++job->task_owned_unreferenced_files;
      job->task_owned_unreferenced_bytes += size;
    } else {
      ++job->orphaned_files;
      job->orphaned_bytes += size;
    }
  }
  if (job->needed_bytes > 0) {
    job->amplification =
        static_cast<double>(job->stored_bytes) / static_cast<double>(job->needed_bytes);
  }
  GrowthOperators(refs, job);
  return base::Status::OK();
}

}  // namespace

base::Result<GrowthReport> ComputeGrowth(base::Fs& fs, const std::string& root,
                                         const base::Progress& progress) {
  CKPT_ASSIGN_OR_RETURN(internal::ScannedRoot scan, internal::ScanRoot(fs, root));
  GrowthReport report;
  report.root = root;
  std::set<std::string> kept_elsewhere;
  for (const ScannedSnapshot& s : scan.other_snapshots) {
    std::set<std::string> refs = internal::SnapshotReferences(s);
    kept_elsewhere.insert(refs.begin(), refs.end());
  }
  for (ScannedJob& scanned : scan.jobs) {
    JobGrowth job;
    CKPT_RETURN_IF_ERROR(GrowthOfJob(scanned, kept_elsewhere, progress, &job));
    report.jobs.push_back(std::move(job));
  }
  std::sort(report.jobs.begin(), report.jobs.end(),
            [](const auto& a, const auto& b) { return a.job_rel < b.job_rel; });
  return report;
}

}  // namespace ckpt::ops
