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
  std::string uid_hash;  // the operator ID, 32 hex digits
  uint32_t parallelism = 0;
  uint32_t max_parallelism = 0;
  uint64_t subtask_state_count = 0;
  uint64_t coordinator_state_bytes = 0;
  uint64_t total_bytes = 0;
};

struct LsResult {
  bool is_snapshot = false;       // true: `operators` is filled; false: `jobs`
  std::vector<JobListing> jobs;   // by job id
  std::vector<OperatorRow> operators;
};

// Lists `root`: every chk-<n> and savepoint-* directory in it or one level below (job
// directories), grouped by job. A directory without `_metadata` is incomplete; one whose
// `_metadata` cannot be decoded is corrupt (neither stops the listing).
// NotFound if `root` does not exist; IOError if it cannot be listed.
base::Result<std::vector<JobListing>> ListRoot(base::Fs& fs, const std::string& root);

// The operator table of a loaded snapshot, in the snapshot's operator order.
std::vector<OperatorRow> OperatorTable(const Snapshot& snapshot);

// `path` is a snapshot (directory with `_metadata`, or the file): its operator table;
// otherwise ListRoot. Errors as LoadSnapshot / ListRoot.
base::Result<LsResult> Ls(base::Fs& fs, const std::string& path);

}  // namespace ckpt::ops
