// Private to ckpt::flink: a bounded reader of the Java Object Serialization Stream Protocol
// (java.io.ObjectOutputStream, stream version 5), enough for plain serializable objects: class
// descriptors, primitive and object fields, strings, enums, arrays and back references. Custom
// writeObject data is skipped as block data. Not thread-safe (a cursor).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/flink/data_input.h"

namespace ckpt::flink::internal {

struct JavaValue {
  enum class Kind { kNull, kPrimitive, kString, kEnum, kObject, kArray, kClass, kBlockData };
  Kind kind = Kind::kNull;
  std::string class_name;  // object, enum, array: its class
  std::string text;        // string; enum constant name
  int64_t integer = 0;     // primitive (boolean/byte/char/short/int/long)
  double real = 0;         // primitive float/double
  std::map<std::string, std::shared_ptr<const JavaValue>> fields;  // object (all classes)
  std::vector<std::shared_ptr<const JavaValue>> elements;          // array
};

// Reads the stream header (AC ED 00 05) and the first content item.
base::Result<std::shared_ptr<const JavaValue>> ReadJavaObject(DataInput& in);

}  // namespace ckpt::flink::internal
