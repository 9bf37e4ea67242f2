// AWS INI and Flink YAML configuration files: see config_files.h.
#include "ckpt/s3/config_files.h"

#include <vector>

namespace ckpt::s3 {
namespace {

std::string_view CfgTrim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

size_t CfgIndent(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

std::vector<std::string_view> CfgLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::string CfgUnquote(std::string_view v) {
  if (v.size() >= 2 && ((v.front() == '"' && v.back() == '"') ||
                        (v.front() == '\'' && v.back() == '\''))) {
    v = v.substr(1, v.size() - 2);
  }
  return std::string(v);
}

}  // namespace

base::Result<IniProfiles> ParseAwsIni(std::string_view text, const std::string& path,
                                      bool config_file) {
  IniProfiles profiles;
  std::map<std::string, std::string>* section = nullptr;
  std::string nested;  // the key of an open nested block ("s3")
  size_t line_no = 0;
  for (const std::string_view raw : CfgLines(text)) {
    ++line_no;
    const std::string_view line = CfgTrim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    const auto bad = [&](const char* why) {
      return base::Status::InvalidArgument(path + ":" + std::to_string(line_no) + ": " + why);
    };
    if (line.front() == '[') {
      if (line.back() != ']') return bad("unterminated section header");
      std::string_view name = CfgTrim(line.substr(1, line.size() - 2));
      nested.clear();
      section = nullptr;
      if (config_file && name != "default") {
        if (name.substr(0, 8) != "profile ") continue;  // sso-session, services: not profiles
        name = CfgTrim(name.substr(8));
      }
      if (name.empty()) return bad("empty profile name");
      section = &profiles[std::string(name)];
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return bad("expected 'key = value'");
    if (section == nullptr) continue;  // keys of a skipped section
    const std::string key(CfgTrim(line.substr(0, eq)));
    const std::string value(CfgTrim(line.substr(eq + 1)));
    if (key.empty()) return bad("empty key");
    if (CfgIndent(raw) > 0 && !nested.empty()) {
      (*section)[nested + "." + key] = value;
      continue;
    }
    nested.clear();
    if (value.empty()) {
      nested = key;
    } else {
      (*section)[key] = value;
    }
  }
  return profiles;
}

base::Result<std::map<std::string, std::string>> ParseFlinkConfig(std::string_view text,
                                                                  const std::string& path) {
  (void)path;
  std::map<std::string, std::string> out;
  std::vector<std::pair<size_t, std::string>> parents;  // (indent, dotted key) of open maps
  for (const std::string_view raw : CfgLines(text)) {
    std::string_view line = raw;
    if (const size_t hash = line.find(" #"); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    const std::string_view trimmed = CfgTrim(line);
    if (trimmed.empty() || trimmed.front() == '#' || trimmed.front() == '-') continue;
    const size_t indent = CfgIndent(line);
    const size_t colon = trimmed.find(": ");
    const bool opens_map = trimmed.back() == ':' && colon == std::string_view::npos;
    if (colon == std::string_view::npos && !opens_map) continue;
    while (!parents.empty() && parents.back().first >= indent) parents.pop_back();
    const std::string_view key =
        CfgTrim(opens_map ? trimmed.substr(0, trimmed.size() - 1) : trimmed.substr(0, colon));
    std::string dotted = parents.empty() ? std::string() : parents.back().second + ".";
    dotted += CfgUnquote(key);
    if (opens_map) {
      parents.emplace_back(indent, dotted);
    } else {
      out[dotted] = CfgUnquote(CfgTrim(trimmed.substr(colon + 2)));
    }
  }
  return out;
}

}  // namespace ckpt::s3
