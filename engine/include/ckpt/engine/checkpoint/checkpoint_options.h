// CheckpointOptions: what the coordinator tells the runtime (and through the barrier every
// subtask) about one checkpoint or savepoint. Plain value type.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

struct CheckpointOptions {
  int64_t checkpoint_id = 0;
  // When the coordinator triggered it (ms since the epoch); barriers carry it.
  int64_t trigger_timestamp_ms = 0;
  pb::SnapshotKind kind = pb::CHECKPOINT;
  // SAVEPOINT only: POST_ACTION_NONE (intermediate; sinks do NOT commit), POST_ACTION_STOP or
  // POST_ACTION_TERMINATE (stop-with-savepoint, with drain for TERMINATE; sinks commit).
  pb::SavepointPostAction post_action = pb::SAVEPOINT_POST_ACTION_UNSPECIFIED;
  pb::SavepointFormat savepoint_format = pb::SAVEPOINT_FORMAT_UNSPECIFIED;
  pb::CheckpointingMode mode = pb::ALIGNED_EXACTLY_ONCE;
  // The snapshot directory (chk-<n> or savepoint-...), already created by the coordinator.
  // Subtasks write their state files directly into it.
  std::string snapshot_dir;
  // CHECKPOINT only: a FULL checkpoint (Flink's CheckpointType.FULL, a manual
  // `POST /jobs/:jobid/checkpoints {"checkpointType": "FULL"}`): self-contained, it references
  // no file an earlier checkpoint uploaded (an incremental RocksDB backend uploads every SST, the
  // changelog backend materializes); later incremental checkpoints may reference its files.
  // Default: false (as configured).
  bool full = false;
  // Where SHARED files go (the job's shared/ directory). Default: "" = shared/ beside
  // snapshot_dir (FORMAT.md §1). Set when a backend writes a snapshot of its own outside a
  // checkpoint directory (the changelog backend's background materialization).
  std::string shared_dir;

  // shared_dir, or its default.
  std::string SharedDir() const {
    return shared_dir.empty() ? base::JoinPath(base::DirName(snapshot_dir), "shared") : shared_dir;
  }

  bool is_savepoint() const { return kind == pb::SAVEPOINT; }
  // Stop-with-savepoint: the job stops after it; sinks commit on its completion.
  bool is_synchronous() const {
    return is_savepoint() &&
           (post_action == pb::POST_ACTION_STOP || post_action == pb::POST_ACTION_TERMINATE);
  }
};

}  // namespace ckpt::engine
