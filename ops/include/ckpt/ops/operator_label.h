// OperatorLabel: the one rule by which every verb, report and the inspector names an operator for
// humans. Stateless; thread-safe.
#pragma once

#include <string>

namespace ckpt::ops {

// An operator's name for humans: its display `name` when it has one, else its `uid`, else its
// operator `id` (32 hex digits). Any of the three may be empty; "-" when all are.
std::string OperatorLabel(const std::string& name, const std::string& uid, const std::string& id);

}  // namespace ckpt::ops
