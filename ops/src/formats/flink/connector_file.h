// Private to ckpt::ops: the file connector's checkpointed bytes (flink-connector-files: FileSource
// splits and enumerator checkpoint, FileSink bucket states and committables, and the local file
// system's recoverables inside them), decoded into the positions model. Each decoder reads
// exactly one serialized object and fails with Corruption naming the file and byte offset
// otherwise. Pure functions; thread-safe. docs/flink-format.md, "Connector state".
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/ops/positions.h"

namespace ckpt::ops::internal::connector {

// FileSourceSplitSerializer v1: UTF id, Path, i64 offset, i64 length, hosts, optional
// CheckpointedPosition (i64 offset, i64 records to skip).
base::Result<SourcePosition> DecodeFileSplit(int32_t version, flink::DataInput& in);

// PendingSplitsCheckpointSerializer v1 (little-endian, magic 0xDEADBEEF): pending splits and
// already processed paths.
struct FileEnumState {
  std::vector<SourcePosition> pending;  // origin kEnumeratorPending
  std::vector<std::string> processed_paths;
};
base::Result<FileEnumState> DecodeFileEnumState(int32_t version, flink::DataInput& in);

// FileWriterBucketStateSerializer v1-v3 (magic 0x1e764b79): the bucket, its in-progress file
// (action kResume) and, v1/v2, pending files per checkpoint (action kCommit).
struct FileBucketState {
  std::string bucket_id;
  std::string bucket_path;
  std::vector<SinkTransaction> files;
};
base::Result<FileBucketState> DecodeFileBucketState(int32_t version, flink::DataInput& in);

// FileSinkCommittableSerializer (magic 0x1e765c80): the pending file to commit (kCommit) and
// an in-progress file to clean up (kAbort).
base::Result<std::vector<SinkTransaction>> DecodeFileCommittable(int32_t version,
                                                                 flink::DataInput& in);

}  // namespace ckpt::ops::internal::connector
