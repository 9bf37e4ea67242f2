// Discovery of usable snapshots of a job (for --from-latest) and the reference files the engine
// keeps in the job directory so savepoints and restores are found too.
#include "ckpt/engine/checkpoint/checkpoint_discovery.h"

#include <algorithm>
#include <charconv>
#include <tuple>
#include <utility>

#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/snapshot_discovery.h"
#include "ckpt/format/snapshot_files_check.h"

namespace ckpt::engine {

namespace {

std::optional<int64_t> ParseId(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// `_savepoint-12.ref` -> (12, true); `_restored-3.ref` -> (3, false).
std::optional<std::pair<int64_t, bool>> ParseRefName(std::string_view name) {
  if (name.size() <= kSnapshotRefSuffix.size() || !name.ends_with(kSnapshotRefSuffix)) {
    return std::nullopt;
  }
  name.remove_suffix(kSnapshotRefSuffix.size());
  for (bool savepoint : {true, false}) {
    std::string_view prefix = savepoint ? kSavepointRefPrefix : kRestoredRefPrefix;
    if (!name.starts_with(prefix)) continue;
    std::optional<int64_t> id = ParseId(name.substr(prefix.size()));
    if (id) return std::make_pair(*id, savepoint);
  }
  return std::nullopt;
}

struct Candidate {
  int64_t id = 0;
  SnapshotOrigin origin = SnapshotOrigin::kCheckpointDir;
  std::string name;  // for messages
  std::string dir;   // snapshot directory ("" if the reference is unreadable)
  std::string ref_error;
};

}  // namespace

std::string SnapshotRefName(int64_t checkpoint_id, bool savepoint) {
  return std::string(savepoint ? kSavepointRefPrefix : kRestoredRefPrefix) +
         std::to_string(checkpoint_id) + std::string(kSnapshotRefSuffix);
}

base::Status RecordSnapshotRef(base::Fs& fs, const std::string& job_dir, int64_t checkpoint_id,
                               const std::string& snapshot_dir, bool savepoint) {
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(job_dir));
  const std::string path = base::JoinPath(job_dir, SnapshotRefName(checkpoint_id, savepoint));
  CKPT_RETURN_IF_ERROR_CTX(fs.PublishAtomic(path, snapshot_dir + "\n"),
                           "recording " + path);
  return base::Status::OK();
}

base::Status RemoveSnapshotRef(base::Fs& fs, const std::string& job_dir, int64_t checkpoint_id,
                               bool savepoint) {
  base::Status st =
      fs.RemoveFile(base::JoinPath(job_dir, SnapshotRefName(checkpoint_id, savepoint)));
  return st.IsNotFound() ? base::Status::OK() : st;
}

base::Status RecordJobFinished(base::Fs& fs, const std::string& job_dir,
                               int64_t final_checkpoint_id) {
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(job_dir));
  return fs.PublishAtomic(base::JoinPath(job_dir, kFinishedMarkerName),
                          std::to_string(final_checkpoint_id) + "\n");
}

