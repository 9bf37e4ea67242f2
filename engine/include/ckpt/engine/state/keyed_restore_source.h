// KeyedRestoreSource: where KeyedStateBackend::Restore reads one operator's keyed state from.
// Plain value type; the pointers must outlive the Restore call.
#pragma once

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

struct KeyedRestoreSource {
  base::Fs* fs = nullptr;
  // Directory of the snapshot (its `_metadata`); SHARED files resolve against its parent.
  std::string snapshot_dir;
  const pb::CheckpointMetadata* metadata = nullptr;
  // The operator's entry in `metadata` (its states and every old subtask's handles).
  const pb::OperatorState* operator_state = nullptr;
};

}  // namespace ckpt::engine
