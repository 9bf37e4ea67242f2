// ls: what is under a checkpoint root (jobs -> checkpoints and savepoints with their state), or
// the operator table of one snapshot (the columns of Flink's savepoint_metadata()). Stateless
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

enum class SnapshotHealth { kComplete, kIncomplete, kCorrupt };
std::string_view SnapshotHealthName(SnapshotHealth h);  // "complete", "incomplete", "corrupt"

// One snapshot directory found under a root.
struct SnapshotEntry {
  std::string path;  // relative to the listed root ("<job>/chk-12", "savepoint-ab12cd-...")
  std::string job_id_hex;  // from the job directory, or the metadata for savepoints
  int64_t checkpoint_id = 0;  // from metadata, else from the "chk-<n>" name, else 0
  SnapshotKind kind = SnapshotKind::kUnspecified;
  SavepointFormat savepoint_format = SavepointFormat::kUnspecified;
  CheckpointType checkpoint_type = CheckpointType::kUnspecified;
  CheckpointingMode mode = CheckpointingMode::kUnspecified;
  int64_t trigger_timestamp_ms = 0;
  // The size model of docs/sizes.md (Snapshot::full_size_bytes / checkpointed_size_bytes).
  uint64_t full_size_bytes = 0;          // all state it references
  uint64_t checkpointed_size_bytes = 0;  // what this snapshot itself wrote
  int64_t end_to_end_duration_ms = 0;    // metrics.end_to_end_duration; 0 when not recorded
  uint32_t operator_count = 0;
  SnapshotHealth health = SnapshotHealth::kComplete;
  std::string problem;  // incomplete / corrupt: why
};

struct JobListing {
  std::string job_id_hex;
  std::vector<SnapshotEntry> snapshots;  // by checkpoint id, then path
};

// One row of the per-snapshot operator table (Flink's savepoint_metadata() columns).
struct OperatorRow {
  int64_t checkpoint_id = 0;
  std::string operator_name;
  std::string uid;
  UidOrigin uid_origin = UidOrigin::kRecorded;
  std::string uid_hash;  // the operator ID, 32 hex digits
  uint32_t parallelism = 0;
  uint32_t max_parallelism = 0;
  uint64_t subtask_state_count = 0;
  uint64_t coordinator_state_bytes = 0;
  uint64_t total_bytes = 0;
};

// The `_metadata` line under the operator table (docs/sizes.md): its bytes that are no
// operator's inline state, so the operator rows plus this line add up to the bytes on disk.
struct MetadataRow {
  int64_t checkpoint_id = 0;
  uint64_t own_bytes = 0;           // Snapshot::metadata_own_bytes()
  uint64_t file_bytes = 0;          // the file's size (Snapshot::metadata_size_bytes)
  uint64_t inline_state_bytes = 0;  // counted in the operator rows
};

struct LsResult {
  bool is_snapshot = false;       // true: `operators` and `metadata` are filled; false: `jobs`
  std::vector<JobListing> jobs;   // by job id
  std::vector<OperatorRow> operators;
  MetadataRow metadata;
};

// The `_metadata` line of a loaded snapshot.
MetadataRow MetadataLine(const Snapshot& snapshot);

// Lists `root`: every snapshot format::DiscoverSnapshots finds (its depth rules: up to three
// levels down, chk-<n>, savepoint-* and any directory with `_metadata`), grouped by job. A
// snapshot directory without `_metadata` is incomplete; one whose `_metadata` cannot be decoded
// is corrupt (neither stops the listing). NotFound if `root` does not exist; InvalidArgument if
// it is not a directory; IOError if a directory cannot be listed.
base::Result<std::vector<JobListing>> ListRoot(base::Fs& fs, const std::string& root);

// How many listed snapshots are corrupt (ls exits 1 when there are any).
size_t CorruptCount(const std::vector<JobListing>& jobs);

// The operator table of a loaded snapshot, in the snapshot's operator order.
std::vector<OperatorRow> OperatorTable(const Snapshot& snapshot);

// `path` is a snapshot (directory with `_metadata`, or the file): its operator table;
// otherwise ListRoot. `uids` names Flink operators (LoadOptions::uids). Errors as LoadSnapshot
// / ListRoot.
base::Result<LsResult> Ls(base::Fs& fs, const std::string& path,
                          const std::vector<std::string>& uids = {});

}  // namespace ckpt::ops
