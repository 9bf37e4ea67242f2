// Private to ckpt::ops: our own metadata format behind the SnapshotFormat seam
// (formats/snapshot_format.h), and the verb bodies particular to it that live in formats/own/.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/proto.h"
#include "ckpt/ops/diff.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/relocate.h"
#include "ckpt/ops/remap.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/state_entries.h"
#include "ckpt/ops/stats.h"
#include "formats/snapshot_format.h"

namespace ckpt::ops::internal {

// Our format. It recognizes every `_metadata` (the registry asks it last), so a damaged or
// unknown file gets its metadata checks and errors.
const SnapshotFormat& OwnSnapshotFormat();

// ops::Dump of a snapshot of our format (dump.cpp).
base::Result<uint64_t> DumpOwn(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                               const DumpSink& sink, const base::Progress& progress);

// diff --keys of two snapshots of our format (diff_keys.cpp).
base::Result<KeyDiffSummary> DiffKeysOwn(base::Fs& fs, const Snapshot& sa, const Snapshot& sb,
                                         const std::function<void(const KeyDiff&)>& sink,
                                         const base::Progress& progress);

// stats of one operator: key-group sizes from container footers, per-state sizes from one pass
// over the records (stats.cpp).
base::Status ScanOwnOperatorStats(base::Fs& fs, const Snapshot& snapshot,
                                  const pb::OperatorState& state, const StatsOptions& options,
                                  const base::Progress& progress, OperatorStats* out);

// validate's metadata rules M002..M006 and F004 over `metadata` (open as `file`): the model if
// it decodes (validate.cpp).
base::Result<std::optional<Snapshot>> CheckOwnMetadata(ValidateContext& ctx, const std::string& dir,
                                                       const std::string& metadata,
                                                       base::RandomAccessFile& file);

// validate's structure, sibling, file, --deep and --against rule groups (validate.cpp).
base::Status ValidateOwnSnapshot(ValidateContext& ctx, const Snapshot& snapshot);

// ops::StateValueFields of `state` of `op` from its declared value type (value_fields.cpp).
base::Result<StateValueFieldList> ValueFieldsOwn(const Snapshot& snapshot, const OperatorInfo& op,
                                                 const StateInfo& state);

// ops::Remap and ops::Relocate of a snapshot of our format (remap.cpp, relocate.cpp).
base::Result<RemapResult> RemapOwn(base::Fs& fs, const format::SnapshotLocation& location,
                                   const std::string& output_dir, const RemapOptions& options);
base::Result<RelocateResult> RelocateOwn(base::Fs& fs, const format::SnapshotLocation& location,
                                         const std::string& output_dir,
                                         const RelocateOptions& options);

// SnapshotFormat::Positions of a snapshot of this format (formats/own/positions*.cpp).
base::Status PositionsOwn(base::Fs& fs, const Snapshot& snapshot, const base::Progress& progress,
                         PositionsReport* out);

}  // namespace ckpt::ops::internal
