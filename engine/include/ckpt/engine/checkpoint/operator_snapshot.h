// Snapshot of one operator subtask in two phases, as in Flink:
//   sync  (task thread, between records): TakeOperatorSnapshot freezes keyed state, timers,
//         operator state (copy-on-write references, nothing copied) and takes the sink's
//         committables;
//   async (any thread, processing goes on): WriteOperatorSnapshot encodes the frozen state into
//         a KEYED_STATE container (one section per key group, KeyedRecord records) and an
//         OPERATOR_STATE container (one section per operator state) inside the snapshot
//         directory, and returns the handles for the acknowledgement.
// Free functions; each OperatorSnapshot is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "ckpt/engine/state/operator_state_snapshot.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

class KeyedStateBackend;
class OperatorStateStore;

// The frozen state of one operator subtask (output of the sync phase).
struct OperatorSnapshot {
  format::OperatorId operator_id;
  uint32_t subtask_index = 0;
  // The keyed backend's async part (its snapshot strategy); null if the operator is not keyed.
  std::unique_ptr<SnapshotAsyncPart> keyed;
  std::unique_ptr<OperatorStateSnapshot> operator_state;  // null if it has no operator store
  std::vector<pb::SinkCommittable> committables;          // two-phase-commit sinks only
};

// What one operator subtask contributes to a checkpoint (output of the async phase).
struct OperatorSubtaskState {
  format::OperatorId operator_id;
  uint32_t subtask_index = 0;
  // Every state the operator declared (keyed, timers, operator), as the metadata records them.
  std::vector<pb::StateDescriptor> states;
  // Handles and committables; metrics are filled by the runtime. `file_index` fields of the
  // handles index `files` below (the coordinator rebases them into the metadata's file table).
  pb::SubtaskState subtask;
  // The files referenced: EXCLUSIVE ones relative to the snapshot directory, SHARED ones (RocksDB
  // incremental SSTs) relative to the job's shared/ directory.
  std::vector<pb::FileEntry> files;
  // Bytes of all state this subtask references / uploaded for this checkpoint (equal for full
  // snapshots; the increment for RocksDB incremental checkpoints).
  uint64_t state_size_bytes = 0;
  uint64_t checkpointed_size_bytes = 0;
};

// Sync phase of checkpoint/savepoint `options`: the keyed backend's SnapshotSync (its strategy:
// canonical, RocksDB full/incremental/native) and the operator store's freeze. `keyed` and
// `operator_state` may be null. Fails only if the keyed backend cannot freeze its state.
base::Result<OperatorSnapshot> TakeOperatorSnapshot(const CheckpointOptions& options,
                                                    const format::OperatorId& operator_id,
                                                    uint32_t subtask_index,
                                                    KeyedStateBackend* keyed,
                                                    OperatorStateStore* operator_state,
                                                    std::vector<pb::SinkCommittable> committables);
// Sync phase in the canonical format whatever the backend (tests, tools). Never fails, never
// copies heap state entries.
OperatorSnapshot TakeOperatorSnapshot(const format::OperatorId& operator_id,
                                      uint32_t subtask_index, KeyedStateBackend* keyed,
                                      OperatorStateStore* operator_state,
                                      std::vector<pb::SinkCommittable> committables = {});

// Async phase: writes `<options.snapshot_dir>/<operator id hex>-<subtask>-keyed.state` and
// `...-operator.state` (only for non-empty parts) and returns the subtask's contribution.
// Files are created exclusively (AlreadyExists if present) and fsynced; on any error the files
// written so far are removed. IOError/NotFound if the directory is gone (an aborted checkpoint);
// InvalidArgument naming the state if a value does not match its declared type.
base::Result<OperatorSubtaskState> WriteOperatorSnapshot(base::Fs& fs,
                                                         const CheckpointOptions& options,
                                                         const OperatorSnapshot& snapshot,
                                                         const SnapshotWriteOptions& write = {});

}  // namespace ckpt::engine
