// Value: an in-memory value of the format's type system (FORMAT.md "Types and values"), for
// tools, tests and the engine's catalog operators. Plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ckpt::format {

struct Value;
struct Void {
  bool operator==(const Void&) const = default;
};
struct Bytes {
  std::string data;
  bool operator==(const Bytes&) const = default;
};
struct Tuple {
  std::vector<Value> fields;
  bool operator==(const Tuple&) const;
};
struct List {
  std::vector<Value> elements;
  bool operator==(const List&) const;
};
struct Map {
  std::vector<std::pair<Value, Value>> entries;  // in encoded order
  bool operator==(const Map&) const;
};
struct ProtoMessage {
  std::string wire_bytes;  // the message's protobuf wire encoding
  bool operator==(const ProtoMessage&) const = default;
};

struct Value {
  std::variant<Void, int64_t, double, bool, std::string, Bytes, Tuple, List, Map, ProtoMessage> v;

  Value() = default;
  template <typename T>
  Value(T x) : v(std::move(x)) {}  // NOLINT: implicit by design
  Value(const char* s) : v(std::string(s)) {}  // NOLINT
  bool operator==(const Value& o) const { return v == o.v; }
};

}  // namespace ckpt::format
