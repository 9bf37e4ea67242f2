#include "ckpt/engine/operators/text_functions.h"

#include <charconv>

namespace ckpt::engine::operators {
namespace {

std::string Quote(std::string_view text) {
  constexpr size_t kMaxQuoted = 80;  // a malformed multi-megabyte line must not flood the log
  std::string q = "\"";
  q.append(text.substr(0, kMaxQuoted));
  if (text.size() > kMaxQuoted) q.append("...");
  q.append("\"");
  return q;
}

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '\'' || c >= 0x80;
}

}  // namespace

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

base::Result<int64_t> ParseInt64(std::string_view text) {
  const std::string_view t = Trim(text);
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) {
    return base::Status::InvalidArgument("not a 64-bit integer: " + Quote(text));
  }
  return out;
}

base::Result<KeyValue> ParseKeyValue(std::string_view text) {
  const size_t comma = text.rfind(',');
  if (comma == std::string_view::npos) {
    return base::Status::InvalidArgument("expected \"key,value\", no comma in " + Quote(text));
  }
  KeyValue kv;
  const std::string_view key = Trim(text.substr(0, comma));
  if (key.empty()) {
    return base::Status::InvalidArgument("expected \"key,value\", empty key in " + Quote(text));
  }
  kv.key = std::string(key);
  base::Result<int64_t> value = ParseInt64(text.substr(comma + 1));
  if (!value.ok()) {
    return base::Status::InvalidArgument("expected \"key,value\" with an integer value, got " +
                                         Quote(text));
  }
  kv.value = *value;
  return kv;
}

void SplitWords(std::string_view line, std::vector<std::string>* out) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && !IsWordByte(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && IsWordByte(static_cast<unsigned char>(line[i]))) ++i;
    std::string_view run = line.substr(start, i - start);
    // Quotes around a word ('hello') are punctuation, not part of it.
    while (!run.empty() && run.front() == '\'') run.remove_prefix(1);
    while (!run.empty() && run.back() == '\'') run.remove_suffix(1);
    if (run.empty()) continue;
    std::string word(run);
    for (char& c : word) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    out->push_back(std::move(word));
  }
}

}  // namespace ckpt::engine::operators
