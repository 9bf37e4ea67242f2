// The Avro binary decoder: see avro_decoder.h.
#include "avro_decoder.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "ckpt/base/json_quote.h"
#include "ckpt/flink/value_decoder.h"

namespace ckpt::flink::internal {

using base::Status;
using Json = nlohmann::json;

class AvroSchemaParser {
 public:
  explicit AvroSchemaParser(AvroSchema* schema) : schema_(schema) {}

  base::Result<const AvroNode*> Node(const Json& j, const std::string& ns, int depth) {
    if (depth > 64) return Status::InvalidArgument("Avro schema nested too deeply");
    if (j.is_string()) return Named(j.get<std::string>(), ns);
    if (j.is_array()) {
      AvroNode* u = New(AvroNode::Type::kUnion);
      for (const auto& branch : j) {
        CKPT_ASSIGN_OR_RETURN(const AvroNode* b, Node(branch, ns, depth + 1));
        u->children.push_back(b);
      }
      if (u->children.empty()) return Status::InvalidArgument("Avro schema: an empty union");
      return u;
    }
    if (!j.is_object() || !j.contains("type")) {
      return Status::InvalidArgument("Avro schema: expected a type name, a union or an object with \"type\", got " +
                                     j.dump().substr(0, 80));
    }
    const Json& t = j["type"];
    if (!t.is_string()) return Node(t, ns, depth + 1);  // {"type": {...}} or {"type": [...]}
    const std::string type = t.get<std::string>();
    if (type == "record" || type == "error" || type == "enum" || type == "fixed") {
      if (!j.contains("name") || !j["name"].is_string()) {
        return Status::InvalidArgument("Avro schema: a " + type + " without a name");
      }
      std::string name = j["name"].get<std::string>();
      std::string space = ns;
      if (j.contains("namespace") && j["namespace"].is_string()) space = j["namespace"].get<std::string>();
      if (name.find('.') == std::string::npos && !space.empty()) name = space + "." + name;
      if (name.find('.') != std::string::npos) space = name.substr(0, name.rfind('.'));
      AvroNode* n = New(type == "enum"    ? AvroNode::Type::kEnum
                        : type == "fixed" ? AvroNode::Type::kFixed
                                          : AvroNode::Type::kRecord);
      n->name = name;
      named_[name] = n;
      if (type == "enum") {
        if (!j.contains("symbols") || !j["symbols"].is_array()) {
          return Status::InvalidArgument("Avro schema: enum " + name + " without symbols");
        }
        for (const auto& s : j["symbols"]) n->symbols.push_back(s.is_string() ? s.get<std::string>() : s.dump());
      } else if (type == "fixed") {
        if (!j.contains("size") || !j["size"].is_number_unsigned()) {
          return Status::InvalidArgument("Avro schema: fixed " + name + " without its size");
        }
        n->size = j["size"].get<uint32_t>();
      } else {
        if (!j.contains("fields") || !j["fields"].is_array()) {
          return Status::InvalidArgument("Avro schema: record " + name + " without fields");
        }
        for (const auto& f : j["fields"]) {
          if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
            return Status::InvalidArgument("Avro schema: a field of record " + name + " without name or type");
          }
          n->field_names.push_back(f["name"].get<std::string>());
          CKPT_ASSIGN_OR_RETURN(const AvroNode* ft, Node(f["type"], space, depth + 1));
          n->children.push_back(ft);
        }
      }
      return n;
    }
    if (type == "array" || type == "map") {
      const char* key = type == "array" ? "items" : "values";
      if (!j.contains(key)) return Status::InvalidArgument("Avro schema: " + type + " without \"" + key + "\"");
      AvroNode* n = New(type == "array" ? AvroNode::Type::kArray : AvroNode::Type::kMap);
      CKPT_ASSIGN_OR_RETURN(const AvroNode* item, Node(j[key], ns, depth + 1));
      n->children.push_back(item);
      return n;
    }
    return Named(type, ns);  // a primitive with attributes (logicalType ...), or a reference
  }

 private:
  AvroNode* New(AvroNode::Type t) {
    schema_->nodes_.push_back(std::make_unique<AvroNode>());
    schema_->nodes_.back()->type = t;
    return schema_->nodes_.back().get();
  }

