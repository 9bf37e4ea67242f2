// Private to ckpt::ops: Apache Flink metadata translated into the format's protobuf, the raw
// handles that dump, validate, stats and show --format json read (SnapshotRaw::metadata). Built
// on first use: the plain model comes straight from flink::Metadata (formats/flink/model.h).
#pragma once

#include <string>

#include "ckpt/flink/metadata.h"
#include "ckpt/format/proto.h"

namespace ckpt::ops::internal {

// The protobuf of `md` read from the snapshot directory `dir`: one file-table entry per distinct
// file (FlinkFileTable), no keyed states (they come from the state files: formats/flink/model.cpp adds
// them). Never fails.
pb::CheckpointMetadata TranslateFlinkMetadata(const flink::Metadata& md, const std::string& dir);

}  // namespace ckpt::ops::internal
