#include "operators/operator_util.h"

#include <charconv>

namespace ckpt::engine::operators {
namespace {

constexpr char kHex[] = "0123456789abcdef";

template <typename T>
void AppendNumber(T v, std::string* out) {
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec == std::errc()) out->append(buf, ptr);
}

}  // namespace

void AppendValueText(const format::Value& value, std::string* out) {
  const auto& v = value.v;
  if (const auto* n = std::get_if<int64_t>(&v)) {
    AppendNumber(*n, out);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    out->append(*s);
  } else if (const auto* d = std::get_if<double>(&v)) {
    AppendNumber(*d, out);
  } else if (const auto* b = std::get_if<bool>(&v)) {
    out->append(*b ? "true" : "false");
  } else if (const auto* bytes = std::get_if<format::Bytes>(&v)) {
    for (unsigned char c : bytes->data) {
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  } else if (const auto* t = std::get_if<format::Tuple>(&v)) {
    for (size_t i = 0; i < t->fields.size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendValueText(t->fields[i], out);
    }
  } else if (const auto* l = std::get_if<format::List>(&v)) {
    out->push_back('[');
    for (size_t i = 0; i < l->elements.size(); ++i) {
      if (i > 0) out->push_back(';');
      AppendValueText(l->elements[i], out);
    }
    out->push_back(']');
  } else if (const auto* m = std::get_if<format::Map>(&v)) {
    out->push_back('{');
    for (size_t i = 0; i < m->entries.size(); ++i) {
      if (i > 0) out->push_back(';');
      AppendValueText(m->entries[i].first, out);
      out->push_back('=');
      AppendValueText(m->entries[i].second, out);
    }
    out->push_back('}');
  } else if (const auto* p = std::get_if<format::ProtoMessage>(&v)) {
    for (unsigned char c : p->wire_bytes) {
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
  // Void renders as nothing.
}

std::string ValueText(const format::Value& value) {
  std::string out;
  AppendValueText(value, &out);
  return out;
}

void AppendRecordLine(const Record& record, bool with_timestamp, std::string* out) {
  if (!std::holds_alternative<format::Void>(record.key.v)) {
    AppendValueText(record.key, out);
    out->push_back(',');
  }
  AppendValueText(record.value, out);
  if (with_timestamp && record.timestamp != kNoTimestamp) {
    out->push_back(',');
    AppendNumber(record.timestamp, out);
  }
}

base::Result<size_t> GetEnumParam(const OperatorParams& params, std::string_view field,
                                  std::string fallback, const std::vector<std::string>& allowed) {
  // Returning an index rather than the string keeps GCC's -O3 -Wmaybe-uninitialized quiet
  // about moved-from Result<std::string> temporaries at the call sites.
  base::Result<std::string> value = params.GetString(field, std::move(fallback));
  if (!value.ok()) return value.status();
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] == *value) return i;
    list += (list.empty() ? "" : ", ") + allowed[i];
  }
  return params.Error(field, "must be one of " + list + ", got \"" + *value + "\"");
}

base::Result<int64_t> GetIntInRange(const OperatorParams& params, std::string_view field,
                                    int64_t fallback, int64_t min, int64_t max) {
  CKPT_ASSIGN_OR_RETURN(int64_t v, params.GetInt(field, fallback));
  if (v < min || v > max) {
    return params.Error(field, "must be in [" + std::to_string(min) + ", " +
                                   std::to_string(max) + "], got " + std::to_string(v));
  }
  return v;
}

std::string SubtaskLabel(const OperatorContext& ctx) {
  return ctx.name() + " (" + std::to_string(ctx.subtask_index() + 1) + "/" +
         std::to_string(ctx.parallelism()) + ")";
}

std::string_view ValueKindName(const format::Value& value) {
  static constexpr std::string_view kNames[] = {"void",  "int64", "double", "bool", "string",
                                                "bytes", "tuple", "list",   "map",  "proto"};
  return kNames[value.v.index()];
}

base::Result<int64_t> ExpectInt64(const format::Value& value, std::string_view who) {
  if (const auto* i = std::get_if<int64_t>(&value.v)) return *i;
  return base::Status::InvalidArgument(std::string(who) + ": expected an int64 value, got " +
                                       std::string(ValueKindName(value)));
}

base::Result<const std::string*> ExpectString(const format::Value& value, std::string_view who) {
  if (const auto* s = std::get_if<std::string>(&value.v)) return s;
  return base::Status::InvalidArgument(std::string(who) + ": expected a string value, got " +
                                       std::string(ValueKindName(value)));
}

}  // namespace ckpt::engine::operators
