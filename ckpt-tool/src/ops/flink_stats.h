// Private to ckpt::ops: stats over an Apache Flink snapshot. Key-group sizes come from the
// key-group offsets Flink records in `_metadata` (no state bytes are read); entries of
// operator state from its partition offsets.
#pragma once

#include <map>

#include "ckpt/base/status.h"
#include "ckpt/flink/metadata.h"
#include "ckpt/ops/stats.h"

namespace ckpt::ops::internal {

// Adds the key groups of operator `id_hex` to `groups` (by key group) and the operator-state
// entry counts to `out->states` (matched by name).
base::Status ScanFlinkOperator(const flink::Metadata& md, const std::string& id_hex,
                               std::map<uint32_t, KeyGroupStats>* groups, OperatorStats* out);

}  // namespace ckpt::ops::internal
