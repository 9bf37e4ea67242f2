// Savepoint disposal (POST /savepoint-disposal): removes what a savepoint owns and nothing else.
// A savepoint directory is a user's directory: it may hold the user's own files next to the
// savepoint, which stay. Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::engine::rest {

struct DisposalPlan {
  std::string dir;                 // the savepoint directory
  std::string metadata;            // <dir>/_metadata
  std::vector<std::string> files;  // the exclusive files its _metadata references, resolved
};

// The savepoint at `user_path` (its directory or its _metadata): every file its _metadata
// references with EXCLUSIVE scope (shared, task-owned and external files belong to others).
// NotFound / Corruption from locating and decoding the metadata, naming the path.
base::Result<DisposalPlan> PlanDisposal(base::Fs& fs, const std::string& user_path);

// Removes `_metadata` first (a half-disposed savepoint is never restorable), then the files
// (already missing ones are fine), then the directories among them left empty, the savepoint
// directory last and only if it is empty then. The first error, naming the path.
base::Status Dispose(base::Fs& fs, const DisposalPlan& plan);

}  // namespace ckpt::engine::rest
