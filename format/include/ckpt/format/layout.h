// Directory layout of checkpoint storage (FORMAT.md "Layout"):
//   <checkpoint-dir>/<job-id>/chk-<n>/_metadata (+ exclusive files)
//   <checkpoint-dir>/<job-id>/shared/      files referenced by several checkpoints
//   <checkpoint-dir>/<job-id>/taskowned/   files owned by the tasks
//   <savepoint-dir>/savepoint-<first 6 of job id>-<12 random hex>/_metadata
// Pure path functions plus a few Fs look-ups; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"

namespace ckpt::format {

inline constexpr std::string_view kMetadataFileName = "_metadata";
inline constexpr std::string_view kSharedDirName = "shared";
inline constexpr std::string_view kTaskOwnedDirName = "taskowned";
inline constexpr std::string_view kCheckpointDirPrefix = "chk-";
inline constexpr std::string_view kSavepointDirPrefix = "savepoint-";
// `<checkpoint-dir>/<job-id>/_job.lock`: a running engine holds an exclusive Fs::TryLockFile on
// it for the job's whole life; a second engine on the same job, and prune's deletions of what a
// live job may still reference, are refused while it is held.
inline constexpr std::string_view kJobLockFileName = "_job.lock";

// `<root>/<job_id_hex>`.
std::string JobDir(std::string_view checkpoint_root, std::string_view job_id_hex);
// `<job_dir>/chk-<id>`.
std::string CheckpointDir(std::string_view job_dir, int64_t checkpoint_id);
// "chk-12" -> 12; anything else (including "chk-", "chk-01x", negative) -> nullopt.
std::optional<int64_t> ParseCheckpointDirName(std::string_view name);
// "savepoint-<6 hex>-<12 hex>" for `job_id_hex`, random suffix from `rng`.
std::string NewSavepointDirName(std::string_view job_id_hex, std::mt19937_64& rng);
bool IsSavepointDirName(std::string_view name);

// 32 lowercase hex digits of a 16-byte job id (bytes as stored in metadata). Corruption if the
// id is not 16 bytes.
base::Result<std::string> JobIdHex(std::string_view job_id_bytes);

// Corruption unless `path` is a non-empty relative path with no "", "." or ".." component and no
// NUL byte: a reference may never escape its directory.
base::Status CheckRelativePath(std::string_view path);

// The absolute (or caller-relative) path of `file` for a snapshot in `snapshot_dir`:
// EXCLUSIVE → <snapshot_dir>/<path>; SHARED → <snapshot_dir>/../shared/<path>;
// TASK_OWNED → <snapshot_dir>/../taskowned/<path>; EXTERNAL → path (must be absolute).
// Corruption (naming the path) if the reference escapes or the scope is unknown.
base::Result<std::string> ResolveFile(std::string_view snapshot_dir, const pb::FileEntry& file);
// As above for a reference given as its scope and recorded path (no FileEntry needed).
base::Result<std::string> ResolveFile(std::string_view snapshot_dir, pb::FileScope scope,
                                      std::string_view path);

// What a user may point at: a snapshot directory or its `_metadata` file.
struct SnapshotLocation {
  std::string dir;       // the snapshot directory
  std::string metadata;  // <dir>/_metadata
};
// NotFound if `user_path` does not exist, or is a directory without `_metadata` (the message
// says it is not a complete snapshot).
base::Result<SnapshotLocation> LocateSnapshot(base::Fs& fs, const std::string& user_path);

}  // namespace ckpt::format
