// OperatorLabel: name, else uid, else the operator ID.
#include "ckpt/ops/operator_label.h"

namespace ckpt::ops {

std::string OperatorLabel(const std::string& name, const std::string& uid, const std::string& id) {
  if (!name.empty()) return name;
  if (!uid.empty()) return uid;
  return id.empty() ? "-" : id;
}

}  // namespace ckpt::ops
