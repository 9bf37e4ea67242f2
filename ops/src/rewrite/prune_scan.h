// The read-only half of prune: walking a checkpoint root into jobs, checkpoints, savepoints and
// the files under shared/ and chk-*, with sizes and ages, plus lexical path helpers. Private to
// ckpt::ops.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/snapshot_files_check.h"

namespace ckpt::ops::internal {

struct ScannedFile {
  std::string rel;  // relative to the root
  std::string abs;  // normalized absolute path
  uint64_t size_bytes = 0;
  std::optional<int64_t> mtime_ms;  // nullopt when unknown
};

// A directory tree below the root: its files and (post-order) subdirectories.
struct ScannedTree {
  std::vector<ScannedFile> files;
  std::vector<std::string> dirs_post_order;  // rel paths, deepest first, the tree's root last
};

enum class MetadataState { kMissing, kReadable, kUnreadable };

struct ScannedSnapshot {
  std::string rel;  // directory relative to the root
  std::string abs;
  int64_t checkpoint_id = -1;  // from the dir name (chk-N) or the metadata
  bool is_checkpoint_dir = false;  // chk-N of a job directory
  MetadataState metadata_state = MetadataState::kMissing;
  std::string metadata_error;
  std::optional<pb::CheckpointMetadata> metadata;
  std::optional<int64_t> metadata_mtime_ms;
  // Readable metadata: the files a restore reads (prune_restorable.h), or why they cannot be
  // listed (a reference escaping its directory).
  std::vector<format::ExpectedFile> restore_files;
  std::string restore_files_error;
  ScannedTree tree;  // chk-N only
};

struct ScannedJob {
  std::string rel;                          // "" when the root is the job directory
  // An engine runs the job now: its `_job.lock` exists and another process holds it.
  bool live = false;
  // The filesystem has no locks (Fs::SupportsLocks): whether an engine runs the job cannot be
  // told, so `live` says nothing; executing a prune here is refused.
  bool liveness_unknown = false;
  std::string lock_path;  // absolute path of `_job.lock`
  std::vector<ScannedSnapshot> checkpoints;  // chk-N, ascending id
  std::optional<ScannedTree> shared;        // <job>/shared when present
  // <job>/taskowned when present: never pruned (the job owns it), but stored bytes (growth).
  std::optional<ScannedTree> task_owned;
};

struct ScannedRoot {
  std::string root;      // as given
  std::string abs_root;  // normalized absolute
  std::vector<ScannedJob> jobs;
  std::vector<ScannedSnapshot> other_snapshots;  // savepoints and other dirs with _metadata
};

// Walks `root`. NotFound if it does not exist; IOError if a listing fails.
base::Result<ScannedRoot> ScanRoot(base::Fs& fs, const std::string& root);

// Every path (normalized absolute) `snap`'s readable metadata references: its file table
// (escaping or malformed references left out: they name no file inside the storage) and its
// sinks' pending and final files. Empty without readable metadata.
std::set<std::string> SnapshotReferences(const ScannedSnapshot& snap);

// Lexically normalized absolute path ("." and ".." resolved, duplicate slashes removed);
// relative paths are taken against the working directory. A URI ("s3://bucket/a/../b") keeps
// its "scheme://authority" and has the path after it normalized ("s3://bucket/b").
std::string NormalizeAbsolute(const std::string& path);

// `rel` joined under `base` ("" stays `base`).
std::string JoinRel(const std::string& base, const std::string& rel);

}  // namespace ckpt::ops::internal
