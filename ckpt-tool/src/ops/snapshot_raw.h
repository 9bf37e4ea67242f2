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

// Checks every directory on the way from the snapshot's directory (for EXCLUSIVE files) or its
// parent (SHARED, TASK_OWNED) to each referenced file with LinkStat, once per directory: a
// symbolic link or a non-directory there clears the file's resolved_path and sets
// resolve_error and link_in_path, so no reader follows it (O_NOFOLLOW guards only the last
// component). The snapshot's own directory and what lies above it are the user's to choose and
// may be links. EXTERNAL files are outside the snapshot and not checked here.
void RefuseLinksInPaths(base::Fs& fs, Snapshot* snapshot);

}  // namespace ckpt::ops
