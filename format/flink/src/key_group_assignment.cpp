// Key groups as Flink assigns them: see key_group_assignment.h. Java hashCodes: String: s[0]*31^(n-1)
// + ... over its UTF-16 code units (StringValue.writeString stores exactly those, as varints);
// Long: (int)(v ^ v >>> 32); Integer, Short, Byte, Character: the value; Boolean: 1231 / 1237;
// Double, Float: of doubleToLongBits / floatToIntBits (one canonical NaN); Tuple1..25: f0's hash,
// then result = 31 * result + f_i's hash (TupleSerializer writes the fields in order, never null);
// Row (RowUtils.deepHashCodeRow, as Flink 1.20 and 2.3 compute it, checked against their JVMs):
// 31 * the row kind's byte value + a = 1, a = 31 * a + (null: 0; else 31 + the field's hashCode,
// nested Rows alike) per field. RowSerializer writes a null mask (2 row-kind bits first if the rows
// carry their kind), then the non-null fields.
#include "ckpt/flink/key_group_assignment.h"

#include <cmath>
#include <cstring>

#include "builtin_serializers.h"

namespace ckpt::flink {
namespace {

using internal::SerializerKind;

// A Flink tuple class exactly (a subclass could override hashCode()).
bool IsFlinkTupleClass(const std::string& outer) {
  static constexpr std::string_view kPrefix = "org.apache.flink.api.java.tuple.Tuple";
  if (outer.size() <= kPrefix.size() || outer.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  const std::string n = outer.substr(kPrefix.size());
  if (n.size() > 2 || n[0] == '0') return false;
  for (char c : n) {
    if (c < '0' || c > '9') return false;
  }
  const int arity = std::stoi(n);
  return arity >= 1 && arity <= 25;
}

// The kind of `s` if its values' Java hashCode() is known here, else kUnknown: the primitives,
// String, Row, and Flink's own Tuple1..25 (not a subclass).
SerializerKind HashableKindOf(const SerializerSnapshot& s) {
  const SerializerKind k = internal::SerializerKindOf(s);
  switch (k) {
    case SerializerKind::kLong:
    case SerializerKind::kInt:
    case SerializerKind::kShort:
    case SerializerKind::kByte:
    case SerializerKind::kBool:
    case SerializerKind::kDouble:
    case SerializerKind::kFloat:
    case SerializerKind::kChar:
    case SerializerKind::kString:
    case SerializerKind::kRow:
      return k;
    case SerializerKind::kTuple: {
      const std::string arity_class =
          "org.apache.flink.api.java.tuple.Tuple" + std::to_string(s.nested.size());
      return IsFlinkTupleClass(s.outer) && s.outer == arity_class ? k : SerializerKind::kUnknown;
    }
    default:
      return SerializerKind::kUnknown;
  }
}

int32_t OfLong(int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  return static_cast<int32_t>(static_cast<uint32_t>(u ^ (u >> 32)));
}

uint32_t RotL(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

}  // namespace

int32_t FlinkMurmurHash(int32_t code) {
  uint32_t h = static_cast<uint32_t>(code);
  h *= 0xcc9e2d51u;
  h = RotL(h, 15);
  h *= 0x1b873593u;
  h = RotL(h, 13);
  h = h * 5 + 0xe6546b64u;
  h ^= 4;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  const int32_t s = static_cast<int32_t>(h);
  if (s >= 0) return s;
  if (s != INT32_MIN) return -s;
  return 0;
}

KeyGroupSpan KeyGroupSpanOfSubtask(int32_t max_parallelism, int32_t parallelism, int32_t index) {
  const int64_t m = max_parallelism;
  const int64_t p = parallelism;
  KeyGroupSpan s;
  s.start = static_cast<int32_t>((index * m + p - 1) / p);
  s.end = static_cast<int32_t>(((index + 1) * m - 1) / p);
  return s;
}

std::string UnhashableSerializer(const SerializerSnapshot& s) {
  const SerializerKind k = HashableKindOf(s);
  if (k == SerializerKind::kUnknown)
    return s.class_name.empty() ? std::string("(unknown serializer)") : s.class_name;
  if (k == SerializerKind::kTuple || k == SerializerKind::kRow) {
    for (const auto& n : s.nested) {
      std::string bad = UnhashableSerializer(n);
      if (!bad.empty()) return bad;
    }
  }
  return "";
}

base::Result<int32_t> JavaHashCode(const SerializerSnapshot& s, DataInput& in) {
  switch (HashableKindOf(s)) {
    case SerializerKind::kLong: {
      CKPT_ASSIGN_OR_RETURN(int64_t v, in.ReadI64());
      return OfLong(v);
    }
    case SerializerKind::kInt: {
      CKPT_ASSIGN_OR_RETURN(int32_t v, in.ReadI32());
      return v;
    }
    case SerializerKind::kShort: {
      CKPT_ASSIGN_OR_RETURN(int16_t v, in.ReadI16());
      return static_cast<int32_t>(v);
    }
    case SerializerKind::kByte: {
      CKPT_ASSIGN_OR_RETURN(int8_t v, in.ReadI8());
      return static_cast<int32_t>(v);
    }
    case SerializerKind::kBool: {
      CKPT_ASSIGN_OR_RETURN(bool v, in.ReadBool());
      return v ? 1231 : 1237;
    }
    case SerializerKind::kChar: {
      CKPT_ASSIGN_OR_RETURN(uint16_t v, in.ReadU16());
      return static_cast<int32_t>(v);
    }
    case SerializerKind::kDouble: {
      CKPT_ASSIGN_OR_RETURN(double v, in.ReadF64());
      uint64_t bits = 0x7ff8000000000000ull;  // doubleToLongBits: one NaN
      if (!std::isnan(v)) std::memcpy(&bits, &v, sizeof bits);
      return OfLong(static_cast<int64_t>(bits));
    }
    case SerializerKind::kFloat: {
      CKPT_ASSIGN_OR_RETURN(float v, in.ReadF32());
      uint32_t bits = 0x7fc00000u;  // floatToIntBits: one NaN
      if (!std::isnan(v)) std::memcpy(&bits, &v, sizeof bits);
      return static_cast<int32_t>(bits);
    }
    case SerializerKind::kString: {
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(uint32_t len, internal::ReadStringValueVarint(in, "a String key"));
      if (len == 0) return in.Error(at, "a null String key");
      if (len - 1 > in.remaining()) return in.Error(at, "String key length exceeds the bytes left");
      uint32_t h = 0;
      for (uint32_t i = 0; i + 1 < len; ++i) {
        CKPT_ASSIGN_OR_RETURN(uint32_t c, internal::ReadStringValueVarint(in, "a String key"));
        if (c > 0xFFFF) return in.Error("String key character out of range");
        h = 31 * h + c;
      }
      return static_cast<int32_t>(h);
    }
    case SerializerKind::kTuple: {
      uint32_t h = 0;
      for (size_t i = 0; i < s.nested.size(); ++i) {
        CKPT_ASSIGN_OR_RETURN(int32_t f, JavaHashCode(s.nested[i], in));
        h = i == 0 ? static_cast<uint32_t>(f) : 31 * h + static_cast<uint32_t>(f);
      }
      return static_cast<int32_t>(h);
    }
    case SerializerKind::kRow: {
      const size_t kind_bits = s.row_has_kind ? 2 : 0;
      const size_t bits = kind_bits + s.nested.size();
      CKPT_ASSIGN_OR_RETURN(std::string_view mask, in.ReadBytes((bits + 7) / 8));
      auto bit = [&](size_t i) { return (static_cast<uint8_t>(mask[i / 8]) >> (7 - i % 8)) & 1u; };
      const uint32_t kind = kind_bits == 0 ? 0u : (bit(0) | bit(1) << 1);  // RowKind.toByteValue()
      uint32_t a = 1;
      for (size_t i = 0; i < s.nested.size(); ++i) {
        uint32_t f = 0;
        if (!bit(kind_bits + i)) {
          CKPT_ASSIGN_OR_RETURN(int32_t v, JavaHashCode(s.nested[i], in));
          f = 31u + static_cast<uint32_t>(v);
        }
        a = 31 * a + f;
      }
      return static_cast<int32_t>(31 * kind + a);
    }
    default:
      break;
  }
  return base::Status::InvalidArgument("the Java hashCode() of keys serialized by " +
                                       UnhashableSerializer(s) + " is not known outside the JVM");
}

}  // namespace ckpt::flink
