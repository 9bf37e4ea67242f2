// AppendProtoJson: reflection-driven JSON in protobuf's canonical mapping (see proto_json.h).
#include "model/proto_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

namespace ckpt::ops::internal {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

void AppendEscaped(const std::string& s, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    // U+2028 and U+2029 (E2 80 A8/A9) are escaped by protobuf, as in JavaScript-safe JSON.
    if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      *out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
      i += 2;
      continue;
    }
    switch (c) {
      case '<': *out += "\\u003c"; break;
      case '>': *out += "\\u003e"; break;
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          *out += buf;
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void AppendBase64(const std::string& s, std::string* out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out->push_back('"');
  size_t i = 0;
  for (; i + 3 <= s.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(s[i]) << 16) | (static_cast<uint8_t>(s[i + 1]) << 8) |
                       static_cast<uint8_t>(s[i + 2]);
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(kAlphabet[(v >> 6) & 63]);
    out->push_back(kAlphabet[v & 63]);
  }
  if (i + 1 == s.size()) {
    const uint32_t v = static_cast<uint8_t>(s[i]) << 16;
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    *out += "==";
  } else if (i + 2 == s.size()) {
    const uint32_t v = (static_cast<uint8_t>(s[i]) << 16) | (static_cast<uint8_t>(s[i + 1]) << 8);
    out->push_back(kAlphabet[v >> 18]);
    out->push_back(kAlphabet[(v >> 12) & 63]);
    out->push_back(kAlphabet[(v >> 6) & 63]);
    out->push_back('=');
  }
  out->push_back('"');
}

template <typename T>
void AppendNumber(T v, std::string* out) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    *out += "\"NaN\"";
  } else if (std::isinf(v)) {
    *out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    AppendNumber(v, out);
  }
}

// One value of a (non-repeated view of a) field. `index` < 0: singular.
void AppendValue(const Message& m, const Reflection& r, const FieldDescriptor& f, int index,
                 std::string* out) {
  const bool rep = index >= 0;
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      AppendNumber(rep ? r.GetRepeatedInt32(m, &f, index) : r.GetInt32(m, &f), out);
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      AppendNumber(rep ? r.GetRepeatedUInt32(m, &f, index) : r.GetUInt32(m, &f), out);
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      out->push_back('"');
      AppendNumber(rep ? r.GetRepeatedInt64(m, &f, index) : r.GetInt64(m, &f), out);
      out->push_back('"');
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      out->push_back('"');
      AppendNumber(rep ? r.GetRepeatedUInt64(m, &f, index) : r.GetUInt64(m, &f), out);
      out->push_back('"');
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      AppendDouble(rep ? r.GetRepeatedDouble(m, &f, index) : r.GetDouble(m, &f), out);
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
      AppendDouble(rep ? r.GetRepeatedFloat(m, &f, index) : r.GetFloat(m, &f), out);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      *out += (rep ? r.GetRepeatedBool(m, &f, index) : r.GetBool(m, &f)) ? "true" : "false";
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int v = rep ? r.GetRepeatedEnumValue(m, &f, index) : r.GetEnumValue(m, &f);
      const auto* ev = f.enum_type()->FindValueByNumber(v);
      if (ev != nullptr) {
        AppendEscaped(ev->name(), out);
      } else {
        AppendNumber(v, out);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& s = rep ? r.GetRepeatedStringReference(m, &f, index, &scratch)
                                 : r.GetStringReference(m, &f, &scratch);
      if (f.type() == FieldDescriptor::TYPE_BYTES) {
        AppendBase64(s, out);
      } else {
        AppendEscaped(s, out);
      }
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      AppendProtoJson(rep ? r.GetRepeatedMessage(m, &f, index) : r.GetMessage(m, &f), out);
      break;
  }
}

void AppendMap(const Message& m, const Reflection& r, const FieldDescriptor& f, std::string* out) {
  const FieldDescriptor* key = f.message_type()->map_key();
  const FieldDescriptor* value = f.message_type()->map_value();
  const int n = r.FieldSize(m, &f);
  // Keys in sorted order, as deterministic serialization yields them.
  std::vector<std::pair<std::string, const Message*>> entries;
  for (int i = 0; i < n; ++i) {
    const Message& e = r.GetRepeatedMessage(m, &f, i);
    const Reflection& er = *e.GetReflection();
    std::string k;
    switch (key->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING: k = er.GetString(e, key); break;
      case FieldDescriptor::CPPTYPE_BOOL: k = er.GetBool(e, key) ? "true" : "false"; break;
      case FieldDescriptor::CPPTYPE_INT32: k = std::to_string(er.GetInt32(e, key)); break;
      case FieldDescriptor::CPPTYPE_UINT32: k = std::to_string(er.GetUInt32(e, key)); break;
      case FieldDescriptor::CPPTYPE_INT64: k = std::to_string(er.GetInt64(e, key)); break;
      case FieldDescriptor::CPPTYPE_UINT64: k = std::to_string(er.GetUInt64(e, key)); break;
      default: break;
    }
    entries.emplace_back(std::move(k), &e);
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  out->push_back('{');
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendEscaped(entries[i].first, out);
    out->push_back(':');
    AppendValue(*entries[i].second, *entries[i].second->GetReflection(), *value, -1, out);
  }
  out->push_back('}');
}

}  // namespace

void AppendProtoJson(const Message& m, std::string* out) {
  const auto* d = m.GetDescriptor();
  const Reflection& r = *m.GetReflection();
  out->push_back('{');
  bool first = true;
  // protobuf prints the fields outside any oneof first (declaration order), then set oneof
  // members.
  std::vector<const FieldDescriptor*> order;
  order.reserve(static_cast<size_t>(d->field_count()));
  for (int i = 0; i < d->field_count(); ++i) {
    if (d->field(i)->real_containing_oneof() == nullptr) order.push_back(d->field(i));
  }
  for (int i = 0; i < d->field_count(); ++i) {
    if (d->field(i)->real_containing_oneof() != nullptr) order.push_back(d->field(i));
  }
  for (const FieldDescriptor* fp : order) {
    const FieldDescriptor& f = *fp;
    const bool in_oneof = f.real_containing_oneof() != nullptr;
    if (!f.is_repeated()) {
      // Unset message fields and unset oneof members are omitted; scalars always print.
      const bool message = f.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
      if ((message || in_oneof || f.has_presence()) && !r.HasField(m, &f)) continue;
    }
    if (!first) out->push_back(',');
    first = false;
    out->push_back('"');
    *out += f.name();
    *out += "\":";
    if (f.is_map()) {
      AppendMap(m, r, f, out);
    } else if (f.is_repeated()) {
      out->push_back('[');
      const int n = r.FieldSize(m, &f);
      for (int j = 0; j < n; ++j) {
        if (j > 0) out->push_back(',');
        AppendValue(m, r, f, j, out);
      }
      out->push_back(']');
    } else {
      AppendValue(m, r, f, -1, out);
    }
  }
  out->push_back('}');
}

}  // namespace ckpt::ops::internal
