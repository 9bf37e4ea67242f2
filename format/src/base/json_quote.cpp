// AppendJsonQuoted: see json_quote.h.
#include "ckpt/base/json_quote.h"

#include <cstddef>
#include <cstdint>

namespace ckpt::base {
namespace {

// Length of the valid UTF-8 sequence at the front of `s` (non-empty), or 0 if it is not one.
size_t JsonQuoteUtf8Length(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t c = b(0);
  size_t n = 0;
  uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;  // a continuation byte, 0xc0/0xc1 (always overlong) or 0xf5..0xff
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3f);
  }
  // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
      (cp >= 0xd800 && cp <= 0xdfff)) {
    return 0;
  }
  return n;
}

}  // namespace

void AppendJsonQuoted(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  while (!s.empty()) {
    const auto c = static_cast<uint8_t>(s[0]);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (c < 0x20 || c == 0x7f) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else if (c >= 0x80) {
      const size_t n = JsonQuoteUtf8Length(s);
      if (n == 0) {
        out->append("\\ufffd");
        s.remove_prefix(1);
      } else {
        out->append(s.substr(0, n));
        s.remove_prefix(n);
      }
      continue;
    } else {
      out->push_back(static_cast<char>(c));
    }
    s.remove_prefix(1);
  }
  out->push_back('"');
}

}  // namespace ckpt::base
