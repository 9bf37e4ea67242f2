// Private to ckpt::ops: relocate of an Apache Flink snapshot. Every file a handle names is
// copied into the output directory (size checked) and every file handle becomes a RELATIVE
// handle (tag 6) to its copy, so the output is self-contained and can be moved; inline state,
// the CheckpointProperties trailer and everything else stay Flink's own bytes (written by
// ckpt::flink's writer in the input's metadata version). A handle whose file is missing — a
// savepoint moved away from the absolute paths it names — is reported before anything is
// written.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/layout.h"
#include "ckpt/ops/relocate.h"

namespace ckpt::ops::internal {

// ops::Relocate for a snapshot whose `_metadata` has Flink's magic. Errors as ops::Relocate;
// Unimplemented for file-merging segment handles (Flink has no relative form of them) and for
// handles on a remote file system.
base::Result<RelocateResult> RelocateFlink(base::Fs& fs, const format::SnapshotLocation& location,
                                           const std::string& output_dir,
                                           const RelocateOptions& options);

}  // namespace ckpt::ops::internal
