// JavaValue's accessors (java_serialization.h).
#include "ckpt/flink/java_serialization.h"

namespace ckpt::flink {

const std::string& JavaValue::class_name() const {
  static const std::string kNoClass;
  return class_desc != nullptr ? class_desc->name : kNoClass;
}

const JavaValue* JavaValue::Field(std::string_view name) const {
  for (auto cd = class_data.rbegin(); cd != class_data.rend(); ++cd) {
    for (const auto& [field_name, value] : cd->fields) {
      if (field_name == name) return value;
    }
  }
  return nullptr;
}

const JavaClassData* JavaValue::DataOf(std::string_view name) const {
  for (const JavaClassData& cd : class_data) {
    if (cd.desc != nullptr && cd.desc->name == name) return &cd;
  }
  return nullptr;
}

size_t JavaValue::array_length() const {
  if (kind != Kind::kArray) return 0;
  switch (type_code) {
    case 'B':
      return text.size();
    case 'F':
    case 'D':
      return reals.size();
    case 'L':
    case '[':
      return elements.size();
    default:
      return integers.size();
  }
}

}  // namespace ckpt::flink
