// Private to ckpt::ops: the decoded protobuf behind a Snapshot, for ops sources that need the
// raw handles (dump, validate, show --format json, remap). Never included by public headers.
#pragma once

#include "ckpt/format/proto.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

struct SnapshotRaw {
  pb::CheckpointMetadata metadata;
};

inline const pb::CheckpointMetadata& RawMetadata(const Snapshot& snapshot) {
  return snapshot.raw->metadata;
}

// Reads and decodes the `_metadata` file at `metadata_path`: the one place every ops reader
// (LoadSnapshot, ListRoot) turns metadata bytes into the model's protobuf, so another on-disk
// metadata format is added here by dispatching on the file's magic. Errors as
// format::ReadMetadataFile.
base::Result<pb::CheckpointMetadata> ReadSnapshotMetadata(base::Fs& fs,
                                                          const std::string& metadata_path);

// Builds the plain model from decoded metadata; `dir` is the snapshot directory (used to resolve
// file paths). Never fails: unresolvable references keep their resolve_error.
Snapshot BuildSnapshotModel(pb::CheckpointMetadata metadata, const std::string& dir,
                            const std::string& metadata_path);

}  // namespace ckpt::ops
