// SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) for validate, so GitHub code
// scanning and other SARIF consumers show findings: one run, the rule catalogue as
// tool.driver.rules, one result per finding, unchecked rules as tool execution notifications.
#include <map>

#include "render.h"

namespace ckpt::cli {
namespace {

constexpr const char* kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kInfoUri = "https://github.com/ckpt/ckpt/blob/main/docs/validate-rules.md";

std::string_view Level(ops::Severity s) {
  switch (s) {
    case ops::Severity::kError: return "error";
    case ops::Severity::kWarning: return "warning";
    case ops::Severity::kInfo: return "note";
  }
  return "error";
}

std::string Message(std::string_view text) { return JsonLine().Str("text", text).Build(); }

// A result's or notification's locations: the file (relative to the working directory) and the
// operator/subtask/key group as logical locations.
std::string Locations(const ops::Location& l, std::string_view base_dir) {
  std::string out = "[";
  JsonLine loc;
  if (!l.file.empty()) {
    loc.Raw("physicalLocation",
            JsonLine()
                .Raw("artifactLocation",
                     JsonLine().Str("uri", CwdRelativePath(base_dir, l.file)).Build())
                .Build());
  }
  std::string logical;
  if (!l.operator_id.empty()) {
    std::string name = l.operator_name.empty() ? l.operator_id : l.operator_name;
    if (l.subtask) name += "/subtask " + std::to_string(*l.subtask);
    if (l.key_group) name += "/key group " + std::to_string(*l.key_group);
    logical = "[" +
              JsonLine()
                  .Str("name", name)
                  .Str("fullyQualifiedName", l.operator_id)
                  .Str("kind", "module")
                  .Build() +
              "]";
    loc.Raw("logicalLocations", logical);
  }
  const std::string one = loc.Build();
  if (one != "{}") out += one;
  return out + "]";
}

std::string Driver(const std::map<std::string, size_t>* rule_index) {
  std::string rules = "[";
  if (rule_index != nullptr) {
    bool first = true;
    for (const auto& r : ops::AllRules()) {
      if (!first) rules += ",";
      first = false;
      rules += JsonLine()
                   .Str("id", r.id)
                   .Raw("shortDescription", Message(r.what))
                   .Raw("help", Message(r.hint))
                   .Raw("defaultConfiguration", JsonLine().Str("level", Level(r.severity)).Build())
                   .Build();
    }
  }
  rules += "]";
  return JsonLine()
      .Raw("driver", JsonLine()
                         .Str("name", "ckpt-tool")
                         .Str("version", "0.1.0")
                         .Str("informationUri", kInfoUri)
                         .Raw("rules", rules)
                         .Build())
      .Build();
}

void Document(const std::string& run, std::ostream& out) {
  out << JsonLine().Str("$schema", kSchema).Str("version", "2.1.0").Raw("runs", "[" + run + "]").Build()
      << "\n";
}

}  // namespace

void RenderValidateSarif(const ops::ValidateReport& report, std::string_view base_dir,
                         std::ostream& out) {
  std::map<std::string, size_t> rule_index;
  for (const auto& r : ops::AllRules()) rule_index.emplace(r.id, rule_index.size());
  std::string results = "[";
  for (size_t i = 0; i < report.findings.size(); ++i) {
    const ops::Finding& f = report.findings[i];
    JsonLine r;
    r.Str("ruleId", f.rule_id);
    auto idx = rule_index.find(f.rule_id);
    if (idx != rule_index.end()) r.Uint("ruleIndex", idx->second);
    r.Str("level", Level(f.severity))
        .Raw("message", Message(f.message + (f.hint.empty() ? "" : "\nhint: " + f.hint)))
        .Raw("locations", Locations(f.location, base_dir));
    results += (i == 0 ? "" : ",") + r.Build();
  }
  results += "]";
  std::string notes = "[";
  for (size_t i = 0; i < report.not_checked.size(); ++i) {
    const ops::UncheckedRule& u = report.not_checked[i];
    JsonLine n;
    n.Str("level", "warning")
        .Raw("message", Message("not checked: " + u.reason))
        .Raw("locations", Locations(u.location, base_dir))
        .Raw("associatedRule", JsonLine().Str("id", u.rule_id).Build());
    notes += (i == 0 ? "" : ",") + n.Build();
  }
  notes += "]";
  std::string checked = "[";
  for (size_t i = 0; i < report.checked_rules.size(); ++i) {
    checked += (i == 0 ? "" : ",") + JsonQuoted(report.checked_rules[i]);
  }
  checked += "]";
  // The capability verdict (as validate's JSON "capability" lines), so a SARIF consumer sees
  // which operations the findings block.
  auto strings = [](const std::vector<std::string>& v) {
    std::string a = "[";
    for (size_t i = 0; i < v.size(); ++i) a += (i == 0 ? "" : ",") + JsonQuoted(v[i]);
    return a + "]";
  };
  std::string capabilities = "[";
  for (size_t i = 0; i < report.capabilities.size(); ++i) {
    const ops::Capability& c = report.capabilities[i];
    capabilities += (i == 0 ? "" : ",") + JsonLine()
                                              .Str("operation", c.operation)
                                              .Bool("supported", c.supported)
                                              .Bool("undetermined", c.undetermined)
                                              .Str("note", c.note)
                                              .Raw("blockedBy", strings(c.blocked_by))
                                              .Raw("unverifiedBy", strings(c.unverified_by))
                                              .Build();
  }
  capabilities += "]";
  const std::string invocation = JsonLine()
                                     .Bool("executionSuccessful", true)
                                     .Raw("toolExecutionNotifications", notes)
                                     .Raw("properties", JsonLine()
                                                            .Str("snapshot", report.snapshot)
                                                            .Str("snapshotType", report.snapshot_type)
                                                            .Raw("checkedRules", checked)
                                                            .Raw("capabilities", capabilities)
                                                            .Build())
                                     .Build();
  Document(JsonLine()
               .Raw("tool", Driver(&rule_index))
               .Raw("invocations", "[" + invocation + "]")
               .Raw("results", results)
               .Build(),
           out);
}

void RenderSarifError(std::string_view verb, std::string_view error, std::ostream& out) {
  const std::string note =
      JsonLine().Str("level", "error").Raw("message", Message(std::string(verb) + ": " + std::string(error))).Build();
  const std::string invocation = JsonLine()
                                     .Bool("executionSuccessful", false)
                                     .Raw("toolExecutionNotifications", "[" + note + "]")
                                     .Build();
  Document(JsonLine()
               .Raw("tool", Driver(nullptr))
               .Raw("invocations", "[" + invocation + "]")
               .Raw("results", "[]")
               .Build(),
           out);
}

}  // namespace ckpt::cli
