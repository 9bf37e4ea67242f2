// Private to ckpt::ops: the decoded protobuf behind a Snapshot, for ops sources that need the
// raw handles (dump, validate, show --format json, remap). Never included by public headers.
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "ckpt/flink/metadata.h"
#include "ckpt/format/proto.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

// Safe to share between threads for reading (what is made on first use is made under
// std::call_once).
struct SnapshotRaw {
 public:
  // Our own format: the metadata as decoded.
  explicit SnapshotRaw(pb::CheckpointMetadata metadata) : metadata_(std::move(metadata)) {}
  // An Apache Flink snapshot (formats/flink/model.h). The plain model is built straight from the Flink
  // metadata, so what only some verbs read is made on first use: `decode` makes the Flink
  // metadata (decoded anew from the retained bytes when the model was built from a streamed
  // parse), `translate` the protobuf of it (for a 10,000-subtask `_metadata`, tens of thousands
  // of messages that ls never reads).
  SnapshotRaw(std::function<flink::Metadata()> decode,
              std::function<pb::CheckpointMetadata(const flink::Metadata&)> translate)
      : decode_(std::move(decode)), translate_(std::move(translate)) {}

  const pb::CheckpointMetadata& metadata() const {
    if (translate_) {
      std::call_once(metadata_once_, [this] { metadata_ = translate_(*flink_metadata()); });
    }
    return metadata_;
  }

  // The Flink metadata the model was built from; nullptr for our own format.
  const flink::Metadata* flink_metadata() const {
    if (!decode_) return nullptr;
    std::call_once(flink_once_, [this] { flink_ = decode_(); });
    return &flink_;
  }

 private:
  std::function<flink::Metadata()> decode_;
  std::function<pb::CheckpointMetadata(const flink::Metadata&)> translate_;
  mutable std::once_flag flink_once_;
  mutable std::once_flag metadata_once_;
  mutable flink::Metadata flink_;
  mutable pb::CheckpointMetadata metadata_;
};

inline const pb::CheckpointMetadata& RawMetadata(const Snapshot& snapshot) {
  return snapshot.raw->metadata();
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

// The size model of docs/sizes.md over a model whose file table and handles are filled: each
// keyed handle's size_bytes, each operator's total_bytes and checkpointed_bytes, each subtask's
// state_bytes (its share of shared files), and the snapshot's full and checkpointed sizes. One
// computation for both metadata formats.
void ComputeModelSizes(Snapshot* snapshot);

// Checks every directory on the way from the snapshot's directory (for EXCLUSIVE files) or its
// parent (SHARED, TASK_OWNED) to each referenced file with LinkStat, once per directory: a
// symbolic link or a non-directory there clears the file's resolved_path and sets
// resolve_error and link_in_path, so no reader follows it (O_NOFOLLOW guards only the last
// component). The snapshot's own directory and what lies above it are the user's to choose and
// may be links. EXTERNAL files are outside the snapshot and not checked here.
void RefuseLinksInPaths(base::Fs& fs, Snapshot* snapshot);

}  // namespace ckpt::ops
