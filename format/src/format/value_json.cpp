#include "ckpt/format/value_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/json_util.h>

#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "ckpt/base/endian.h"
#include "ckpt/base/json_quote.h"
#include "ckpt/format/value_codec.h"
#include "value_internal.h"

namespace ckpt::format {
namespace {

using base::Result;
using base::Status;
using internal::Malformed;

void AppendBase64(std::string_view in, std::string* out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out->push_back('"');
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(in[i]) << 16) |
                       (static_cast<uint8_t>(in[i + 1]) << 8) | static_cast<uint8_t>(in[i + 2]);
    out->push_back(kAlphabet[(n >> 18) & 63]);
    out->push_back(kAlphabet[(n >> 12) & 63]);
    out->push_back(kAlphabet[(n >> 6) & 63]);
    out->push_back(kAlphabet[n & 63]);
  }
  if (i < in.size()) {
    uint32_t n = static_cast<uint8_t>(in[i]) << 16;
    if (i + 1 < in.size()) n |= static_cast<uint8_t>(in[i + 1]) << 8;
    out->push_back(kAlphabet[(n >> 18) & 63]);
    out->push_back(kAlphabet[(n >> 12) & 63]);
    out->push_back(i + 1 < in.size() ? kAlphabet[(n >> 6) & 63] : '=');
    out->push_back('=');
  }
  out->push_back('"');
}

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// Numbers where JSON has them; NaN and the infinities as protobuf's JSON mapping spells them.
void AppendDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    out->append("\"NaN\"");
  } else if (std::isinf(v)) {
    out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  } else {
    char buf[40];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out->append(buf, r.ptr);
  }
}

// A descriptor pool and message factory per (message, descriptor set), built once per thread:
// building them costs far more than rendering one message.
struct ProtoRenderer {
  google::protobuf::DescriptorPool pool;
  google::protobuf::DynamicMessageFactory factory{&pool};
  const google::protobuf::Message* prototype = nullptr;
};

Result<const ProtoRenderer*> RendererFor(const pb::TypeDescriptor& type) {
  thread_local std::map<std::string, std::unique_ptr<ProtoRenderer>> cache;
  std::string key = type.proto_message_name();
  key.push_back('\0');
  key += type.proto_descriptor_set();
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.get();
  auto r = std::make_unique<ProtoRenderer>();
  google::protobuf::FileDescriptorSet set;
  if (!set.ParseFromString(type.proto_descriptor_set())) {
    return Status::Corruption("proto descriptor set of " + type.proto_message_name() +
                              " does not parse");
  }
  for (const auto& file : set.file()) {
    if (r->pool.BuildFile(file) == nullptr) {
      return Status::Corruption("proto descriptor set: cannot build " + file.name());
    }
  }
  const auto* desc = r->pool.FindMessageTypeByName(type.proto_message_name());
  if (desc == nullptr) {
    return Status::Corruption("proto descriptor set has no message " + type.proto_message_name());
  }
  r->prototype = r->factory.GetPrototype(desc);
  if (cache.size() >= 16) cache.clear();  // bound memory: tools use a handful of types
  const ProtoRenderer* out = r.get();
  cache.emplace(std::move(key), std::move(r));
  return out;
}

Status AppendProtoJson(const pb::TypeDescriptor& type, std::string_view wire, std::string* out) {
  CKPT_ASSIGN_OR_RETURN(const ProtoRenderer* r, RendererFor(type));
  std::unique_ptr<google::protobuf::Message> msg(r->prototype->New());
  if (!msg->ParseFromArray(wire.data(), static_cast<int>(wire.size()))) {
    return Malformed(type, "protobuf wire bytes do not parse");
  }
  std::string json;
  auto st = google::protobuf::util::MessageToJsonString(*msg, &json);
  if (!st.ok()) return Malformed(type, std::string(st.message()));
  out->append(json);
  return Status::OK();
}

// Objects only for named, distinct fields (docs/values.md): never a JSON object with a duplicate
// or empty key.
bool AllFieldsNamed(const pb::TypeDescriptor& type) {
  if (type.elements_size() == 0 || type.field_names_size() != type.elements_size()) return false;
  for (int i = 0; i < type.field_names_size(); ++i) {
    if (type.field_names(i).empty()) return false;
    for (int j = 0; j < i; ++j) {
      if (type.field_names(j) == type.field_names(i)) return false;
    }
  }
  return true;
}

