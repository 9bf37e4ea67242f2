#include "ckpt/format/value_codec.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <cstring>
#include <string>
#include <utility>

#include "ckpt/base/endian.h"
#include "value_internal.h"

namespace ckpt::format {

using base::Result;
using base::Status;

namespace types {
namespace {
pb::TypeDescriptor Of(pb::TypeDescriptor::Kind kind) {
  pb::TypeDescriptor t;
  t.set_kind(kind);
  return t;
}
}  // namespace

pb::TypeDescriptor Int64() { return Of(pb::TypeDescriptor::INT64); }
pb::TypeDescriptor Double() { return Of(pb::TypeDescriptor::DOUBLE); }
pb::TypeDescriptor Bool() { return Of(pb::TypeDescriptor::BOOL); }
pb::TypeDescriptor String() { return Of(pb::TypeDescriptor::STRING); }
pb::TypeDescriptor Bytes() { return Of(pb::TypeDescriptor::BYTES); }
pb::TypeDescriptor Void() { return Of(pb::TypeDescriptor::VOID); }
pb::TypeDescriptor Tuple(std::vector<pb::TypeDescriptor> fields, std::vector<std::string> names) {
  pb::TypeDescriptor t = Of(pb::TypeDescriptor::TUPLE);
  for (auto& f : fields) *t.add_elements() = std::move(f);
  for (auto& n : names) t.add_field_names(std::move(n));
  return t;
}
pb::TypeDescriptor List(pb::TypeDescriptor element) {
  pb::TypeDescriptor t = Of(pb::TypeDescriptor::LIST);
  *t.add_elements() = std::move(element);
  return t;
}
pb::TypeDescriptor Map(pb::TypeDescriptor key, pb::TypeDescriptor value) {
  pb::TypeDescriptor t = Of(pb::TypeDescriptor::MAP);
  *t.add_elements() = std::move(key);
  *t.add_elements() = std::move(value);
  return t;
}
pb::TypeDescriptor Proto(std::string message_name, std::string descriptor_set) {
  pb::TypeDescriptor t = Of(pb::TypeDescriptor::PROTO);
  t.set_proto_message_name(std::move(message_name));
  t.set_proto_descriptor_set(std::move(descriptor_set));
  return t;
}
}  // namespace types

namespace {

Status ValidateAt(const pb::TypeDescriptor& type, int depth, const std::string& where) {
  CKPT_RETURN_IF_ERROR(internal::CheckShape(type, depth));
  switch (type.kind()) {
    case pb::TypeDescriptor::TUPLE:
      if (type.field_names_size() != 0 && type.field_names_size() != type.elements_size()) {
        return Status::InvalidArgument(where + "tuple has " +
                                       std::to_string(type.field_names_size()) + " names for " +
                                       std::to_string(type.elements_size()) + " fields");
      }
      break;
    case pb::TypeDescriptor::LIST:
    case pb::TypeDescriptor::MAP:
      if (internal::IsZeroWidth(type.elements(0)) &&
          (type.kind() == pb::TypeDescriptor::LIST || internal::IsZeroWidth(type.elements(1)))) {
        return Status::InvalidArgument(where + TypeName(type) +
                                       ": elements must not encode to zero bytes");
      }
      break;
    case pb::TypeDescriptor::PROTO: {
      google::protobuf::FileDescriptorSet set;
      if (!set.ParseFromString(type.proto_descriptor_set())) {
        return Status::InvalidArgument(where + "proto descriptor set does not parse");
      }
      google::protobuf::DescriptorPool pool;
      for (const auto& file : set.file()) {
        if (pool.BuildFile(file) == nullptr) {
          return Status::InvalidArgument(where + "proto descriptor set: cannot build " +
                                         file.name());
        }
      }
      if (pool.FindMessageTypeByName(type.proto_message_name()) == nullptr) {
        return Status::InvalidArgument(where + "proto descriptor set has no message " +
                                       type.proto_message_name());
      }
      break;
    }
    default:
      break;
  }
  for (const auto& e : type.elements()) CKPT_RETURN_IF_ERROR(ValidateAt(e, depth + 1, where));
  return Status::OK();
}

template <typename T>
const T* As(const Value& v) {
  return std::get_if<T>(&v.v);
}

Status Mismatch(const pb::TypeDescriptor& type, const char* what) {
  return Status::InvalidArgument("value does not match type " + TypeName(type) + ": " + what);
}

Status EncodeAt(const pb::TypeDescriptor& type, const Value& value, std::string* out,
                int depth) {
  CKPT_RETURN_IF_ERROR(internal::CheckShape(type, depth));
  // A LIST/MAP count never exceeds the bytes after it (decoders rely on it to bound
  // allocations), so elements that encode to nothing are refused.
  if ((type.kind() == pb::TypeDescriptor::LIST || type.kind() == pb::TypeDescriptor::MAP) &&
      internal::IsZeroWidth(type.elements(0)) &&
      (type.kind() == pb::TypeDescriptor::LIST || internal::IsZeroWidth(type.elements(1)))) {
    return Mismatch(type, "list/map elements must not encode to zero bytes");
  }
  switch (type.kind()) {
    case pb::TypeDescriptor::INT64:
      if (auto* x = As<int64_t>(value)) {
        base::PutVarint64(out, base::ZigZagEncode(*x));
        return Status::OK();
      }
      return Mismatch(type, "expected int64");
    case pb::TypeDescriptor::DOUBLE:
      if (auto* x = As<double>(value)) {
        uint64_t bits = 0;
        std::memcpy(&bits, x, sizeof bits);
        base::PutFixed64(out, bits);
        return Status::OK();
      }
      return Mismatch(type, "expected double");
    case pb::TypeDescriptor::BOOL:
      if (auto* x = As<bool>(value)) {
        out->push_back(*x ? 1 : 0);
        return Status::OK();
      }
      return Mismatch(type, "expected bool");
    case pb::TypeDescriptor::STRING:
      if (auto* x = As<std::string>(value)) {
        base::PutLengthPrefixed(out, *x);
        return Status::OK();
      }
      return Mismatch(type, "expected string");
    case pb::TypeDescriptor::BYTES:
      if (auto* x = As<format::Bytes>(value)) {
        base::PutLengthPrefixed(out, x->data);
        return Status::OK();
      }
      return Mismatch(type, "expected bytes");
    case pb::TypeDescriptor::VOID:
      if (As<Void>(value) != nullptr) return Status::OK();
      return Mismatch(type, "expected void");
    case pb::TypeDescriptor::PROTO:
      if (auto* x = As<ProtoMessage>(value)) {
        base::PutLengthPrefixed(out, x->wire_bytes);
        return Status::OK();
      }
      return Mismatch(type, "expected a protobuf message");
    case pb::TypeDescriptor::TUPLE: {
      auto* x = As<format::Tuple>(value);
      if (x == nullptr) return Mismatch(type, "expected tuple");
      if (static_cast<int>(x->fields.size()) != type.elements_size()) {
        return Mismatch(type, "wrong number of tuple fields");
      }
      for (int i = 0; i < type.elements_size(); ++i) {
        CKPT_RETURN_IF_ERROR(EncodeAt(type.elements(i), x->fields[i], out, depth + 1));
      }
      return Status::OK();
    }
    case pb::TypeDescriptor::LIST: {
      auto* x = As<format::List>(value);
      if (x == nullptr) return Mismatch(type, "expected list");
      base::PutVarint64(out, x->elements.size());
      for (const Value& e : x->elements) {
        CKPT_RETURN_IF_ERROR(EncodeAt(type.elements(0), e, out, depth + 1));
      }
      return Status::OK();
    }
    case pb::TypeDescriptor::MAP: {
      auto* x = As<format::Map>(value);
      if (x == nullptr) return Mismatch(type, "expected map");
      base::PutVarint64(out, x->entries.size());
      for (const auto& [k, v] : x->entries) {
        CKPT_RETURN_IF_ERROR(EncodeAt(type.elements(0), k, out, depth + 1));
        CKPT_RETURN_IF_ERROR(EncodeAt(type.elements(1), v, out, depth + 1));
      }
      return Status::OK();
    }
    default:
      return Status::InvalidArgument("unknown type kind " + std::to_string(type.kind()));
  }
}

}  // namespace

Status ValidateType(const pb::TypeDescriptor& type) {
  Status s = ValidateAt(type, 1, "");
  if (!s.ok()) return Status::InvalidArgument("invalid type " + TypeName(type) + ": " + s.message());
  return s;
}

Status EncodeValue(const pb::TypeDescriptor& type, const Value& value, std::string* out) {
  return EncodeAt(type, value, out, 1);
}

Result<std::string> EncodeValue(const pb::TypeDescriptor& type, const Value& value) {
  std::string out;
  CKPT_RETURN_IF_ERROR(EncodeValue(type, value, &out));
  return out;
}

std::string TypeName(const pb::TypeDescriptor& type) {
  return internal::TypeNameAt(type, 1);
}

}  // namespace ckpt::format