  base::Result<const AvroNode*> Named(const std::string& name, const std::string& ns) {
    static const std::map<std::string, AvroNode::Type> kPrimitive = {
        {"null", AvroNode::Type::kNull},     {"boolean", AvroNode::Type::kBoolean},
        {"int", AvroNode::Type::kInt},       {"long", AvroNode::Type::kLong},
        {"float", AvroNode::Type::kFloat},   {"double", AvroNode::Type::kDouble},
        {"bytes", AvroNode::Type::kBytes},   {"string", AvroNode::Type::kString}};
    auto p = kPrimitive.find(name);
    if (p != kPrimitive.end()) return static_cast<const AvroNode*>(New(p->second));
    auto it = named_.find(name);
    if (it == named_.end() && !ns.empty()) it = named_.find(ns + "." + name);
    if (it == named_.end()) return Status::InvalidArgument("Avro schema: unknown type name \"" + name + "\"");
    return static_cast<const AvroNode*>(it->second);
  }

  AvroSchema* schema_;
  std::map<std::string, const AvroNode*> named_;
};

base::Result<std::shared_ptr<const AvroSchema>> AvroSchema::Parse(std::string_view json) {
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("Avro schema is not JSON");
  auto schema = std::make_shared<AvroSchema>();
  AvroSchemaParser p(schema.get());
  CKPT_ASSIGN_OR_RETURN(schema->root_, p.Node(j, "", 0));
  return std::shared_ptr<const AvroSchema>(std::move(schema));
}

base::Result<std::shared_ptr<const AvroSchema>> CachedAvroSchema(const std::string& json) {
  thread_local std::map<std::string, std::shared_ptr<const AvroSchema>> cache;
  auto it = cache.find(json);
  if (it != cache.end()) return it->second;
  CKPT_ASSIGN_OR_RETURN(auto schema, AvroSchema::Parse(json));
  if (cache.size() >= 64) cache.clear();
  cache.emplace(json, schema);
  return schema;
}

namespace {

// A zigzag varint of at most 10 bytes (a long; an int is at most 5).
base::Result<int64_t> ReadZigZag(DataInput& in, int max_bytes, const char* what) {
  const uint64_t at = in.offset();
  uint64_t v = 0;
  for (int i = 0; i < max_bytes; ++i) {
    CKPT_ASSIGN_OR_RETURN(uint8_t b, in.ReadU8());
    v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  return in.Error(at, std::string("overlong varint in an Avro ") + what);
}

base::Result<std::string_view> ReadAvroBytes(DataInput& in, const char* what) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int64_t n, ReadZigZag(in, 10, what));
  if (n < 0) return in.Error(at, std::string("negative Avro ") + what + " length " + std::to_string(n));
  if (static_cast<uint64_t>(n) > in.remaining()) {
    return in.Error(at, std::string("Avro ") + what + " length " + std::to_string(n) + " exceeds the " +
                            std::to_string(in.remaining()) + " bytes left");
  }
  return in.ReadBytes(static_cast<uint64_t>(n));
}

