// Finding: one result of a check (validate, and any verb that reports problems), with a stable
// rule ID (docs/validate-rules.md), severity, location and a hint. Plain value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::ops {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };

// "info", "warning", "error".
std::string_view SeverityName(Severity s);

// Where a finding applies; every field is optional (empty / nullopt = not applicable).
struct Location {
  std::string file;           // path relative to the snapshot directory where possible
  std::string operator_id;    // 32 hex digits
  // The operator for humans, as OperatorLabel (ckpt/ops/operator_label.h) names it: its name,
  // else its uid; empty when it has neither (readers then show operator_id, the rule's last step).
  std::string operator_name;
  std::optional<uint32_t> subtask;
  std::optional<uint32_t> key_group;

  bool operator==(const Location&) const = default;
};

struct Finding {
  std::string rule_id;  // stable, e.g. "CKPT-F002"
  Severity severity = Severity::kError;
  Location location;
  std::string message;  // what is wrong, with the concrete values
  std::string hint;     // what to do about it

  bool operator==(const Finding&) const = default;
};

// Sorts findings deterministically (rule, file, operator, subtask, key group, message) and
// drops exact duplicates.
void SortFindings(std::vector<Finding>* findings);

// True if any finding has severity kError.
bool HasErrors(const std::vector<Finding>& findings);

// The location of a finding about an operator as a whole: operator_id = `id_hex`, and
// operator_name = OperatorLabel(name, uid, id_hex) when the operator has a name or a uid (empty
// when it has neither, so the ID is not repeated).
Location OperatorLocationOf(const std::string& name, const std::string& uid, const std::string& id_hex);

}  // namespace ckpt::ops
