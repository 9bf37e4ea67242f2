// Renderers of the ckpt-tool CLI: aligned text tables, JSON lines, JUnit XML and GitHub Actions
// workflow commands. Pure formatting over ops result types; output is deterministic (no
// wall-clock values, stable order). Not thread-safe (stateless functions are).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/ops/finding.h"

namespace ckpt::cli {

// An aligned text table: columns padded to their widest cell, two spaces apart; right-aligned
// columns for numbers.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_align = {});
  void AddRow(std::vector<std::string> cells);
  void Print(std::ostream& out) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// "1.5 MiB", "312 B" (binary units, one decimal).
std::string HumanBytes(uint64_t bytes);
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
// Appends `s` as a JSON string literal.
void AppendJsonQuoted(std::string_view s, std::string* out);
std::string JsonQuoted(std::string_view s);

// Escapes text for XML attributes and content.
std::string XmlEscape(std::string_view s);

// Findings in each format. `suite` names the JUnit test suite (e.g. "ckpt-tool validate").
void RenderFindingsText(const std::vector<ops::Finding>& findings, std::ostream& out);
void RenderFindingsJson(const std::vector<ops::Finding>& findings, std::ostream& out);
// `checked_rules` are the rule IDs that were evaluated: each gets a passing testcase when no
// finding names it, so a clean run still reports what it checked.
void RenderFindingsJunit(const std::vector<ops::Finding>& findings,
                         const std::vector<std::string>& checked_rules, std::string_view suite,
                         std::ostream& out);
void RenderFindingsGithub(const std::vector<ops::Finding>& findings, std::ostream& out);
// The JSON line of one finding (shared by json and tests).
std::string FindingJson(const ops::Finding& finding);

}  // namespace ckpt::cli