void AppendReal(double d, std::string* out) {
  if (!std::isfinite(d)) {
    *out += std::isnan(d) ? "\"NaN\"" : (d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  *out += buf;
}

constexpr uint64_t kMaxItems = uint64_t{1} << 24;  // items of one array or map (0-byte items)

Status Decode(const AvroNode& node, DataInput& in, std::string* json, int depth, uint64_t* items);

// Array and map blocks: long count (negative: -count, then the block's byte size), count items;
// a 0 count ends.
Status Blocks(const AvroNode& node, DataInput& in, std::string* json, int depth, uint64_t* items) {
  const bool map = node.type == AvroNode::Type::kMap;
  *json += map ? "{" : "[";
  bool first = true;
  while (true) {
    const uint64_t at = in.offset();
    CKPT_ASSIGN_OR_RETURN(int64_t count, ReadZigZag(in, 10, "block count"));
    if (count == 0) break;
    if (count < 0) {
      if (count == INT64_MIN) return in.Error(at, "Avro block count out of range");
      count = -count;
      CKPT_ASSIGN_OR_RETURN(int64_t size, ReadZigZag(in, 10, "block size"));
      if (size < 0 || static_cast<uint64_t>(size) > in.remaining()) {
        return in.Error(at, "Avro block size " + std::to_string(size) + " does not fit the bytes left");
      }
    }
    *items += static_cast<uint64_t>(count);
    if (*items > kMaxItems) return in.Error(at, "Avro block count " + std::to_string(count) + " is implausible");
    for (int64_t i = 0; i < count; ++i) {
      if (!first) *json += ",";
      first = false;
      if (map) {
        CKPT_ASSIGN_OR_RETURN(std::string_view key, ReadAvroBytes(in, "map key"));
        base::AppendJsonQuoted(key, json);
        *json += ":";
      }
      CKPT_RETURN_IF_ERROR(Decode(*node.children[0], in, json, depth + 1, items));
    }
  }
  *json += map ? "}" : "]";
  return Status::OK();
}

Status Decode(const AvroNode& node, DataInput& in, std::string* json, int depth, uint64_t* items) {
  if (depth > 64) return in.Error("Avro value nested too deeply");
  switch (node.type) {
    case AvroNode::Type::kNull:
      *json += "null";
      return Status::OK();
    case AvroNode::Type::kBoolean: {
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(uint8_t b, in.ReadU8());
      if (b > 1) return in.Error(at, "Avro boolean byte " + std::to_string(b));
      *json += b ? "true" : "false";
      return Status::OK();
    }
    case AvroNode::Type::kInt:
    case AvroNode::Type::kLong: {
      const bool is_int = node.type == AvroNode::Type::kInt;
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(int64_t v, ReadZigZag(in, is_int ? 5 : 10, is_int ? "int" : "long"));
      if (is_int && (v < INT32_MIN || v > INT32_MAX)) return in.Error(at, "Avro int out of range");
      *json += std::to_string(v);
      return Status::OK();
    }
    case AvroNode::Type::kFloat: {
      CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadBytes(4));
      uint32_t bits = 0;
      for (int i = 3; i >= 0; --i) bits = bits << 8 | static_cast<uint8_t>(b[static_cast<size_t>(i)]);
      float f;
      std::memcpy(&f, &bits, 4);
      AppendReal(f, json);
      return Status::OK();
    }
    case AvroNode::Type::kDouble: {
      CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadBytes(8));
      uint64_t bits = 0;
      for (int i = 7; i >= 0; --i) bits = bits << 8 | static_cast<uint8_t>(b[static_cast<size_t>(i)]);
      double d;
      std::memcpy(&d, &bits, 8);
      AppendReal(d, json);
      return Status::OK();
    }
    case AvroNode::Type::kBytes: {
      CKPT_ASSIGN_OR_RETURN(std::string_view b, ReadAvroBytes(in, "bytes"));
      *json += HexJson(b);
      return Status::OK();
    }
    case AvroNode::Type::kString: {
      CKPT_ASSIGN_OR_RETURN(std::string_view s, ReadAvroBytes(in, "string"));
      base::AppendJsonQuoted(s, json);
      return Status::OK();
    }
    case AvroNode::Type::kRecord: {
      *json += "{";
      for (size_t i = 0; i < node.children.size(); ++i) {
        if (i) *json += ",";
        base::AppendJsonQuoted(node.field_names[i], json);
        *json += ":";
        CKPT_RETURN_IF_ERROR(Decode(*node.children[i], in, json, depth + 1, items));
      }
      *json += "}";
      return Status::OK();
    }
    case AvroNode::Type::kEnum: {
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(int64_t i, ReadZigZag(in, 5, "enum index"));
      if (i < 0 || static_cast<uint64_t>(i) >= node.symbols.size()) {
        return in.Error(at, "Avro enum " + node.name + " index " + std::to_string(i) + " of " +
                                std::to_string(node.symbols.size()) + " symbols");
      }
      base::AppendJsonQuoted(node.symbols[static_cast<size_t>(i)], json);
      return Status::OK();
    }
    case AvroNode::Type::kArray:
    case AvroNode::Type::kMap:
      return Blocks(node, in, json, depth, items);
    case AvroNode::Type::kUnion: {
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(int64_t i, ReadZigZag(in, 10, "union index"));
      if (i < 0 || static_cast<uint64_t>(i) >= node.children.size()) {
        return in.Error(at, "Avro union branch " + std::to_string(i) + " of " +
                                std::to_string(node.children.size()));
      }
      return Decode(*node.children[static_cast<size_t>(i)], in, json, depth + 1, items);
    }
    case AvroNode::Type::kFixed: {
      CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadBytes(node.size));
      *json += HexJson(b);
      return Status::OK();
    }
  }
  return in.Error("unknown Avro type");
}

}  // namespace

Status DecodeAvroJson(const AvroNode& node, DataInput& in, std::string* json) {
  uint64_t items = 0;
  return Decode(node, in, json, 0, &items);
}

}  // namespace ckpt::flink::internal
