// Renderers of the ckpt-tool CLI: aligned text tables, JSON lines, JUnit XML and GitHub Actions
// workflow commands. Pure formatting over ops result types; output is deterministic (no
// wall-clock values, stable order). Not thread-safe (stateless functions are).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/cli_support/style.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"

namespace ckpt::cli {

// An aligned text table: columns padded to their widest cell, two spaces apart; right-aligned
// columns for numbers. Cells are escaped (base::EscapeForText): a cell is one line.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_align = {});
  void AddRow(std::vector<std::string> cells);
  // Marks `column` as a verdict: its "yes" cells print green and "no" cells red when text
  // output is coloured (CurrentTextStyle().color).
  void SetVerdictColumn(size_t column);
  void Print(std::ostream& out) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<bool> verdict_;
  std::vector<std::vector<std::string>> rows_;
};

// "1.5 MiB", "312 B" (binary units, one decimal).
std::string HumanBytes(uint64_t bytes);

// How text output looks: set once by main from --color, --format and --bytes before the verb
// runs; read by the text renderers. JSON, JUnit, SARIF and github-actions output ignore it.
struct TextStyle {
  bool color = false;        // ANSI colour in text output. Default: off
  bool exact_bytes = false;  // --bytes: sizes as exact byte counts. Default: human sizes
};
void SetTextStyle(const TextStyle& style);
const TextStyle& CurrentTextStyle();

// A size in text output, the one rule every verb follows: HumanBytes ("1.5 MiB"), or with
// --bytes the exact count ("1572864 B"). JSON always writes exact byte counts.
std::string SizeText(uint64_t bytes);
// `text` in the colour of `tone` when CurrentTextStyle().color, else as is.
std::string Styled(std::string_view text, clistyle::Tone tone);
// A verdict word for text output ("restore: yes"): "yes" green or "no" red under colour.
std::string VerdictText(bool yes);

// How a text renderer prints a value that is not known (not recorded, could not be read): never
// as a zero. JSON leaves such a value out or writes null.
inline constexpr const char kUnknownText[] = "—";

// The UID cell of an operator in text tables: the uid; "-" when the metadata records that it
// has none; "not recorded" when the metadata cannot say (Apache Flink); a uid named by --uids
// with " (--uids)".
std::string UidCell(const std::string& uid, ops::UidOrigin origin);
// The line under a table with operators whose uid is not recorded ("" when there are none):
// "uid: not recorded in Flink's metadata (name operators by their uids with --uids FILE)".
std::string UidNotRecordedNote(bool any_not_recorded);
// The JSON value of an operator's uid: the quoted uid, or null when it is not recorded.
std::string UidJson(const std::string& uid, ops::UidOrigin origin);
// Milliseconds since the epoch as "2026-11-29T07:17:41.123Z"; "-" for 0.
std::string IsoTime(int64_t epoch_ms);

// Builds one JSON object on one line: {"k":v,...} in insertion order.
class JsonLine {
 public:
  JsonLine& Str(std::string_view key, std::string_view value);
  JsonLine& Int(std::string_view key, int64_t value);
  JsonLine& Uint(std::string_view key, uint64_t value);
  JsonLine& Bool(std::string_view key, bool value);
  JsonLine& Null(std::string_view key);
  // `json` must already be valid JSON (an array or object built elsewhere).
  JsonLine& Raw(std::string_view key, std::string_view json);
  std::string Build() const { return body_ + "}"; }

 private:
  void Key(std::string_view key);
  std::string body_ = "{";
};
std::string JsonQuoted(std::string_view s);

// Escapes text for XML attributes and content.
std::string XmlEscape(std::string_view s);

// Findings in each format. `suite` names the JUnit test suite (e.g. "ckpt-tool validate").
void RenderFindingsText(const std::vector<ops::Finding>& findings, std::ostream& out);
// One finding as RenderFindingsText prints it: "SEVERITY RULE: message", then its location and
// hint on indented lines.
void RenderFindingText(const ops::Finding& finding, std::ostream& out);
void RenderFindingsJson(const std::vector<ops::Finding>& findings, std::ostream& out);
// `checked_rules` are the rule IDs that were evaluated: each gets a passing testcase when no
// finding names it, so a clean run still reports what it checked. Each of `not_checked` is a
// skipped testcase naming why it could not be checked.
void RenderFindingsJunit(const std::vector<ops::Finding>& findings,
                         const std::vector<std::string>& checked_rules, std::string_view suite,
                         std::ostream& out,
                         const std::vector<ops::UncheckedRule>& not_checked = {});
// `base_dir`: the directory the findings' relative file locations are relative to (the
// snapshot directory); annotations name files relative to the working directory, where
// GitHub resolves them. Each of `not_checked` is a ::notice saying it could not be checked.
// `spec` (optional): the job spec of validate --against; a finding of a restore rule that names
// no file is annotated on the spec, at the line and column of its operator where the spec has it.
struct GithubSpecFile {
  std::string path;  // as given: relative to the working directory, or absolute
  std::map<std::string, ops::SpecOperatorPosition> operators;  // by operator ID
};
void RenderFindingsGithub(const std::vector<ops::Finding>& findings, std::ostream& out,
                          std::string_view base_dir = "",
                          const std::vector<ops::UncheckedRule>& not_checked = {},
                          const GithubSpecFile* spec = nullptr);
// The JSON line of one finding (shared by json and tests): {"type":"finding",...}.
std::string FindingJson(const ops::Finding& finding);
// The JSON line of one rule that could not be checked: {"type":"not_checked",...}.
std::string UncheckedJson(const ops::UncheckedRule& unchecked);
// The --verify report of a verb that writes a snapshot (remap, relocate,
// rescale-max-parallelism), nothing without one. Text: its findings, then "verified DIR: E
// error(s), N finding(s), U not checked". JSON: one line per finding.
void RenderVerificationText(const std::optional<ops::ValidateReport>& verification,
                            std::ostream& out);
void RenderVerificationJson(const std::optional<ops::ValidateReport>& verification,
                            std::ostream& out);
// Text lines "not checked CKPT-A005: <reason>" (nothing if empty).
void RenderUncheckedText(const std::vector<ops::UncheckedRule>& not_checked, std::ostream& out);
// The JSON object of a location ({"file":...,"operator":...}); empty members are left out.
std::string LocationJson(const ops::Location& location);

// `file` (relative to `base_dir`, or absolute) as a path relative to the working directory,
// lexically normalized ("sp/../shared/x" -> "shared/x"). Absolute paths outside the working
// directory stay absolute.
std::string CwdRelativePath(std::string_view base_dir, std::string_view file);

// SARIF 2.1.0 (one JSON document) of a validate report, for code scanning: the rule catalogue
// in tool.driver.rules, one result per finding, the rules that could not be checked as tool
// execution notifications. `base_dir` as for RenderFindingsGithub.
void RenderValidateSarif(const ops::ValidateReport& report, std::string_view base_dir,
                         std::ostream& out);

// A well-formed report in `format` ("json", "junit", "github-actions", "sarif") that carries
// only the usage or I/O error of `verb` (exit 2), so a CI consumer of the report sees why
// there are no results. Nothing for "text" (the error goes to stderr alone).
void RenderErrorReport(std::string_view format, std::string_view verb, std::string_view error,
                       std::ostream& out);
// The per-format pieces of RenderErrorReport.
void RenderJunitError(std::string_view suite, std::string_view error, std::ostream& out);
void RenderGithubError(std::string_view verb, std::string_view error, std::ostream& out);
void RenderSarifError(std::string_view verb, std::string_view error, std::ostream& out);

}  // namespace ckpt::cli
