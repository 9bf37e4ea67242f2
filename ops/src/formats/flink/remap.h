// Private to ckpt::ops: remap of an Apache Flink snapshot. The same requests as for our format
// (--map, --against, uid prefix/suffix rewrites, --drop, resolved by remap_plan), applied to
// the Flink `_metadata` only: operator IDs and (v5+) uids are rewritten, dropped operators left
// out, everything else — coordinator state, handles, the properties trailer — written back
// byte for byte by ckpt::flink's writer. State files are never modified: files referenced by
// relative handles are copied beside the new `_metadata` (so the savepoint stays relocatable),
// files referenced by absolute path stay where they are and are still referenced there.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/layout.h"
#include "ckpt/ops/remap.h"

namespace ckpt::ops::internal {

// ops::Remap for a snapshot whose `_metadata` has Flink's magic. Errors as ops::Remap.
base::Result<RemapResult> RemapFlink(base::Fs& fs, const format::SnapshotLocation& location,
                                     const std::string& output_dir, const RemapOptions& options);

}  // namespace ckpt::ops::internal
