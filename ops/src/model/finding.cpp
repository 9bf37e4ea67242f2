// Deterministic ordering of findings, so every renderer's output is stable across runs, and the
// location of a finding about an operator.
#include "ckpt/ops/finding.h"

#include <algorithm>
#include <tuple>

#include "ckpt/ops/operator_label.h"

namespace ckpt::ops {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "error";
}

void SortFindings(std::vector<Finding>* findings) {
  auto key = [](const Finding& f) {
    return std::tie(f.rule_id, f.location.file, f.location.operator_id, f.location.subtask,
                    f.location.key_group, f.message, f.location.operator_name, f.hint);
  };
  std::stable_sort(findings->begin(), findings->end(),
                   [&](const Finding& a, const Finding& b) { return key(a) < key(b); });
  findings->erase(std::unique(findings->begin(), findings->end()), findings->end());
}

Location OperatorLocationOf(const std::string& name, const std::string& uid, const std::string& id_hex) {
  Location l;
  l.operator_id = id_hex;
  if (!name.empty() || !uid.empty()) l.operator_name = OperatorLabel(name, uid, id_hex);
  return l;
}

bool HasErrors(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity == Severity::kError; });
}

}  // namespace ckpt::ops
