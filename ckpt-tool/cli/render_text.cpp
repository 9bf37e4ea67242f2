// Text rendering: aligned tables, human sizes, ISO timestamps and findings as readable lines.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "ckpt/base/text_escape.h"
#include "render.h"

namespace ckpt::cli {

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_align)
    : header_(std::move(header)), right_(std::move(right_align)) {
  right_.resize(header_.size(), false);
  verdict_.resize(header_.size(), false);
}

void TextTable::SetVerdictColumn(size_t column) {
  if (column < verdict_.size()) verdict_[column] = true;
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  for (std::string& c : cells) c = base::EscapeForText(c);
  rows_.push_back(std::move(cells));
}

namespace {

// Columns a cell takes on a terminal: its UTF-8 code points (continuation bytes take none), so
// "—" pads like one character.
size_t TextCellWidth(const std::string& cell) {
  size_t n = 0;
  for (unsigned char c : cell) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

void TextTable::Print(std::ostream& out) const {
  std::vector<size_t> width(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) width[c] = TextCellWidth(header_[c]);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], TextCellWidth(row[c]));
  }
  auto print_row = [&](const std::vector<std::string>& row, bool is_header) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const size_t pad = width[c] - TextCellWidth(row[c]);
      const bool last = c + 1 == row.size();
      if (right_[c]) line.append(pad, ' ');
      // Colour wraps the cell after its width is measured: escapes take no columns.
      if (!is_header && verdict_[c] && (row[c] == "yes" || row[c] == "no")) {
        line += VerdictText(row[c] == "yes");
      } else {
        line += row[c];
      }
      if (!right_[c] && !last) line.append(pad, ' ');
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  print_row(header_, true);
  for (const auto& row : rows_) print_row(row, false);
}

std::string HumanBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 4) {
    v /= 1024.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

namespace {
TextStyle& MutableTextStyle() {
  static TextStyle style;
  return style;
}
}  // namespace

void SetTextStyle(const TextStyle& style) { MutableTextStyle() = style; }
const TextStyle& CurrentTextStyle() { return MutableTextStyle(); }

std::string SizeText(uint64_t bytes) {
  if (CurrentTextStyle().exact_bytes) return std::to_string(bytes) + " B";
  return HumanBytes(bytes);
}

std::string Styled(std::string_view text, clistyle::Tone tone) {
  return clistyle::Paint(text, tone, CurrentTextStyle().color);
}

std::string VerdictText(bool yes) {
  return yes ? Styled("yes", clistyle::Tone::kGood) : Styled("no", clistyle::Tone::kBad);
}

std::string UidCell(const std::string& uid, ops::UidOrigin origin) {
  switch (origin) {
    case ops::UidOrigin::kNotRecorded: return "not recorded";
    case ops::UidOrigin::kUserUids: return uid + " (--uids)";
    case ops::UidOrigin::kRecorded: break;
  }
  return uid.empty() ? "-" : uid;
}

std::string UidNotRecordedNote(bool any_not_recorded) {
  return any_not_recorded ? "uid: not recorded in Flink's metadata (name operators by their uids "
                            "with --uids FILE)\n"
                          : "";
}

std::string UidJson(const std::string& uid, ops::UidOrigin origin) {
  return origin == ops::UidOrigin::kNotRecorded ? "null" : JsonQuoted(uid);
}

std::string IsoTime(int64_t epoch_ms) {
  if (epoch_ms <= 0) return "-";
  const std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(epoch_ms % 1000));
  return buf;
}

namespace {
std::string LocationText(const ops::Location& l) {
  std::string s;
  auto add = [&s](const std::string& part) {
    if (!s.empty()) s += " ";
    s += part;
  };
  if (!l.file.empty()) add("file=" + base::EscapeForText(l.file));
  if (!l.operator_id.empty()) {
    add("operator=" + base::EscapeForText(l.operator_name.empty()
                                              ? l.operator_id
                                              : l.operator_name + "(" + l.operator_id + ")"));
  }
  if (l.subtask) add("subtask=" + std::to_string(*l.subtask));
  if (l.key_group) add("key-group=" + std::to_string(*l.key_group));
  return s;
}
}  // namespace

void RenderFindingText(const ops::Finding& f, std::ostream& out) {
  std::string severity(ops::SeverityName(f.severity));
  if (f.severity == ops::Severity::kError) severity = Styled(severity, clistyle::Tone::kError);
  if (f.severity == ops::Severity::kWarning) {
    severity = Styled(severity, clistyle::Tone::kWarning);
  }
  out << severity << " " << f.rule_id << ": " << base::EscapeForText(f.message) << "\n";
  const std::string where = LocationText(f.location);
  if (!where.empty()) out << "    at " << where << "\n";
  if (!f.hint.empty()) {
    out << "    " << Styled("hint: " + base::EscapeForText(f.hint), clistyle::Tone::kHint)
        << "\n";
  }
}

void RenderFindingsText(const std::vector<ops::Finding>& findings, std::ostream& out) {
  size_t errors = 0, warnings = 0;
  for (const auto& f : findings) {
    RenderFindingText(f, out);
    if (f.severity == ops::Severity::kError) ++errors;
    if (f.severity == ops::Severity::kWarning) ++warnings;
  }
  out << errors << " error(s), " << warnings << " warning(s), "
      << findings.size() - errors - warnings << " note(s)\n";
}

void RenderVerificationText(const std::optional<ops::ValidateReport>& verification,
                            std::ostream& out) {
  if (!verification) return;
  RenderFindingsText(verification->findings, out);
  size_t errors = 0;
  for (const auto& f : verification->findings) errors += f.severity == ops::Severity::kError;
  out << "verified " << base::EscapeForText(verification->snapshot) << ": " << errors << " error(s), "
      << verification->findings.size() << " finding(s), " << verification->not_checked.size()
      << " not checked\n";
}

}  // namespace ckpt::cli

namespace ckpt::cli {

void RenderUncheckedText(const std::vector<ops::UncheckedRule>& not_checked, std::ostream& out) {
  for (const auto& u : not_checked) {
    out << "not checked " << u.rule_id << ": " << base::EscapeForText(u.reason) << "\n";
    const std::string where = LocationText(u.location);
    if (!where.empty()) out << "    at " << where << "\n";
  }
  if (!not_checked.empty()) {
    out << not_checked.size() << " check(s) could not be made on this host: the verdict does "
                                 "not cover them\n";
  }
}

}  // namespace ckpt::cli
