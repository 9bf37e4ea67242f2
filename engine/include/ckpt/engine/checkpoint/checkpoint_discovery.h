// Finding the newest complete checkpoint of a job on disk (`--from-latest <checkpoint-dir>/
// <job-id>`), e.g. after a kill -9. A chk-<n> directory counts only if its `_metadata` decodes
// with a valid checksum and every EXCLUSIVE file it references exists with the recorded size;
// others are incomplete (a crash before `_metadata` was published) and skipped. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/completed_checkpoint.h"

namespace ckpt::engine {

struct DiscoveredCheckpoints {
  // Complete checkpoints, newest first.
  std::vector<CompletedCheckpoint> complete;
  // Directories skipped, each with the reason (e.g. "chk-7: no _metadata").
  std::vector<std::string> skipped;
};

// Scans `job_dir`. NotFound if `job_dir` does not exist; IOError if it cannot be listed.
base::Result<DiscoveredCheckpoints> DiscoverCheckpoints(base::Fs& fs, const std::string& job_dir);

// The newest complete checkpoint in `job_dir`. NotFound (naming the directory and listing what
// was skipped) if there is none.
base::Result<CompletedCheckpoint> FindLatestCheckpoint(base::Fs& fs, const std::string& job_dir);

}  // namespace ckpt::engine
