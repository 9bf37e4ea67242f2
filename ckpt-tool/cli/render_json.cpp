// JSON rendering: one object per line (JSON lines), keys in a fixed order.
#include <cinttypes>
#include <cstdio>

#include "ckpt/base/json_quote.h"
#include "render.h"

namespace ckpt::cli {

std::string JsonQuoted(std::string_view s) {
  std::string out;
  base::AppendJsonQuoted(s, &out);
  return out;
}

void JsonLine::Key(std::string_view key) {
  if (body_.size() > 1) body_ += ",";
  base::AppendJsonQuoted(key, &body_);
  body_ += ":";
}
JsonLine& JsonLine::Str(std::string_view key, std::string_view value) {
  Key(key);
  base::AppendJsonQuoted(value, &body_);
  return *this;
}
JsonLine& JsonLine::Int(std::string_view key, int64_t value) {
  Key(key);
  body_ += std::to_string(value);
  return *this;
}
JsonLine& JsonLine::Uint(std::string_view key, uint64_t value) {
  Key(key);
  body_ += std::to_string(value);
  return *this;
}
JsonLine& JsonLine::Bool(std::string_view key, bool value) {
  Key(key);
  body_ += value ? "true" : "false";
  return *this;
}
JsonLine& JsonLine::Null(std::string_view key) {
  Key(key);
  body_ += "null";
  return *this;
}
JsonLine& JsonLine::Raw(std::string_view key, std::string_view json) {
  Key(key);
  body_ += json;
  return *this;
}

std::string LocationJson(const ops::Location& l) {
  JsonLine loc;
  if (!l.file.empty()) loc.Str("file", l.file);
  if (!l.operator_id.empty()) loc.Str("operator", l.operator_id);
  if (!l.operator_name.empty()) loc.Str("operator_name", l.operator_name);
  if (l.subtask) loc.Uint("subtask", *l.subtask);
  if (l.key_group) loc.Uint("key_group", *l.key_group);
  return loc.Build();
}

std::string FindingJson(const ops::Finding& f) {
  return JsonLine()
      .Str("type", "finding")
      .Str("rule", f.rule_id)
      .Str("severity", ops::SeverityName(f.severity))
      .Raw("location", LocationJson(f.location))
      .Str("message", f.message)
      .Str("hint", f.hint)
      .Build();
}

std::string UncheckedJson(const ops::UncheckedRule& u) {
  return JsonLine()
      .Str("type", "not_checked")
      .Str("rule", u.rule_id)
      .Raw("location", LocationJson(u.location))
      .Str("reason", u.reason)
      .Build();
}

void RenderFindingsJson(const std::vector<ops::Finding>& findings, std::ostream& out) {
  for (const auto& f : findings) out << FindingJson(f) << "\n";
}

void RenderVerificationJson(const std::optional<ops::ValidateReport>& verification,
                            std::ostream& out) {
  if (verification) RenderFindingsJson(verification->findings, out);
}

}  // namespace ckpt::cli
