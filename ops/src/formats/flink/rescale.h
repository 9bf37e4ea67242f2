// Private to ckpt::ops: rescale-max-parallelism of an Apache Flink canonical savepoint
// (ops::RescaleMaxParallelism for a `_metadata` with Flink's magic). Every keyed-state entry of
// every subtask is read from the full-snapshot streams (tag 7), its key's Java hashCode computed
// from the key bytes, checked against the key group it is stored in, re-assigned to
// murmurHash(hashCode) % newMaxParallelism with a key-group prefix of the new width, and written
// to one new stream per subtask covering KeyGroupRangeAssignment's range for it. Everything else
// in `_metadata` is written back by ckpt::flink's writer; other state files are copied.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/layout.h"
#include "ckpt/ops/rescale.h"

namespace ckpt::ops::internal {

base::Result<RescaleResult> RescaleFlink(base::Fs& fs, const format::SnapshotLocation& location,
                                         const std::string& output_dir, const RescaleOptions& options);

}  // namespace ckpt::ops::internal
