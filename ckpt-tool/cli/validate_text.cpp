// The text report of validate: see validate_text.h.
#include "validate_text.h"

#include <string>
#include <vector>

#include "ckpt/base/text_escape.h"
#include "render.h"

namespace ckpt::cli {
namespace {

std::string ValidateJoinIds(const std::vector<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

std::string_view ValidateSupportedCell(const ops::Capability& c) {
  return c.supported ? "yes" : c.undetermined ? "unknown" : "no";
}

void PrintValidateCapabilities(const ops::ValidateReport& r, std::ostream& out) {
  out << "\nSupported operations for this " << r.snapshot_type << ":\n";
  TextTable t({"OPERATION", "SUPPORTED", "NOTE"});
  t.SetVerdictColumn(1);
  for (const auto& c : r.capabilities) {
    t.AddRow({c.operation, std::string(ValidateSupportedCell(c)), c.note});
  }
  t.Print(out);
}

bool ValidateFindingFailsCheck(const ops::Finding& f, bool strict) {
  return f.severity == ops::Severity::kError ||
         (strict && f.severity == ops::Severity::kWarning);
}

}  // namespace

std::string ValidateVerdict(const ops::ValidateReport& r, bool strict) {
  size_t errors = 0, warnings = 0;
  for (const auto& f : r.findings) {
    errors += f.severity == ops::Severity::kError;
    warnings += f.severity == ops::Severity::kWarning;
  }
  const ops::Capability* restore = nullptr;
  for (const auto& c : r.capabilities) {
    if (c.operation == "restore") restore = &c;
  }
  std::string verdict;
  if (restore == nullptr) {
    // No capability table: the metadata could not be read.
    verdict = errors > 0 ? "does not restore: " + std::to_string(errors) + " error(s)"
                         : "no errors";
  } else if (!restore->blocked_by.empty()) {
    verdict = "restore blocked by " + ValidateJoinIds(restore->blocked_by);
  } else if (restore->undetermined) {
    verdict = "restore undetermined: " + ValidateJoinIds(restore->unverified_by) +
              " could not be checked on this host";
  } else if (!restore->supported) {
    verdict = "restore not supported" + (restore->note.empty() ? "" : ": " + restore->note);
  } else {
    verdict = "restores";
  }
  if (restore != nullptr && restore->blocked_by.empty() && errors > 0) {
    verdict += "; " + std::to_string(errors) + " error(s) fail the check";
  }
  if (strict && warnings > 0) verdict += "; " + std::to_string(warnings) + " warning(s) fail it (--strict)";
  if (strict && errors == 0 && !r.not_checked.empty()) {
    verdict += "; rules not checked here fail it (--strict)";
  }
  return verdict;
}

void RenderValidateText(const ops::ValidateReport& r, std::string_view path_as_given,
                        const ValidateTextOptions& options, std::ostream& out) {
  out << "validate " << base::EscapeForText(path_as_given);
  if (!r.snapshot_type.empty()) out << ": " << base::EscapeForText(r.snapshot_type);
  out << "\n";
  size_t errors = 0, warnings = 0, hidden = 0;
  for (const auto& f : r.findings) {
    errors += f.severity == ops::Severity::kError;
    warnings += f.severity == ops::Severity::kWarning;
    if (options.verbose || ValidateFindingFailsCheck(f, options.strict)) {
      RenderFindingText(f, out);
    } else {
      ++hidden;
    }
  }
  out << errors << " error(s), " << warnings << " warning(s), "
      << r.findings.size() - errors - warnings << " note(s)";
  if (hidden > 0) out << "; " << hidden << " not shown (--verbose lists every finding)";
  out << "\n";
  RenderUncheckedText(r.not_checked, out);
  out << r.files_checked << " file(s), " << SizeText(r.bytes_checked) << " checked";
  if (options.deep) out << ", " << r.records_checked << " record(s) decoded";
  out << "\n";
  const std::string verdict = ValidateVerdict(r, options.strict);
  const bool restores = verdict == "restores";
  out << "verdict: "
      << Styled(verdict, restores ? clistyle::Tone::kGood : clistyle::Tone::kBad) << "\n";
  if (options.capabilities && !r.capabilities.empty()) PrintValidateCapabilities(r, out);
}

}  // namespace ckpt::cli
