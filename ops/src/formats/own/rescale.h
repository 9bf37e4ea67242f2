// RescaleOwn: rescale-max-parallelism of a ckpt-format canonical savepoint (ops::
// RescaleMaxParallelism, see rescale.h). A key's group is KeyGroupForKey(encoded key, maxP)
// (format/key_groups.h), so every keyed record — timers included — is re-assigned from its
// encoded key alone, whatever the key type. Each rescaled operator keeps its parallelism; its
// subtasks get the key-group ranges of the new max parallelism, one new KEYED_STATE container
// each; every other file is copied unchanged. Private to ckpt::ops.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/layout.h"
#include "ckpt/ops/rescale.h"

namespace ckpt::ops::internal {

base::Result<RescaleResult> RescaleOwn(base::Fs& fs, const format::SnapshotLocation& location,
                                       const std::string& output_dir,
                                       const RescaleOptions& options);

}  // namespace ckpt::ops::internal
