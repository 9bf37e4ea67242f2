// FailureLedger: how many times each injected-failure trigger has fired, kept outside the job's
// state so a failure that rolls the job back to an earlier checkpoint is not injected again.
// In memory for the process (restarts inside one ckpt-engine run), or as marker files in a
// directory (survives a kill -9 and a resume in a new process). Thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::engine::operators {

class FailureLedger {
 public:
  // Records one firing of `trigger` unless it already fired `limit` times. Returns true if the
  // caller must inject the failure now. With a non-empty `marker_dir` the count is the number
  // of files "<trigger>.<i>" there (each firing creates one, exclusively, so concurrent callers
  // never both win); otherwise a process-wide counter. IOError if the directory is unusable.
  static base::Result<bool> TryFire(base::Fs& fs, const std::string& marker_dir,
                                    const std::string& trigger, int64_t limit);
};

}  // namespace ckpt::engine::operators
