// Typed access to google.protobuf.Struct params with errors naming operator and field.
#include "ckpt/engine/operator_params.h"

#include <cmath>

namespace ckpt::engine {
namespace {

std::string Describe(const google::protobuf::Value& v) {
  switch (v.kind_case()) {
    case google::protobuf::Value::kNullValue: return "null";
    case google::protobuf::Value::kNumberValue: return "a number";
    case google::protobuf::Value::kStringValue: return "\"" + v.string_value() + "\"";
    case google::protobuf::Value::kBoolValue: return "a boolean";
    case google::protobuf::Value::kStructValue: return "an object";
    case google::protobuf::Value::kListValue: return "a list";
    default: return "nothing";
  }
}

}  // namespace

OperatorParams::OperatorParams(std::string operator_label, google::protobuf::Struct params)
    : label_(std::move(operator_label)), params_(std::move(params)) {}

const google::protobuf::Value* OperatorParams::Find(std::string_view field) const {
  auto it = params_.fields().find(std::string(field));
  if (it == params_.fields().end()) return nullptr;
  if (it->second.kind_case() == google::protobuf::Value::kNullValue) return nullptr;
  return &it->second;
}

bool OperatorParams::Has(std::string_view field) const { return Find(field) != nullptr; }

base::Status OperatorParams::Error(std::string_view field, std::string_view message) const {
  return base::Status::InvalidArgument(label_ + ": params." + std::string(field) + ": " +
                                       std::string(message));
}

base::Result<int64_t> OperatorParams::GetInt(std::string_view field, int64_t default_value) const {
  const google::protobuf::Value* v = Find(field);
  if (v == nullptr) return default_value;
  if (v->kind_case() != google::protobuf::Value::kNumberValue) {
    return Error(field, "expected an integer, got " + Describe(*v));
  }
  double d = v->number_value();
  // 2^63 as a double; the range check keeps the cast defined.
  if (std::trunc(d) != d || d < -9.2233720368547758e18 || d >= 9.2233720368547758e18) {
    return Error(field, "expected an integer, got " + std::to_string(d));
  }
  return static_cast<int64_t>(d);
}

base::Result<double> OperatorParams::GetDouble(std::string_view field, double default_value) const {
  const google::protobuf::Value* v = Find(field);
  if (v == nullptr) return default_value;
  if (v->kind_case() != google::protobuf::Value::kNumberValue) {
    return Error(field, "expected a number, got " + Describe(*v));
  }
  return v->number_value();
}

base::Result<bool> OperatorParams::GetBool(std::string_view field, bool default_value) const {
  const google::protobuf::Value* v = Find(field);
  if (v == nullptr) return default_value;
  if (v->kind_case() != google::protobuf::Value::kBoolValue) {
    return Error(field, "expected true or false, got " + Describe(*v));
  }
  return v->bool_value();
}

base::Result<std::string> OperatorParams::GetString(std::string_view field,
                                                    std::string default_value) const {
  const google::protobuf::Value* v = Find(field);
  if (v == nullptr) return default_value;
  if (v->kind_case() != google::protobuf::Value::kStringValue) {
    return Error(field, "expected a string, got " + Describe(*v));
  }
  return v->string_value();
}

base::Result<std::vector<std::string>> OperatorParams::GetStringList(std::string_view field) const {
  const google::protobuf::Value* v = Find(field);
  std::vector<std::string> out;
  if (v == nullptr) return out;
  if (v->kind_case() != google::protobuf::Value::kListValue) {
    return Error(field, "expected a list of strings, got " + Describe(*v));
  }
  for (int i = 0; i < v->list_value().values_size(); ++i) {
    const google::protobuf::Value& e = v->list_value().values(i);
    if (e.kind_case() != google::protobuf::Value::kStringValue) {
      return Error(std::string(field) + "[" + std::to_string(i) + "]",
                   "expected a string, got " + Describe(e));
    }
    out.push_back(e.string_value());
  }
  return out;
}

base::Result<int64_t> OperatorParams::RequireInt(std::string_view field) const {
  if (!Has(field)) return Error(field, "is required");
  return GetInt(field, 0);
}

base::Result<std::string> OperatorParams::RequireString(std::string_view field) const {
  if (!Has(field)) return Error(field, "is required");
  return GetString(field, "");
}

base::Status OperatorParams::CheckKnownFields(
    std::initializer_list<std::string_view> known) const {
  for (const auto& [name, value] : params_.fields()) {
    (void)value;
    bool found = false;
    for (std::string_view k : known) found = found || k == name;
    if (!found) {
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return Error(name, "unknown parameter (known: " + list + ")");
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
