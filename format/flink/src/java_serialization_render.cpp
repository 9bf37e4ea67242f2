// The pieces the text and JSON renderings of Java serialization share
// (java_serialization_render.h).
#include "java_serialization_render.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ckpt::flink::internal {

const char* JavaPrimitiveTypeName(char type_code) {
  switch (type_code) {
    case 'B':
      return "byte";
    case 'C':
      return "char";
    case 'D':
      return "double";
    case 'F':
      return "float";
    case 'I':
      return "int";
    case 'J':
      return "long";
    case 'S':
      return "short";
    case 'Z':
      return "boolean";
    default:
      return "?";
  }
}

std::string JavaPrimitiveText(char type_code, int64_t integer, double real) {
  switch (type_code) {
    case 'Z':
      return integer != 0 ? "true" : "false";
    case 'C': {
      const auto c = static_cast<uint32_t>(integer & 0xFFFF);
      std::string out;
      if (c >= 0xD800 && c <= 0xDFFF) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04X", c);
        return buf;
      }
      if (c < 0x80) {
        out.push_back(static_cast<char>(c));
      } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
      } else {
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
      }
      return out;
    }
    case 'F':
    case 'D': {
      if (std::isnan(real)) return "NaN";
      if (std::isinf(real)) return real > 0 ? "Infinity" : "-Infinity";
      char buf[64];
      const auto r = type_code == 'F'
                         ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(real))
                         : std::to_chars(buf, buf + sizeof buf, real);
      return std::string(buf, r.ptr);
    }
    default:
      return std::to_string(integer);
  }
}

bool JavaPrimitiveNeedsQuotes(char type_code, double real) {
  if (type_code == 'C') return true;
  return (type_code == 'F' || type_code == 'D') && !std::isfinite(real);
}

std::string JavaHexBytes(std::string_view bytes, size_t max_bytes, char sep) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const size_t n = bytes.size() < max_bytes ? bytes.size() : max_bytes;
  out.reserve(n * 3);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && sep != '\0') out.push_back(sep);
    const auto c = static_cast<unsigned char>(bytes[i]);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string JavaName(std::string_view name) {
  if (name.size() <= kJavaNameLimit) return std::string(name);
  return std::string(name.substr(0, kJavaNameLimit)) + "...";
}

bool JavaExpansion::Expand(const JavaValue& v) {
  switch (v.kind) {
    case JavaValue::Kind::kObject:
    case JavaValue::Kind::kArray:
    case JavaValue::Kind::kClass:
    case JavaValue::Kind::kClassDesc:
    case JavaValue::Kind::kException:
      return values_.insert(&v).second;
    case JavaValue::Kind::kString:
    case JavaValue::Kind::kEnum:
      return v.text.size() + v.class_name().size() <= kJavaRepeatLimit || values_.insert(&v).second;
    default:
      return true;
  }
}

}  // namespace ckpt::flink::internal
