// DecodeValueJson: the wire formats of Flink's built-in serializers (LongSerializer: i64 BE;
// StringSerializer: StringValue.writeString; ListSerializer: i32 n + elements; MapSerializer:
// i32 n + (key, bool isNull, value); TupleSerializer: fields in order; TimeWindow: i64 start,
// i64 end; VoidNamespace: one byte; TtlSerializer: i64 last access, then the value;
// RowSerializer: a null mask (2 row-kind bits first if the rows carry their kind), then
// the non-null fields).
#include "ckpt/flink/value_decoder.h"

#include <cmath>
#include <cstdio>

#include "builtin_serializers.h"
#include "extra_serializers.h"
#include "ckpt/base/json_quote.h"
#include "table_serializers.h"

namespace ckpt::flink {
namespace {

using base::Status;
using internal::ReadStringValueVarint;
using internal::SerializerKind;
using internal::SerializerKindOf;

void AppendString(std::string_view s, std::string* out) { base::AppendJsonQuoted(s, out); }

void AppendDouble(double d, std::string* out) {
  if (!std::isfinite(d)) {
    AppendString(std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity"), out);
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  *out += buf;
}

void AppendCodeUnitUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace

bool CanDecode(const SerializerSnapshot& s) {
  const SerializerKind k = SerializerKindOf(s);
  if (k == SerializerKind::kUnknown) return false;
  if (k == SerializerKind::kTable) return internal::CanDecodeTable(s);
  for (const auto& n : s.nested) {
    if (!CanDecode(n)) return false;
  }
  return true;
}

int FixedLength(const SerializerSnapshot& s) {
  switch (SerializerKindOf(s)) {
    case SerializerKind::kLong:
    case SerializerKind::kDouble:
      return 8;
    case SerializerKind::kInt:
    case SerializerKind::kFloat:
      return 4;
    case SerializerKind::kShort:
    case SerializerKind::kChar:
      return 2;
    case SerializerKind::kByte:
    case SerializerKind::kBool:
    case SerializerKind::kVoid:
      return 1;
    case SerializerKind::kTimeWindow:
      return 16;
    case SerializerKind::kTtl: {
      const int l = FixedLength(s.nested[1]);
      return l < 0 ? -1 : 8 + l;
    }
    case SerializerKind::kTuple: {
      int sum = 0;
      for (const auto& n : s.nested) {
        const int l = FixedLength(n);
        if (l < 0) return -1;
        sum += l;
      }
      return sum;
    }
    default: return -1;
  }
}

std::string HexJson(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"0x";
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out + "\"";
}

Status DecodeValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json) {
  switch (SerializerKindOf(s)) {
    case SerializerKind::kLong: {
      CKPT_ASSIGN_OR_RETURN(int64_t v, in.ReadI64());
      *json += std::to_string(v);
      return Status::OK();
    }
    case SerializerKind::kInt: {
      CKPT_ASSIGN_OR_RETURN(int32_t v, in.ReadI32());
      *json += std::to_string(v);
      return Status::OK();
    }
    case SerializerKind::kShort: {
      CKPT_ASSIGN_OR_RETURN(int16_t v, in.ReadI16());
      *json += std::to_string(v);
      return Status::OK();
    }
    case SerializerKind::kByte: {
      CKPT_ASSIGN_OR_RETURN(int8_t v, in.ReadI8());
      *json += std::to_string(v);
      return Status::OK();
    }
    case SerializerKind::kBool: {
      CKPT_ASSIGN_OR_RETURN(bool v, in.ReadBool());
      *json += v ? "true" : "false";
      return Status::OK();
    }
    case SerializerKind::kDouble: {
      CKPT_ASSIGN_OR_RETURN(double v, in.ReadF64());
      AppendDouble(v, json);
      return Status::OK();
    }
    case SerializerKind::kFloat: {
      CKPT_ASSIGN_OR_RETURN(float v, in.ReadF32());
      AppendDouble(v, json);
      return Status::OK();
    }
    case SerializerKind::kChar: {
      CKPT_ASSIGN_OR_RETURN(uint16_t v, in.ReadU16());
      std::string c;
      AppendCodeUnitUtf8(v, &c);
      AppendString(c, json);
      return Status::OK();
    }
    case SerializerKind::kVoid: {
      CKPT_RETURN_IF_ERROR(in.ReadU8().status());
      *json += "null";
      return Status::OK();
    }
    case SerializerKind::kTimeWindow: {
      CKPT_ASSIGN_OR_RETURN(int64_t start, in.ReadI64());
      CKPT_ASSIGN_OR_RETURN(int64_t end, in.ReadI64());
      *json += "{\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) + "}";
      return Status::OK();
    }
    case SerializerKind::kString: {
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(uint32_t len, ReadStringValueVarint(in, "a String"));
      if (len == 0) { *json += "null"; return Status::OK(); }
      if (len - 1 > in.remaining()) return in.Error(at, "String length exceeds the bytes left");
      std::string text;
      for (uint32_t i = 0; i + 1 < len; ++i) {
        CKPT_ASSIGN_OR_RETURN(uint32_t c, ReadStringValueVarint(in, "a String"));
        if (c > 0xFFFF) return in.Error("String character out of range");
        AppendCodeUnitUtf8(c, &text);
      }
      AppendString(text, json);
      return Status::OK();
    }
    case SerializerKind::kBytes: {
      CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadLengthPrefixed());
      *json += HexJson(b);
      return Status::OK();
    }
    case SerializerKind::kTuple: {
      *json += "[";
      for (size_t i = 0; i < s.nested.size(); ++i) {
        if (i) *json += ",";
        CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[i], in, json));
      }
      *json += "]";
      return Status::OK();
    }
    case SerializerKind::kList: {
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("list size", 1));
      *json += "[";
      for (uint32_t i = 0; i < n; ++i) {
        if (i) *json += ",";
        CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[0], in, json));
      }
      *json += "]";
      return Status::OK();
    }
    case SerializerKind::kMap: {
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("map size", 2));
      *json += "[";
      for (uint32_t i = 0; i < n; ++i) {
        if (i) *json += ",";
        *json += "[";
        CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[0], in, json));
        *json += ",";
        CKPT_ASSIGN_OR_RETURN(bool is_null, in.ReadBool());
        if (is_null) {
          *json += "null";
        } else {
          CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[1], in, json));
        }
        *json += "]";
      }
      *json += "]";
      return Status::OK();
    }
    case SerializerKind::kTtl: {
      // TtlSerializer (a CompositeSerializer): the last access timestamp, then the user value.
      CKPT_ASSIGN_OR_RETURN(int64_t ts, in.ReadI64());
      *json += "{\"value\":";
      CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[1], in, json));
      *json += ",\"last_access\":" + std::to_string(ts) + "}";
      return Status::OK();
    }
    case SerializerKind::kRow: {
      // MaskUtils.writeMask: booleans packed most significant bit first; [row kind bit 0, row
      // kind bit 1,] then one "is null" bit per field.
      const size_t kind_bits = s.row_has_kind ? 2 : 0;
      const size_t bits = kind_bits + s.nested.size();
      CKPT_ASSIGN_OR_RETURN(std::string_view mask, in.ReadBytes((bits + 7) / 8));
      auto bit = [&](size_t i) { return (static_cast<uint8_t>(mask[i / 8]) >> (7 - i % 8)) & 1; };
      static const char* const kKinds[] = {"+I", "-U", "+U", "-D"};
      *json += "{\"kind\":\"";
      *json += kind_bits == 0 ? "+I" : kKinds[bit(0) | bit(1) << 1];
      *json += "\",\"fields\":[";
      for (size_t i = 0; i < s.nested.size(); ++i) {
        if (i) *json += ",";
        if (bit(kind_bits + i)) {
          *json += "null";
        } else {
          CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[i], in, json));
        }
      }
      *json += "]}";
      return Status::OK();
    }
    case SerializerKind::kPojo: {
      // PojoSerializer: u8 flags (1 null, 2 this class, 4 a subclass by name, 8 a registered
      // subclass by tag); this class: per field (snapshot order) bool isNull, then the value.
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(uint8_t flags, in.ReadU8());
      if (flags & 1) {
        *json += "null";
        return Status::OK();
      }
      if ((flags & 2) == 0) {
        return Status::Unimplemented(in.file() + ": at byte " + std::to_string(at) + ": a value of a subclass of " +
                                     s.outer + " (Pojo flags " + std::to_string(flags) +
                                     "): its serializer is not in the snapshot");
      }
      *json += "{";
      for (size_t i = 0; i < s.nested.size(); ++i) {
        if (i) *json += ",";
        AppendString(s.field_names[i], json);
        *json += ":";
        CKPT_ASSIGN_OR_RETURN(bool is_null, in.ReadBool());
        if (is_null) {
          *json += "null";
        } else {
          CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[i], in, json));
        }
      }
      *json += "}";
      return Status::OK();
    }
    case SerializerKind::kTable:
      return internal::DecodeTableValueJson(s, in, json);
    case SerializerKind::kStreamElement:
    case SerializerKind::kJava:
    case SerializerKind::kAvro:
    case SerializerKind::kCep:
      return internal::DecodeExtraValueJson(s, in, json);
    case SerializerKind::kUnknown:
      break;
  }
  return in.Error("serializer " + s.class_name + " is not decodable");
}

}  // namespace ckpt::flink
