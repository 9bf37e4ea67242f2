// OLD=NEW parsing shared by the CLI and the inspector, and the mistyped-hash check.
#include "ckpt/ops/mapping.h"

#include <cctype>

namespace ckpt::ops {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool Split(std::string_view text, std::string* from, std::string* to) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) return false;
  *from = std::string(Trim(text.substr(0, eq)));
  *to = std::string(Trim(text.substr(eq + 1)));
  return true;
}

// The warning for one side, or "".
std::string HashLike(std::string_view side, std::string_view which, const OperatorMapping& m) {
  if (side.rfind("uid:", 0) == 0 || side.rfind("name:", 0) == 0) return "";
  const bool forced_id = side.rfind("id:", 0) == 0;
  if (forced_id) side.remove_prefix(3);
  size_t hex = 0;
  for (char c : side) hex += std::isxdigit(static_cast<unsigned char>(c)) != 0;
  const size_t non_hex = side.size() - hex;
  std::string why;
  if (non_hex == 0 && side.size() != 32 && side.size() >= 28 && side.size() <= 36) {
    why = std::to_string(side.size()) + " hex digits";
  } else if (side.size() == 32 && non_hex > 0 && non_hex <= 2) {
    why = "32 characters of which " + std::to_string(non_hex) + " not a hex digit";
  } else {
    return "";
  }
  const std::string taken = which == "OLD" ? "looked up as a uid or name" : "taken as a uid";
  return "--map " + m.from + "=" + m.to + ": " + std::string(which) + " '" + std::string(side) +
         "' has " + why + ": it looks like a mistyped operator ID (32 hex digits) and is " +
         taken + "; write uid:" + std::string(side) + " if a uid is meant";
}

}  // namespace

base::Result<OperatorMapping> ParseMapping(std::string_view text, std::string_view flag) {
  OperatorMapping m;
  if (!Split(text, &m.from, &m.to) || m.from.empty() || m.to.empty()) {
    return base::Status::InvalidArgument(std::string(flag) + " '" + std::string(text) +
                                         "' must be OLD=NEW (both sides non-empty)");
  }
  return m;
}

base::Result<UidRewrite> ParseUidRewrite(std::string_view text, std::string_view flag) {
  UidRewrite r;
  if (!Split(text, &r.from, &r.to) || (r.from.empty() && r.to.empty())) {
    return base::Status::InvalidArgument(std::string(flag) + " '" + std::string(text) +
                                         "' must be OLD=NEW (\"=NEW\" adds, \"OLD=\" removes)");
  }
  return r;
}

base::Result<std::vector<OperatorMapping>> ParseMappingLines(std::string_view text) {
  std::vector<OperatorMapping> out;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = Trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    auto m = ParseMapping(line, "mapping");
    if (!m.ok()) return m.status().WithContext("line " + std::to_string(line_no));
    out.push_back(std::move(m).value());
  }
  return out;
}

std::vector<std::string> MappingWarnings(const OperatorMapping& m) {
  std::vector<std::string> out;
  for (const auto& [side, which] : {std::pair<const std::string&, std::string_view>(m.from, "OLD"),
                                    std::pair<const std::string&, std::string_view>(m.to, "NEW")}) {
    std::string w = HashLike(side, which, m);
    if (!w.empty()) out.push_back(std::move(w));
  }
  return out;
}

}  // namespace ckpt::ops
