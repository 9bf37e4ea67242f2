// The coordinator's record of one checkpoint in flight (private).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "checkpoint/checkpoint_metadata_builder.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"

namespace ckpt::engine {

struct CheckpointCoordinator::Pending {
  CheckpointOptions options;
  // A checkpoint (counts against max_concurrent), not a savepoint.
  bool periodic = false;
  std::vector<CoordinatorSnapshot> coordinators;
  std::map<checkpoint_internal::AckKey, checkpoint_internal::Ack> acks;
  std::shared_ptr<Promise> promise;  // savepoints only
};

}  // namespace ckpt::engine
