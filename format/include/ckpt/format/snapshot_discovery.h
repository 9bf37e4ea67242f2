// Snapshot discovery: which directories under a checkpoint root are snapshots. The one walk that
// ckpt-tool ls and prune, the inspector and `ckpt-engine run --from-latest` all use, so they
// always agree on what is there. Depth rules (FORMAT.md "Discovery"):
//   - `root` itself is a snapshot when it holds `_metadata`: the result is that one snapshot.
//   - Otherwise directories are visited breadth-first down to `max_depth` levels below `root`
//     (default 3: <root>/<dir>/<job-id>/chk-<n>, e.g. fixtures/v1/checkpoints/<job>/chk-1).
//   - A directory is a snapshot if it is named chk-<n> or savepoint-*, or holds a `_metadata`
//     file; a snapshot is never descended into. A chk-<n> or savepoint-* without `_metadata` is
//     still reported (an incomplete snapshot, has_metadata = false).
//   - `shared/` and `taskowned/` (files of a job, never snapshots), names starting with '.' and
//     names ending in ".tmp" (a write in progress) are not visited.
// Pure Fs look-ups (no metadata is decoded); thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::format {

struct DiscoveredSnapshot {
  std::string rel;      // relative to the root ("" when the root itself is the snapshot)
  std::string dir;      // base::JoinPath(root, rel)
  bool has_metadata = false;
  // chk-<n> directories: n, and the job directory that holds them (relative to the root, ""
  // when the root is the job directory).
  std::optional<int64_t> checkpoint_id;
  std::string job_rel;
  // The job directory's name when it is a job id (32 lowercase hex digits); else empty.
  std::string job_id_hex;
};

struct DiscoveryOptions {
  // How many directory levels below the root are searched. Default: 3.
  uint32_t max_depth = 3;
};

// The snapshots under `root`, sorted by `rel`. NotFound if `root` does not exist;
// InvalidArgument if it is not a directory; IOError (naming the directory) if one cannot be
// listed.
base::Result<std::vector<DiscoveredSnapshot>> DiscoverSnapshots(base::Fs& fs,
                                                                const std::string& root,
                                                                const DiscoveryOptions& options = {});

}  // namespace ckpt::format
