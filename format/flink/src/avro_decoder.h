// A small Apache Avro binary decoder (Avro specification 1.11, "Binary Encoding"), for the values
// Flink's AvroSerializer writes: one datum in the writer schema its AvroSerializerSnapshot holds,
// with no framing of its own. Schema: JSON (primitive names, record, enum, array, map, union,
// fixed, named references; logical types decode as their underlying type). Values as JSON:
// records as objects, enums as their symbol, arrays as arrays, maps as objects, a union as its
// branch's value, bytes and fixed as "0x..." hex. Pure; a parsed schema is immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::flink::internal {

struct AvroNode {
  enum class Type { kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString, kRecord,
                    kEnum, kArray, kMap, kUnion, kFixed };
  Type type = Type::kNull;
  std::string name;                          // record, enum, fixed: the full name
  std::vector<std::string> field_names;      // record
  std::vector<const AvroNode*> children;     // record fields, array items, map values, branches
  std::vector<std::string> symbols;          // enum
  uint32_t size = 0;                         // fixed
};

class AvroSchema {
 public:
  // InvalidArgument naming what is wrong (a JSON error, an unknown type name, a field without a
  // type, a fixed without its size, ...).
  static base::Result<std::shared_ptr<const AvroSchema>> Parse(std::string_view json);
  const AvroNode& root() const { return *root_; }

 private:
  friend class AvroSchemaParser;
  std::vector<std::unique_ptr<AvroNode>> nodes_;
  const AvroNode* root_ = nullptr;
};

// Appends the JSON of one datum of `node` read from `in`. Corruption "<file>: at byte <n>: ..."
// for truncated or malformed bytes (an overlong varint, a union branch or enum index out of
// range, a negative length, a block count beyond the bytes left).
base::Status DecodeAvroJson(const AvroNode& node, DataInput& in, std::string* json);

// The parsed schema of `json`, cached per thread (a dump decodes many values of one schema).
base::Result<std::shared_ptr<const AvroSchema>> CachedAvroSchema(const std::string& json);

}  // namespace ckpt::flink::internal
