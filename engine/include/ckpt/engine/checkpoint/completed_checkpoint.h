// CompletedCheckpoint: what the engine remembers about one published snapshot (checkpoint or
// savepoint). Plain value type.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/format/proto.h"

namespace ckpt::engine {

struct CompletedCheckpoint {
  int64_t checkpoint_id = 0;
  pb::SnapshotKind kind = pb::CHECKPOINT;
  // The snapshot directory and its `_metadata`.
  std::string dir;
  std::string metadata_path;
  int64_t trigger_timestamp_ms = 0;
  int64_t completion_timestamp_ms = 0;
  // Full size of the state it references (CheckpointMetrics.state_size).
  uint64_t state_size_bytes = 0;
  // Whether the engine may delete it (when subsumed or on cancel per the retention policy):
  // true for checkpoints it took and for snapshots restored in CLAIM mode; false for savepoints
  // it took and for snapshots restored in NO_CLAIM mode.
  bool owned = true;
  // It was restored from (not taken by this run).
  bool restored = false;
};

}  // namespace ckpt::engine
