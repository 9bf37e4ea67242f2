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
  std::string operator_name;  // display name or uid, for humans
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

}  // namespace ckpt::ops
