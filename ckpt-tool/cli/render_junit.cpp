// JUnit XML: one testsuite; one testcase per (rule, location) finding, with <failure> for errors
// and <system-out> for warnings/notes; every checked rule without findings passes.
#include <map>
#include <set>

#include "render.h"

namespace ckpt::cli {

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      default:
        // XML 1.0 forbids most control characters even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
          out += '?';
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

namespace {
std::string CaseName(const ops::Finding& f) {
  std::string name = f.rule_id;
  const auto& l = f.location;
  if (!l.file.empty()) name += " " + l.file;
  if (!l.operator_id.empty()) name += " operator=" + (l.operator_name.empty() ? l.operator_id : l.operator_name);
  if (l.subtask) name += " subtask=" + std::to_string(*l.subtask);
  if (l.key_group) name += " key-group=" + std::to_string(*l.key_group);
  return name;
}
}  // namespace

void RenderFindingsJunit(const std::vector<ops::Finding>& findings,
                         const std::vector<std::string>& checked_rules, std::string_view suite,
                         std::ostream& out, const std::vector<ops::UncheckedRule>& not_checked) {
  std::set<std::string> failed_rules;
  size_t failures = 0;
  for (const auto& f : findings) {
    failed_rules.insert(f.rule_id);
    if (f.severity == ops::Severity::kError) ++failures;
  }
  std::set<std::string> passing;
  std::set<std::string> unchecked_rules;
  for (const auto& u : not_checked) unchecked_rules.insert(u.rule_id);
  for (const auto& r : checked_rules) {
    if (failed_rules.count(r) == 0) passing.insert(r);
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites>\n";
  out << "  <testsuite name=\"" << XmlEscape(suite) << "\" tests=\""
      << findings.size() + passing.size() + not_checked.size() << "\" failures=\"" << failures
      << "\" errors=\"0\" skipped=\"" << not_checked.size() << "\">\n";
  for (const auto& f : findings) {
    out << "    <testcase classname=\"" << XmlEscape(f.rule_id) << "\" name=\""
        << XmlEscape(CaseName(f)) << "\">\n";
    const std::string body = f.message + (f.hint.empty() ? "" : "\nhint: " + f.hint);
    if (f.severity == ops::Severity::kError) {
      out << "      <failure type=\"" << XmlEscape(f.rule_id) << "\" message=\""
          << XmlEscape(f.message) << "\">" << XmlEscape(body) << "</failure>\n";
    } else {
      out << "      <system-out>" << XmlEscape(std::string(ops::SeverityName(f.severity)) +
                                               ": " + body)
          << "</system-out>\n";
    }
    out << "    </testcase>\n";
  }
  for (const auto& u : not_checked) {
    ops::Finding as_case;
    as_case.rule_id = u.rule_id;
    as_case.location = u.location;
    out << "    <testcase classname=\"" << XmlEscape(u.rule_id) << "\" name=\""
        << XmlEscape(CaseName(as_case)) << "\">\n";
    out << "      <skipped message=\"" << XmlEscape("not checked: " + u.reason) << "\"/>\n";
    out << "    </testcase>\n";
  }
  for (const auto& r : passing) {
    // A rule that ran somewhere but not everywhere passes only where it ran; its skipped
    // testcases above say where it could not.
    const std::string name = unchecked_rules.count(r) != 0 ? r + " (where checked)" : r;
    out << "    <testcase classname=\"" << XmlEscape(r) << "\" name=\"" << XmlEscape(name)
        << "\"/>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

void RenderJunitError(std::string_view suite, std::string_view error, std::ostream& out) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites>\n";
  out << "  <testsuite name=\"" << XmlEscape(suite)
      << "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n";
  out << "    <testcase classname=\"ckpt-tool\" name=\"" << XmlEscape(suite) << "\">\n";
  out << "      <error type=\"usage or I/O error\" message=\"" << XmlEscape(error) << "\">"
      << XmlEscape(error) << "</error>\n";
  out << "    </testcase>\n";
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace ckpt::cli
