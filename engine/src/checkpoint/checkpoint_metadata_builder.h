// Assembles the CheckpointMetadata of a completed checkpoint from the coordinator's options and
// the acknowledgements it collected (private to the coordinator).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"

namespace ckpt::engine::checkpoint_internal {

using AckKey = std::pair<format::OperatorId, uint32_t>;
struct Ack {
  OperatorSubtaskState state;
  pb::SubtaskMetrics metrics;
};

struct MetadataInputs {
  const CheckpointCoordinatorOptions* options = nullptr;
  const CheckpointOptions* checkpoint = nullptr;
  int64_t completion_ms = 0;
  const std::vector<CoordinatorSnapshot>* coordinators = nullptr;
  const std::map<AckKey, Ack>* acks = nullptr;
};

// The metadata `_metadata` will hold: job graph, operators with state (states, coordinator
// state, subtasks with handles rebased into one file table, committables, metrics), files,
// checkpoint metrics named after Flink's REST API. Internal if the subtasks of one operator
// declared incompatible state lists (they must declare the same states in the same order).
base::Result<pb::CheckpointMetadata> BuildCheckpointMetadata(const MetadataInputs& in);

}  // namespace ckpt::engine::checkpoint_internal
