// DecodeValue, SkipValue and the helpers shared with the encoder and the JSON renderer.
#include <cstring>
#include <string>
#include <utility>

#include "ckpt/base/endian.h"
#include "ckpt/format/value_codec.h"
#include "value_internal.h"

namespace ckpt::format {
namespace internal {

using base::Status;

Status CheckShape(const pb::TypeDescriptor& type, int depth) {
  if (depth > kMaxTypeDepth) {
    return Status::InvalidArgument("type nested deeper than " + std::to_string(kMaxTypeDepth));
  }
  const int n = type.elements_size();
  switch (type.kind()) {
    case pb::TypeDescriptor::INT64:
    case pb::TypeDescriptor::DOUBLE:
    case pb::TypeDescriptor::BOOL:
    case pb::TypeDescriptor::STRING:
    case pb::TypeDescriptor::BYTES:
    case pb::TypeDescriptor::VOID:
    case pb::TypeDescriptor::PROTO:
      if (n != 0) return Status::InvalidArgument("a scalar type has element types");
      return Status::OK();
    case pb::TypeDescriptor::TUPLE:
      return Status::OK();
    case pb::TypeDescriptor::LIST:
      if (n != 1) return Status::InvalidArgument("list needs exactly one element type");
      return Status::OK();
    case pb::TypeDescriptor::MAP:
      if (n != 2) return Status::InvalidArgument("map needs exactly two element types");
      return Status::OK();
    default:
      return Status::InvalidArgument("unknown type kind " + std::to_string(type.kind()));
  }
}

bool IsZeroWidth(const pb::TypeDescriptor& type) {
  if (type.kind() == pb::TypeDescriptor::VOID) return true;
  if (type.kind() != pb::TypeDescriptor::TUPLE) return false;
  for (const auto& e : type.elements()) {
    if (!IsZeroWidth(e)) return false;
  }
  return true;
}

std::string TypeNameAt(const pb::TypeDescriptor& type, int depth) {
  if (depth > kMaxTypeDepth) return "...";
  auto child = [&](int i) {
    return i < type.elements_size() ? TypeNameAt(type.elements(i), depth + 1) : "?";
  };
  switch (type.kind()) {
    case pb::TypeDescriptor::INT64: return "int64";
    case pb::TypeDescriptor::DOUBLE: return "double";
    case pb::TypeDescriptor::BOOL: return "bool";
    case pb::TypeDescriptor::STRING: return "string";
    case pb::TypeDescriptor::BYTES: return "bytes";
    case pb::TypeDescriptor::VOID: return "void";
    case pb::TypeDescriptor::PROTO: return "proto<" + type.proto_message_name() + ">";
    case pb::TypeDescriptor::LIST: return "list<" + child(0) + ">";
    case pb::TypeDescriptor::MAP: return "map<" + child(0) + ", " + child(1) + ">";
    case pb::TypeDescriptor::TUPLE: {
      std::string s = "tuple<";
      for (int i = 0; i < type.elements_size(); ++i) {
        if (i > 0) s += ", ";
        if (i < type.field_names_size() && !type.field_names(i).empty()) {
          s += type.field_names(i) + ": ";
        }
        s += child(i);
      }
      return s + ">";
    }
    default:
      return "unknown(" + std::to_string(type.kind()) + ")";
  }
}

bool ReadInt64(std::string_view* in, int64_t* v) {
  uint64_t raw = 0;
  if (!base::GetVarint64(in, &raw)) return false;
  *v = base::ZigZagDecode(raw);
  return true;
}

bool ReadDouble(std::string_view* in, double* v) {
  if (in->size() < 8) return false;
  const uint64_t bits = base::DecodeFixed64(in->data());
  std::memcpy(v, &bits, sizeof bits);
  in->remove_prefix(8);
  return true;
}

bool ReadBool(std::string_view* in, bool* v) {
  if (in->empty() || static_cast<uint8_t>((*in)[0]) > 1) return false;
  *v = (*in)[0] == 1;
  in->remove_prefix(1);
  return true;
}

bool ReadCount(std::string_view* in, uint64_t* count) {
  return base::GetVarint64(in, count) && *count <= in->size();
}

Status Malformed(const pb::TypeDescriptor& type, std::string_view what) {
  return Status::Corruption("malformed " + TypeNameAt(type, 1) + " value: " + std::string(what));
}

}  // namespace internal

namespace {

using base::Result;
using base::Status;
using internal::Malformed;

// Decodes (out != nullptr) or skips (out == nullptr) one value.
Status DecodeAt(const pb::TypeDescriptor& type, std::string_view* in, Value* out, int depth) {
  Status shape = internal::CheckShape(type, depth);
  if (!shape.ok()) return Status::Corruption("invalid type descriptor: " + shape.message());
  switch (type.kind()) {
    case pb::TypeDescriptor::INT64: {
      int64_t v = 0;
      if (!internal::ReadInt64(in, &v)) return Malformed(type, "bad varint");
      if (out) out->v = v;
      return Status::OK();
    }
    case pb::TypeDescriptor::DOUBLE: {
      double v = 0;
      if (!internal::ReadDouble(in, &v)) return Malformed(type, "truncated");
      if (out) out->v = v;
      return Status::OK();
    }
    case pb::TypeDescriptor::BOOL: {
      bool v = false;
      if (!internal::ReadBool(in, &v)) return Malformed(type, "not 0 or 1");
      if (out) out->v = v;
      return Status::OK();
    }
    case pb::TypeDescriptor::STRING:
    case pb::TypeDescriptor::BYTES:
    case pb::TypeDescriptor::PROTO: {
      std::string_view s;
      if (!base::GetLengthPrefixed(in, &s)) return Malformed(type, "length past the end");
      if (!out) return Status::OK();
      if (type.kind() == pb::TypeDescriptor::STRING) {
        out->v = std::string(s);
      } else if (type.kind() == pb::TypeDescriptor::BYTES) {
        out->v = format::Bytes{std::string(s)};
      } else {
        out->v = ProtoMessage{std::string(s)};
      }
      return Status::OK();
    }
    case pb::TypeDescriptor::VOID:
      if (out) out->v = Void{};
      return Status::OK();
    case pb::TypeDescriptor::TUPLE: {
      format::Tuple t;
      if (out) t.fields.resize(type.elements_size());
      for (int i = 0; i < type.elements_size(); ++i) {
        CKPT_RETURN_IF_ERROR(
            DecodeAt(type.elements(i), in, out ? &t.fields[i] : nullptr, depth + 1));
      }
      if (out) out->v = std::move(t);
      return Status::OK();
    }
    case pb::TypeDescriptor::LIST: {
      uint64_t count = 0;
      if (!internal::ReadCount(in, &count)) {
        return Malformed(type, "element count larger than the bytes left");
      }
      format::List l;
      // ReadCount bounded `count` by the bytes left, so this allocation is too.
      if (out) l.elements.resize(count);
      for (uint64_t i = 0; i < count; ++i) {
        CKPT_RETURN_IF_ERROR(
            DecodeAt(type.elements(0), in, out ? &l.elements[i] : nullptr, depth + 1));
      }
      if (out) out->v = std::move(l);
      return Status::OK();
    }
    case pb::TypeDescriptor::MAP: {
      uint64_t count = 0;
      if (!internal::ReadCount(in, &count)) {
        return Malformed(type, "entry count larger than the bytes left");
      }
      format::Map m;
      if (out) m.entries.resize(count);
      for (uint64_t i = 0; i < count; ++i) {
        CKPT_RETURN_IF_ERROR(
            DecodeAt(type.elements(0), in, out ? &m.entries[i].first : nullptr, depth + 1));
        CKPT_RETURN_IF_ERROR(
            DecodeAt(type.elements(1), in, out ? &m.entries[i].second : nullptr, depth + 1));
      }
      if (out) out->v = std::move(m);
      return Status::OK();
    }
    default:
      return Status::Corruption("invalid type descriptor: unknown kind");
  }
}

}  // namespace

Result<Value> DecodeValue(const pb::TypeDescriptor& type, std::string_view* in) {
  Value v;
  CKPT_RETURN_IF_ERROR(DecodeAt(type, in, &v, 1));
  return v;
}

Result<Value> DecodeValueExact(const pb::TypeDescriptor& type, std::string_view bytes) {
  CKPT_ASSIGN_OR_RETURN(Value v, DecodeValue(type, &bytes));
  if (!bytes.empty()) {
    return Status::Corruption("malformed " + TypeName(type) + " value: " +
                              std::to_string(bytes.size()) + " trailing bytes");
  }
  return v;
}

Status SkipValue(const pb::TypeDescriptor& type, std::string_view* in) {
  return DecodeAt(type, in, nullptr, 1);
}

}  // namespace ckpt::format
