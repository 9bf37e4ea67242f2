// Cheap structural checks of a decoded CheckpointMetadata: the invariants every reader relies on
// to index into it safely (16-byte IDs, file indexes inside the file table, key-group ranges and
// their parallel arrays, references that stay inside their directory). Semantic validation (does
// the state match the job, do sizes add up) belongs to ckpt-tool validate. Private to ckpt::format.
#pragma once

#include <string>

#include "ckpt/base/status.h"
#include "ckpt/format/proto.h"

namespace ckpt::format::internal {

// Corruption naming `path` and the offending operator/subtask/file on the first violation.
base::Status CheckMetadataStructure(const pb::CheckpointMetadata& metadata,
                                    const std::string& path);

}  // namespace ckpt::format::internal
