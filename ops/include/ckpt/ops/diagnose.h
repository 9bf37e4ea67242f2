// diagnose: what can be said about a snapshot directory that does not open (no `_metadata`, a
// damaged one, referenced files gone): the reason it does not load, validate's findings that
// need no content reads (the rule, message and hint of each problem, e.g. CKPT-M001 for a
// missing `_metadata`), what is in the directory and what is missing from it. Stateless;
// thread-safe given a thread-safe Fs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/finding.h"

namespace ckpt::ops {

// One entry of the snapshot directory as it is on disk (links are not followed).
struct DiagnosedEntry {
  std::string name;  // a single path component
  bool is_dir = false;
  // base::FileTypeName of the entry itself ("regular file", "directory", "symbolic link", ...).
  std::string type;
  uint64_t size_bytes = 0;  // regular files; 0 otherwise
};

struct SnapshotDiagnosis {
  std::string path;  // as given
  std::string dir;   // the directory examined (`path`, or the directory of a `_metadata` file)
  // Why LoadSnapshot refuses the snapshot (its status, naming the file); empty when it loads.
  std::string load_error;
  bool has_metadata = false;  // `_metadata` exists in `dir` (whatever its contents)
  // Validate's findings without checksum reads (envelope, structure, file presence and size),
  // sorted; empty only when nothing is wrong that such a check can see.
  std::vector<Finding> findings;
  // What is in `dir`, sorted by name.
  std::vector<DiagnosedEntry> present;
  // What the snapshot needs and `dir` (or the shared directories) lacks: "_metadata" when it is
  // absent, then each referenced file a finding reports missing (CKPT-F001), as the finding
  // names it (relative to `dir` where possible); unique, in that order.
  std::vector<std::string> missing;
};

// Diagnoses the snapshot at `path` (a snapshot directory or its `_metadata` file). Problems of
// the snapshot are in the result, never an error status. NotFound if `path` does not exist;
// IOError if `dir` cannot be listed.
base::Result<SnapshotDiagnosis> DiagnoseSnapshot(base::Fs& fs, const std::string& path);

}  // namespace ckpt::ops
