// Private to ckpt::ops: what both translations of Apache Flink metadata share (the plain model,
// formats/flink/model.cpp, and the protobuf, formats/flink/translate.cpp): the file table the handles index
// into and the snapshot-wide facts. Both walk the handles in the same order through one
// FlinkFileTable, so their file indexes agree. Not thread-safe (a builder).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/flink/metadata.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

// One file-table entry per distinct (scope, path) a handle names; inline byte-stream state is
// listed as `_metadata`, where its bytes live.
class FlinkFileTable {
 public:
  struct Entry {
    std::string path;  // relative to its scope's directory; EXTERNAL: absolute
    FileScope scope = FileScope::kUnspecified;
    FileKind kind = FileKind::kUnspecified;  // unspecified when handles of several kinds name it
    uint64_t size_bytes = 0;
    bool is_metadata = false;  // `_metadata`: inline byte-stream state lives in it
  };

  // `dir` is the snapshot directory (absolute file handles below it are EXCLUSIVE).
  FlinkFileTable(const flink::Metadata& md, const std::string& dir);

  // The index of the file behind `h` (added on first sight).
  uint32_t Add(const flink::StreamHandle& h, FileKind kind);

  // In index order.
  const std::vector<Entry>& entries() const { return entries_; }
  // The entries, moved out (the table is of no further use).
  std::vector<Entry> Release() && { return std::move(entries_); }

 private:
  // Scope and path of an absolute local path: inside the snapshot directory → EXCLUSIVE, in the
  // job's shared/ or taskowned/ → SHARED / TASK_OWNED, otherwise EXTERNAL.
  std::pair<FileScope, std::string_view> Place(std::string_view path) const;
  // `path`, an absolute location of another scheme than the snapshot directory's but on the same
  // Fs (s3a://b/k in a snapshot opened as s3://b/...), spelt with the directory's scheme, so
  // Place finds it under the snapshot; "" for any other path.
  std::string SpeltAsSnapshotDir(const std::string& path) const;
  uint32_t Insert(FileScope scope, std::string_view path, FileKind kind, uint64_t size_bytes);
  static size_t Hash(FileScope scope, std::string_view path);
  void Rehash(size_t slots);

  const flink::Metadata& md_;
  std::string dir_;
  std::string shared_dir_;      // <job dir>/shared
  std::string task_owned_dir_;  // <job dir>/taskowned
  std::vector<Entry> entries_;
  // Open addressing over entries_ (a slot holds entry index + 1, 0 = free; at most half full):
  // a 10,000-subtask snapshot names 20,000 files, and a node-based map spent an allocation on
  // each.
  std::vector<uint32_t> slots_;
};

// The snapshot-wide facts of Flink metadata, in the model's terms.
struct FlinkSummary {
  // <root>/<32 hex job id>/chk-<n>/_metadata: the job id is in the path, not in the file.
  std::string job_id_hex;  // empty when the directory does not say
  // From the CheckpointProperties trailer (v4+) or, for v2/v3, from the keyed handle tags
  // (tag 7 is written only for canonical savepoints).
  SnapshotKind kind = SnapshotKind::kUnspecified;
  SavepointFormat savepoint_format = SavepointFormat::kUnspecified;
  PostAction post_action = PostAction::kUnspecified;
  CheckpointType checkpoint_type = CheckpointType::kUnspecified;  // checkpoints only
  // Some subtask has channel state.
  bool unaligned = false;
  // Subtask entries, finished ones included.
  uint32_t num_subtasks = 0;
  std::map<std::string, std::string> properties;  // "flink.*"
};

// Builds a FlinkSummary from the operators, given one at a time (a streamed parse keeps none),
// and the rest of the metadata (header and CheckpointProperties trailer).
class FlinkSummarizer {
 public:
  void AddOperator(const flink::OperatorState& op);
  // `md` holds what follows the operators; its `operators` are not read.
  FlinkSummary Finish(const flink::Metadata& md, const std::string& dir) const;

 private:
  bool incremental_ = false;
  bool changelog_ = false;
  bool canonical_tag_ = false;
  bool unaligned_ = false;
  uint32_t num_subtasks_ = 0;
};

// The summary of decoded metadata with its operators.
FlinkSummary SummarizeFlinkMetadata(const flink::Metadata& md, const std::string& dir);

}  // namespace ckpt::ops::internal
