// Private to ckpt::ops: the post-prune check ExecutePrune runs with
// PruneOptions::verify_output (VerifyPrune, turned into a status). Stateless; thread-safe given
// a thread-safe Fs.
#pragma once

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/status.h"
#include "ckpt/ops/prune.h"

namespace ckpt::ops::internal {

// VerifyPrune(fs, plan, progress); `*verification` (optional) receives the outcome. Corruption
// naming the first kept snapshot that no longer opens or restores (and how many failed); the
// errors of VerifyPrune otherwise.
base::Status VerifyPruneAfterExecute(base::Fs& fs, const PrunePlan& plan,
                                     const base::Progress& progress,
                                     PruneVerification* verification);

}  // namespace ckpt::ops::internal
