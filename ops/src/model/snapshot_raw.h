// Private to ckpt::ops: the decoded protobuf behind a Snapshot, for ops sources that need the
// raw handles (dump, validate, show --format json, remap), and the format it was read with.
// Never included by public headers.
#pragma once

#include "ckpt/format/proto.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

namespace internal {
class SnapshotFormat;
}  // namespace internal

// The decoded metadata behind a Snapshot and the format it was read with (formats/
// snapshot_format.h). This base holds our format's protobuf as decoded; a format whose model
// is built another way derives from it and makes the protobuf on first use. Safe to share
// between threads for reading.
struct SnapshotRaw {
 public:
  SnapshotRaw(const internal::SnapshotFormat& format, pb::CheckpointMetadata metadata)
      : format_(&format), metadata_(std::move(metadata)) {}
  virtual ~SnapshotRaw() = default;
  SnapshotRaw(const SnapshotRaw&) = delete;
  SnapshotRaw& operator=(const SnapshotRaw&) = delete;

  // The metadata as our format's protobuf (for another format, its translation).
  virtual const pb::CheckpointMetadata& metadata() const { return metadata_; }

  // The format the snapshot was read with.
  const internal::SnapshotFormat& format() const { return *format_; }

 protected:
  explicit SnapshotRaw(const internal::SnapshotFormat& format) : format_(&format) {}

 private:
  const internal::SnapshotFormat* format_;
  pb::CheckpointMetadata metadata_;
};

inline const pb::CheckpointMetadata& RawMetadata(const Snapshot& snapshot) {
  return snapshot.raw->metadata();
}

// Builds the plain model from decoded metadata; `dir` is the snapshot directory (used to resolve
// file paths). Never fails: unresolvable references keep their resolve_error.
Snapshot BuildSnapshotModel(pb::CheckpointMetadata metadata, const std::string& dir,
                            const std::string& metadata_path);

// The size model of docs/sizes.md over a model whose file table and handles are filled: each
// keyed handle's size_bytes, each operator's total_bytes and checkpointed_bytes, each subtask's
// state_bytes (its share of shared files), and the snapshot's full and checkpointed sizes. One
// computation for both metadata formats.
void ComputeModelSizes(Snapshot* snapshot);

// The checkpoint type a checkpoint's references prove: kIncremental when a handle references a
// SHARED file an earlier checkpoint created (it re-uses state it did not upload), whatever the
// writer recorded; otherwise the recorded type. Savepoints keep theirs (kUnspecified).
CheckpointType CheckpointTypeFromReferences(const Snapshot& snapshot);

// Checks every directory on the way from the snapshot's directory (for EXCLUSIVE files) or its
// parent (SHARED, TASK_OWNED) to each referenced file with LinkStat, once per directory: a
// symbolic link or a non-directory there clears the file's resolved_path and sets
// resolve_error and link_in_path, so no reader follows it (O_NOFOLLOW guards only the last
// component). The snapshot's own directory and what lies above it are the user's to choose and
// may be links. EXTERNAL files are outside the snapshot and not checked here.
void RefuseLinksInPaths(base::Fs& fs, Snapshot* snapshot);

}  // namespace ckpt::ops
