// CheckpointProperties: the Java-serialized trailer of Flink `_metadata` v4+ decoded far enough
// to tell checkpoint from savepoint, CANONICAL from NATIVE, and the post-checkpoint action, on
// the Java serialization reader of java_serialization.h. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "ckpt/base/result.h"

namespace ckpt::flink {

struct CheckpointProperties {
  bool is_savepoint = false;
  std::string type_class;      // org.apache.flink.runtime.checkpoint.{CheckpointType,SavepointType}
  std::string type_name;       // SnapshotType.name: "Checkpoint", "Full Checkpoint", "Savepoint", ...
  std::string format_type;     // savepoints: "CANONICAL" or "NATIVE"
  std::string post_action;     // savepoints: "NONE", "SUSPEND" or "TERMINATE"
  std::string sharing_files;   // checkpoints: "FORWARD_BACKWARD", "FORWARD", "NO_SHARING"
  bool forced = false;
  bool discard_subsumed = false;
  bool discard_finished = false;
  bool discard_cancelled = false;
  bool discard_failed = false;
  bool discard_suspended = false;
  bool unclaimed = false;
};

// Decodes `bytes` (starting with AC ED 00 05). Corruption "<file>: at byte <offset>: ..." for a
// stream that is not a CheckpointProperties object; `base_offset` is where `bytes` start in the
// file.
base::Result<CheckpointProperties> DecodeCheckpointProperties(std::string_view bytes,
                                                              const std::string& file,
                                                              uint64_t base_offset);

}  // namespace ckpt::flink
