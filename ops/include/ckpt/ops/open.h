// Open: the one decision "is this path a snapshot or a checkpoint root?" that ckpt-tool ls and
// the inspector's File > Open share. Stateless; thread-safe given a thread-safe Fs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct Opened {
  std::optional<Snapshot> snapshot;  // set when the path is a snapshot
  std::vector<JobListing> jobs;      // set when the path is a root (ListRoot)
  bool is_snapshot() const { return snapshot.has_value(); }
};

// A file (e.g. `_metadata`) or a directory holding `_metadata` is a snapshot (LoadSnapshot);
// any other directory is a root (ListRoot). Errors as LoadSnapshot / ListRoot; NotFound if
// `path` does not exist.
base::Result<Opened> Open(base::Fs& fs, const std::string& path);
// As Open, loading a snapshot with `options` (ls: `_metadata` only).
base::Result<Opened> Open(base::Fs& fs, const std::string& path, const LoadOptions& options);

// Whether `path` names one snapshot, for the verbs that take one (show, validate, files, dump,
// stats, diff): OK for a `_metadata` file, a directory holding one, an incomplete snapshot (a
// chk-<n> or savepoint-* directory without `_metadata`, or a directory of files without one:
// validate reports it), any other file (its magic decides), and a path that does not exist (the
// verb names it). InvalidArgument naming what was found instead:
//   - a checkpoint root: how many snapshots of which job, and the newest complete one
//     ("... did you mean '<root>/<job>/chk-12'?");
//   - a directory that holds no snapshot at all;
//   - a file of a snapshot (did you mean its directory?), or of a job's shared/ or taskowned/.
// Reads only directory listings and file types; thread-safe given a thread-safe Fs.
base::Status CheckSnapshotTarget(base::Fs& fs, const std::string& path);

}  // namespace ckpt::ops
