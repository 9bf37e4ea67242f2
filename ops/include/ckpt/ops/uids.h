// Naming by uid hash for reports computed without the user's uids (validate's findings): the
// same rule as LoadOptions::uids (ckpt/ops/snapshot.h). Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "ckpt/ops/finding.h"

namespace ckpt::ops {

// Sets the operator name of every finding that has none (no display name, no recorded uid) and
// whose operator ID is the uid hash of one of `uids` (format::OperatorId::FromUid) to that uid,
// as OperatorLabel would name it. Other findings are left alone.
void NameFindingsByUids(const std::vector<std::string>& uids, std::vector<Finding>* findings);

}  // namespace ckpt::ops