base::Result<DiscoveredCheckpoints> DiscoverCheckpoints(base::Fs& fs, const std::string& job_dir) {
  // The chk-<n> directories come from the same discovery as ckpt-tool ls and prune and the
  // inspector (format/snapshot_discovery.h), one level deep; the reference files the engine
  // writes beside them (savepoints taken, snapshots restored from, the finished marker) from
  // the listing of the job directory.
  format::DiscoveryOptions one_level;
  one_level.max_depth = 1;
  CKPT_ASSIGN_OR_RETURN(std::vector<format::DiscoveredSnapshot> found,
                        format::DiscoverSnapshots(fs, job_dir, one_level));
  CKPT_ASSIGN_OR_RETURN(std::vector<base::DirEntry> entries, fs.ListDir(job_dir));
  DiscoveredCheckpoints out;
  std::vector<Candidate> candidates;
  for (const auto& d : found) {
    if (d.checkpoint_id) {
      candidates.push_back({*d.checkpoint_id, SnapshotOrigin::kCheckpointDir, d.rel, d.dir, ""});
    }
  }
  for (const auto& e : entries) {
    if (e.is_dir) continue;
    if (e.name == kFinishedMarkerName) {
      base::Result<std::string> text =
          base::ReadFileToString(fs, base::JoinPath(job_dir, e.name), 64);
      std::string t = text.ok() ? *text : "";
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
      out.finished_at = ParseId(t).value_or(0);
      out.any_published = true;
      continue;
    }
    std::optional<std::pair<int64_t, bool>> ref = ParseRefName(e.name);
    if (!ref) continue;
    out.any_published = true;
    Candidate c;
    c.id = ref->first;
    c.origin = ref->second ? SnapshotOrigin::kSavepointRef : SnapshotOrigin::kRestoredRef;
    c.name = e.name;
    base::Result<std::string> text =
        base::ReadFileToString(fs, base::JoinPath(job_dir, e.name), 1 << 16);
    if (!text.ok()) {
      c.ref_error = "unreadable reference: " + text.status().ToString();
    } else {
      std::string t = *text;
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
      if (t.empty() || t.find('\n') != std::string::npos) {
        c.ref_error = "malformed reference (expected one snapshot path)";
      } else {
        c.dir = t;
        c.name += " -> " + t;
      }
    }
    candidates.push_back(std::move(c));
  }
  // Newest first; at equal ids the job's own checkpoint directory first.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::make_tuple(-a.id, static_cast<int>(a.origin), a.name) <
           std::make_tuple(-b.id, static_cast<int>(b.origin), b.name);
  });
  auto skip = [&](const Candidate& c, std::string reason) {
    out.skipped.push_back(c.name + ": " + reason);
    out.skipped_detail.push_back({c.id, c.name, std::move(reason)});
  };
  for (const Candidate& cand : candidates) {
    if (!cand.ref_error.empty()) {
      skip(cand, cand.ref_error);
      continue;
    }
    const std::string metadata_path = base::JoinPath(cand.dir, format::kMetadataFileName);
    base::Result<pb::CheckpointMetadata> md = format::ReadMetadataFile(fs, metadata_path);
    if (!md.ok()) {
      const bool absent = md.status().IsNotFound();
      if (!absent && cand.origin == SnapshotOrigin::kCheckpointDir) out.any_published = true;
      skip(cand, absent ? std::string(cand.origin == SnapshotOrigin::kCheckpointDir
                                          ? "no _metadata (incomplete)"
                                          : "the snapshot is gone (no _metadata)")
                        : md.status().ToString());
      continue;
    }
    if (cand.origin == SnapshotOrigin::kCheckpointDir) out.any_published = true;
    // Presence and sizes only, as prune's check without checksums (format/snapshot_files_check.h):
    // the restore itself verifies every byte it reads against the recorded checksums.
    format::FilesCheckOptions sizes_only;
    sizes_only.verify_checksums = false;
    base::Status files = format::CheckSnapshotFiles(fs, cand.dir, *md, sizes_only);
    if (!files.ok()) {
      skip(cand, files.ToString());
      continue;
    }
    CompletedCheckpoint c;
    c.checkpoint_id = md->checkpoint_id();
    c.kind = md->kind() == pb::SNAPSHOT_KIND_UNSPECIFIED ? pb::CHECKPOINT : md->kind();
    c.dir = cand.dir;
    c.metadata_path = metadata_path;
    c.trigger_timestamp_ms = md->trigger_timestamp();
    c.completion_timestamp_ms = md->completion_timestamp();
    c.state_size_bytes = md->metrics().state_size();
    c.owned = cand.origin == SnapshotOrigin::kCheckpointDir && c.kind == pb::CHECKPOINT;
    out.complete.push_back(std::move(c));
    out.origins.push_back(cand.origin);
  }
  return out;
}

base::Result<CompletedCheckpoint> FindLatestCheckpoint(base::Fs& fs, const std::string& job_dir) {
  CKPT_ASSIGN_OR_RETURN(DiscoveredCheckpoints found, DiscoverCheckpoints(fs, job_dir));
  if (!found.complete.empty()) return found.complete.front();
  std::string msg = "no complete checkpoint in " + job_dir;
  if (!found.skipped.empty()) {
    msg += " (skipped:";
    for (const auto& s : found.skipped) msg += " [" + s + "]";
    msg += ")";
  }
  return base::Status::NotFound(msg);
}

}  // namespace ckpt::engine
