// show: the whole metadata of a snapshot, as the plain model (for text rendering) or as the
// protobuf JSON of the CheckpointMetadata message (all fields, including defaults).
// Stateless; thread-safe.
#pragma once

#include <string>

#include "ckpt/base/result.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

// Protobuf's JSON mapping of the snapshot's CheckpointMetadata, on one line, with every field
// (defaults included) and proto field names; bytes are base64 as protobuf defines. Deterministic.
// Never fails today; Result leaves room for formats that can.
base::Result<std::string> MetadataJson(const Snapshot& snapshot);

}  // namespace ckpt::ops
