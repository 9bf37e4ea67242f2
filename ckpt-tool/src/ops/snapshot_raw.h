// Private to ckpt::ops: the decoded protobuf behind a Snapshot, for ops sources that need the
// raw handles (dump, validate, show --format json, remap). Never included by public headers.
#pragma once

#include <memory>

#include "ckpt/flink/metadata.h"
#include "ckpt/format/proto.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct SnapshotRaw {
  pb::CheckpointMetadata metadata;
  // Set for an Apache Flink snapshot (flink_model.h): the Flink metadata `metadata` was built from.
  std::shared_ptr<const flink::Metadata> flink;
};

inline const pb::CheckpointMetadata& RawMetadata(const Snapshot& snapshot) {
  return snapshot.raw->metadata;
}

// Builds the plain model from decoded metadata; `dir` is the snapshot directory (used to resolve
// file paths). Never fails: unresolvable references keep their resolve_error.
Snapshot BuildSnapshotModel(pb::CheckpointMetadata metadata, const std::string& dir,
                            const std::string& metadata_path);

}  // namespace ckpt::ops
