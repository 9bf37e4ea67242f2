// show: the whole metadata of a snapshot, as the plain model (for text rendering) or as JSON in
// the vocabulary every verb shares (docs/json/README.md). Stateless; thread-safe.
#pragma once

#include <string>

#include "ckpt/base/result.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

// Protobuf's JSON mapping of the snapshot's CheckpointMetadata, on one line, with every field
// (defaults included) and proto field names; bytes are base64 as protobuf defines. Deterministic.
// Never fails today; Result leaves room for formats that can.
// Not what `show --format json` prints (see SnapshotJson); kept for tools that want the message.
base::Result<std::string> MetadataJson(const Snapshot& snapshot);

// The snapshot model as one JSON object on one line (docs/json/show.schema.json): hex IDs,
// numbers as numbers, lowercase enum names (null when not recorded), sizes from the size model
// (docs/sizes.md) with the writer's own numbers under "recorded_metrics". Deterministic.
std::string SnapshotJson(const Snapshot& snapshot);

}  // namespace ckpt::ops
