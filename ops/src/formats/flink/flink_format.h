// Private to ckpt::ops: Apache Flink's `_metadata` behind the SnapshotFormat seam
// (formats/snapshot_format.h). The verb bodies are in formats/flink/ (model, dump, stats, diff,
// validate, remap, relocate, rescale, restore_files).
#pragma once

#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/format/snapshot_files_check.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/snapshot.h"
#include "formats/snapshot_format.h"

namespace ckpt::ops::internal {

// Apache Flink's format: recognized by Flink's magic 0x4960672D at the head of `_metadata`.
const SnapshotFormat& FlinkSnapshotFormat();

// The files a restore of the Flink `snapshot` reads: every file handle (sizes only: Flink records
// no checksums; the size of a changelog or segment file is a lower bound), handles of a non-local
// file system left out. The CheckpointProperties trailer's error if it is cut or damaged (a
// restore reads `_metadata` to its end); InvalidArgument if `snapshot` is not a Flink snapshot.
base::Result<std::vector<format::ExpectedFile>> FlinkRestoreFiles(const Snapshot& snapshot);

// ops::StateValueFields of the keyed state `state` of `op`: the serializers at the head of the
// operator's first keyed handle, read through `fs` (value_fields.cpp). No fields for operator
// state, keyed list state and values the reader cannot decode.
base::Result<StateValueFieldList> ValueFieldsFlink(base::Fs& fs, const Snapshot& snapshot,
                                                   const OperatorInfo& op, const StateInfo& state);

// SnapshotFormat::Positions of a snapshot of this format (formats/flink/positions*.cpp).
base::Status PositionsFlink(base::Fs& fs, const Snapshot& snapshot, const base::Progress& progress,
                           PositionsReport* out);

}  // namespace ckpt::ops::internal