Status RenderAt(const pb::TypeDescriptor& type, std::string_view* in, std::string* out,
                int depth) {
  Status shape = internal::CheckShape(type, depth);
  if (!shape.ok()) return Status::Corruption("invalid type descriptor: " + shape.message());
  switch (type.kind()) {
    case pb::TypeDescriptor::INT64: {
      int64_t v = 0;
      if (!internal::ReadInt64(in, &v)) return Malformed(type, "bad varint");
      AppendInt(v, out);
      return Status::OK();
    }
    case pb::TypeDescriptor::DOUBLE: {
      double v = 0;
      if (!internal::ReadDouble(in, &v)) return Malformed(type, "truncated");
      AppendDouble(v, out);
      return Status::OK();
    }
    case pb::TypeDescriptor::BOOL: {
      bool v = false;
      if (!internal::ReadBool(in, &v)) return Malformed(type, "not 0 or 1");
      out->append(v ? "true" : "false");
      return Status::OK();
    }
    case pb::TypeDescriptor::STRING:
    case pb::TypeDescriptor::BYTES:
    case pb::TypeDescriptor::PROTO: {
      std::string_view s;
      if (!base::GetLengthPrefixed(in, &s)) return Malformed(type, "length past the end");
      if (type.kind() == pb::TypeDescriptor::STRING) {
        base::AppendJsonQuoted(s, out);
      } else if (type.kind() == pb::TypeDescriptor::BYTES) {
        AppendBase64(s, out);
      } else {
        return AppendProtoJson(type, s, out);
      }
      return Status::OK();
    }
    case pb::TypeDescriptor::VOID:
      out->append("null");
      return Status::OK();
    case pb::TypeDescriptor::TUPLE: {
      const bool named = AllFieldsNamed(type);
      out->push_back(named ? '{' : '[');
      for (int i = 0; i < type.elements_size(); ++i) {
        if (i > 0) out->push_back(',');
        if (named) {
          base::AppendJsonQuoted(type.field_names(i), out);
          out->push_back(':');
        }
        CKPT_RETURN_IF_ERROR(RenderAt(type.elements(i), in, out, depth + 1));
      }
      out->push_back(named ? '}' : ']');
      return Status::OK();
    }
    case pb::TypeDescriptor::LIST:
    case pb::TypeDescriptor::MAP: {
      const bool is_map = type.kind() == pb::TypeDescriptor::MAP;
      uint64_t count = 0;
      if (!internal::ReadCount(in, &count)) {
        return Malformed(type, "count larger than the bytes left");
      }
      out->push_back('[');
      for (uint64_t i = 0; i < count; ++i) {
        if (i > 0) out->push_back(',');
        if (is_map) out->push_back('[');
        CKPT_RETURN_IF_ERROR(RenderAt(type.elements(0), in, out, depth + 1));
        if (is_map) {
          out->push_back(',');
          CKPT_RETURN_IF_ERROR(RenderAt(type.elements(1), in, out, depth + 1));
          out->push_back(']');
        }
      }
      out->push_back(']');
      return Status::OK();
    }
    default:
      return Status::Corruption("invalid type descriptor: unknown kind");
  }
}

void AppendValue(const Value& value, std::string* out);

struct JsonVisitor {
  std::string* out;
  void operator()(const Void&) const { out->append("null"); }
  void operator()(int64_t v) const { AppendInt(v, out); }
  void operator()(double v) const { AppendDouble(v, out); }
  void operator()(bool v) const { out->append(v ? "true" : "false"); }
  void operator()(const std::string& v) const { base::AppendJsonQuoted(v, out); }
  void operator()(const Bytes& v) const { AppendBase64(v.data, out); }
  // Without its descriptor a message can only be shown as its wire bytes.
  void operator()(const ProtoMessage& v) const { AppendBase64(v.wire_bytes, out); }
  void operator()(const Tuple& v) const { Seq(v.fields); }
  void operator()(const List& v) const { Seq(v.elements); }
  void operator()(const Map& v) const {
    out->push_back('[');
    for (size_t i = 0; i < v.entries.size(); ++i) {
      if (i > 0) out->push_back(',');
      out->push_back('[');
      AppendValue(v.entries[i].first, out);
      out->push_back(',');
      AppendValue(v.entries[i].second, out);
      out->push_back(']');
    }
    out->push_back(']');
  }
  void Seq(const std::vector<Value>& values) const {
    out->push_back('[');
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendValue(values[i], out);
    }
    out->push_back(']');
  }
};

void AppendValue(const Value& value, std::string* out) { std::visit(JsonVisitor{out}, value.v); }

}  // namespace

Status AppendValueJson(const pb::TypeDescriptor& type, std::string_view bytes, std::string* out) {
  CKPT_RETURN_IF_ERROR(RenderAt(type, &bytes, out, 1));
  if (!bytes.empty()) {
    return Malformed(type, std::to_string(bytes.size()) + " trailing bytes");
  }
  return Status::OK();
}

Result<std::string> ValueBytesToJson(const pb::TypeDescriptor& type, std::string_view bytes) {
  std::string out;
  CKPT_RETURN_IF_ERROR(AppendValueJson(type, bytes, &out));
  return out;
}

std::string ValueToJson(const Value& value) {
  std::string out;
  AppendValue(value, &out);
  return out;
}

}  // namespace ckpt::format
