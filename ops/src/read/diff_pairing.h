// Pairing the operators of two snapshots for diff: by ID, then (an ID that changed) by spec id,
// then by name, each only when unique on both sides. Private to ckpt::ops.
#pragma once

#include <string>
#include <vector>

#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

struct OperatorPair {
  const OperatorInfo* a = nullptr;  // null: only in B
  const OperatorInfo* b = nullptr;  // null: only in A
  std::string matched_by;           // "id", "spec id", "name" or "" when unpaired
};

// B's operators in order (paired or added), then A's unpaired operators in order.
std::vector<OperatorPair> PairOperators(const Snapshot& a, const Snapshot& b);

}  // namespace ckpt::ops::internal
