// Private to ckpt::ops: validate's rule groups for Apache Flink snapshots (the dispatch from
// validate.cpp). What Flink stores is checked with the same rule IDs as our format; what it
// does not store is listed as "not available for Flink snapshots" in the capability table.
#pragma once

#include <optional>
#include <string>

#include "ckpt/ops/snapshot.h"
#include "validate/validate_internal.h"

namespace ckpt::ops::internal {

// Reads a Flink `_metadata` and classifies a failure as CKPT-M002 (bad magic), M003 (version 1 or
// newer than 7), M004 (truncated), F004 (escaping relative path) or M006 (anything else). A v4+
// file whose CheckpointProperties trailer is missing, cut or followed by more bytes is M004, one
// whose trailer does not decode M006; the snapshot is still returned (its operators decoded).
base::Result<std::optional<Snapshot>> CheckFlinkMetadata(ValidateContext& ctx,
                                                         const std::string& dir,
                                                         const std::string& metadata);

// Structure (key groups, subtasks), files (existence, size; --deep: key-group offsets and the
// keyed-state meta information of every key-group stream) and --against. Fills the report's
// type label and capabilities.
base::Status ValidateFlinkSnapshot(ValidateContext& ctx, const Snapshot& snapshot);

// Appends the capability rows of what a Flink snapshot does not record ("not available for
// Flink snapshots"), after the verdict computed from the findings.
void AddFlinkCapabilities(std::vector<Capability>* caps);

}  // namespace ckpt::ops::internal
