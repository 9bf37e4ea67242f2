// GitHub Actions workflow commands: ::error / ::warning / ::notice with file= and a title, so
// findings appear as annotations on a pull request.
#include "render.h"

namespace ckpt::cli {
namespace {

// Workflow-command data escaping (GitHub's toolkit: %, CR, LF; properties also ':' and ',').
std::string EscapeData(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out.push_back(c);
    }
  }
  return out;
}
std::string EscapeProperty(std::string_view s) {
  std::string out;
  for (char c : EscapeData(s)) {
    switch (c) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace

void RenderFindingsGithub(const std::vector<ops::Finding>& findings, std::ostream& out,
                          std::string_view base_dir,
                          const std::vector<ops::UncheckedRule>& not_checked,
                          const GithubSpecFile* spec) {
  for (const auto& f : findings) {
    const char* command = f.severity == ops::Severity::kError     ? "error"
                          : f.severity == ops::Severity::kWarning ? "warning"
                                                                  : "notice";
    out << "::" << command << " ";
    const ops::RuleInfo* rule = ops::FindRule(f.rule_id);
    if (!f.location.file.empty()) {
      out << "file=" << EscapeProperty(CwdRelativePath(base_dir, f.location.file)) << ",";
    } else if (spec != nullptr && rule != nullptr && rule->needs_against) {
      out << "file=" << EscapeProperty(CwdRelativePath("", spec->path)) << ",";
      auto at = spec->operators.find(f.location.operator_id);
      if (at != spec->operators.end()) {
        out << "line=" << at->second.line << ",col=" << at->second.column << ",";
      }
    }
    out << "title=" << EscapeProperty(f.rule_id) << "::";
    std::string text = f.message;
    const auto& l = f.location;
    if (!l.operator_id.empty()) {
      text += " [operator " + (l.operator_name.empty() ? l.operator_id : l.operator_name);
      if (l.subtask) text += ", subtask " + std::to_string(*l.subtask);
      if (l.key_group) text += ", key group " + std::to_string(*l.key_group);
      text += "]";
    }
    if (!f.hint.empty()) text += "\nhint: " + f.hint;
    out << EscapeData(text) << "\n";
  }
  for (const auto& u : not_checked) {
    out << "::notice ";
    if (!u.location.file.empty()) {
      out << "file=" << EscapeProperty(CwdRelativePath(base_dir, u.location.file)) << ",";
    }
    out << "title=" << EscapeProperty(u.rule_id + " not checked") << "::"
        << EscapeData("not checked: " + u.reason) << "\n";
  }
}

void RenderGithubError(std::string_view verb, std::string_view error, std::ostream& out) {
  out << "::error title=" << EscapeProperty(verb) << "::" << EscapeData(error) << "\n";
}

}  // namespace ckpt::cli
