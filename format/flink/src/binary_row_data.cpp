// Flink's binary table formats (BinaryRowData, BinaryArrayData, BinaryMapData; BinarySegmentUtils)
// read from one byte range. The writer's memory segments are native (little-endian) order.
//   BinaryRowData: null bit set of ((arity + 63 + 8) / 64) * 8 bytes whose first byte is the
//     RowKind; field i's null bit is bit (i + 8), least significant bit first; then one 8-byte
//     slot per field; then the variable-length part. A slot holds a fixed-length value
//     (BOOLEAN/TINYINT: 1 byte, SMALLINT: 2, INT/DATE/TIME/FLOAT/INTERVAL YEAR TO MONTH: 4,
//     BIGINT/DOUBLE/INTERVAL DAY TO SECOND, compact DECIMAL (precision <= 18, the unscaled long),
//     compact TIMESTAMP (precision <= 3, epoch millis): 8) or offset << 32 | size of a
//     variable-length value relative to the row's start. Strings and byte strings of at most 7
//     bytes are inline: the slot's highest bit is set, bits 56-62 hold the length and the bytes
//     are the slot's first bytes. A non-compact TIMESTAMP's slot is offset << 32 | nanoOfMilli
//     and the millis are 8 bytes at the offset; a non-compact DECIMAL's are the unscaled
//     BigInteger's big-endian two's complement bytes.
//   BinaryArrayData: i32 size, null bits in ((size + 31) / 32) * 4 bytes, elements of the fixed
//     width of their type (1, 2, 4 or 8 bytes; variable-length ones as 8-byte slots like a row's,
//     offsets relative to the array's start), the variable part.
//   BinaryMapData: i32 size in bytes of the key array, the key BinaryArrayData, the value one.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "ckpt/base/json_quote.h"
#include "table_serializers.h"

namespace ckpt::flink::internal {
namespace binary_layout {

using base::Status;

constexpr int kMaxNesting = 32;

static const char* const kRowKinds[] = {"+I", "-U", "+U", "-D"};

// A bounded little-endian view of one binary structure.
class Segment {
 public:
  Segment(std::string_view bytes, uint64_t base, const std::string& file)
      : bytes_(bytes), base_(base), file_(file) {}

  Status Need(uint64_t at, uint64_t n, const std::string& what) const {
    if (at > bytes_.size() || n > bytes_.size() - at) {
      return Error(at, what + " (" + std::to_string(n) + " bytes) runs past the end of the " +
                           std::to_string(bytes_.size()) + "-byte structure");
    }
    return Status::OK();
  }
  Status Error(uint64_t at, const std::string& what) const {
    return Status::Corruption(file_ + ": at byte " + std::to_string(base_ + at) + ": " + what);
  }
  template <typename T>
  T Load(uint64_t at) const {  // caller checked Need
    T v;
    std::memcpy(&v, bytes_.data() + at, sizeof v);
    return v;
  }
  bool Bit(uint64_t byte_at, size_t index) const {
    return (static_cast<uint8_t>(bytes_[byte_at + index / 8]) >> (index % 8)) & 1;
  }
  // The bytes of a variable-length value named by the slot at `slot_at`: inline when the mark
  // bit is set (only strings and byte strings may be: `inline_ok`), else offset << 32 | size.
  base::Result<Segment> Variable(uint64_t slot_at, bool inline_ok, const char* what) const {
    const uint64_t slot = Load<uint64_t>(slot_at);
    if (slot >> 63) {
      if (!inline_ok) return Error(slot_at, std::string(what) + ": slot marked inline");
      const uint64_t len = (slot >> 56) & 0x7F;
      if (len > 7) {
        return Error(slot_at, std::string(what) + ": inline length " + std::to_string(len) + " > 7");
      }
      return Segment(bytes_.substr(slot_at, len), base_ + slot_at, file_);
    }
    const uint64_t off = slot >> 32, size = slot & 0xFFFFFFFFu;
    if (off > bytes_.size() || size > bytes_.size() - off) {
      return Error(slot_at, std::string(what) + ": offset " + std::to_string(off) + " size " +
                                std::to_string(size) + " lies outside the " +
                                std::to_string(bytes_.size()) + "-byte structure");
    }
    return Segment(bytes_.substr(off, size), base_ + off, file_);
  }
  std::string_view bytes() const { return bytes_; }
  uint64_t base() const { return base_; }
  const std::string& file() const { return file_; }

 private:
  std::string_view bytes_;
  uint64_t base_;
  const std::string& file_;
};

void AppendFloating(double d, std::string* out) {
  if (!std::isfinite(d)) {
    base::AppendJsonQuoted(std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity"), out);
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  *out += buf;
}

std::string Hex(std::string_view b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"0x";
  for (unsigned char c : b) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out + "\"";
}

const LogicalType& Resolve(const LogicalType& t) {
  return t.root == LogicalTypeRoot::kDistinctType ? *t.children[0] : t;
}

Status RowJson(const std::vector<const LogicalType*>& types, const std::vector<std::string>& names,
               const Segment& seg, int depth, std::string* json);
Status ArrayJson(const LogicalType& element, const Segment& seg, int depth, std::string* json);
Status MapJson(const LogicalType& key, const LogicalType& value, const Segment& seg, int depth,
               std::string* json);

// One value of `type` whose fixed-width part is at `at` (`width` bytes readable there: 8 in a
// row, the element width in an array).
Status ValueJson(const LogicalType& type0, const Segment& seg, uint64_t at, int depth,
                 std::string* json) {
  const LogicalType& t = Resolve(type0);
  if (depth > kMaxNesting) return seg.Error(at, "values nested too deeply");
  switch (t.root) {
    case LogicalTypeRoot::kBoolean: *json += seg.Load<uint8_t>(at) ? "true" : "false"; return Status::OK();
    case LogicalTypeRoot::kTinyInt: *json += std::to_string(seg.Load<int8_t>(at)); return Status::OK();
    case LogicalTypeRoot::kSmallInt: *json += std::to_string(seg.Load<int16_t>(at)); return Status::OK();
    case LogicalTypeRoot::kInteger:
    case LogicalTypeRoot::kIntervalYearMonth: *json += std::to_string(seg.Load<int32_t>(at)); return Status::OK();
    case LogicalTypeRoot::kBigInt:
    case LogicalTypeRoot::kIntervalDayTime: *json += std::to_string(seg.Load<int64_t>(at)); return Status::OK();
    case LogicalTypeRoot::kFloat: AppendFloating(seg.Load<float>(at), json); return Status::OK();
    case LogicalTypeRoot::kDouble: AppendFloating(seg.Load<double>(at), json); return Status::OK();
    case LogicalTypeRoot::kDate: base::AppendJsonQuoted(FormatDate(seg.Load<int32_t>(at)), json); return Status::OK();
    case LogicalTypeRoot::kTimeWithoutTimeZone: {
      const int32_t millis = seg.Load<int32_t>(at);
      if (millis < 0 || millis >= 86400000) {
        return seg.Error(at, "TIME value " + std::to_string(millis) + " ms is not a time of day");
      }
      base::AppendJsonQuoted(FormatTime(millis, t.precision), json);
      return Status::OK();
    }
    case LogicalTypeRoot::kTimestampWithoutTimeZone:
    case LogicalTypeRoot::kTimestampWithLocalTimeZone: {
      const std::string zone = t.root == LogicalTypeRoot::kTimestampWithLocalTimeZone ? "Z" : "";
      if (t.precision <= 3) {
        base::AppendJsonQuoted(FormatTimestamp(seg.Load<int64_t>(at), 0, t.precision) + zone, json);
        return Status::OK();
      }
      const uint64_t slot = seg.Load<uint64_t>(at);
      const uint64_t off = slot >> 32;
      const int32_t nano = static_cast<int32_t>(slot & 0xFFFFFFFFu);
      if (off > seg.bytes().size() || seg.bytes().size() - off < 8) {
        return seg.Error(at, "timestamp millis at offset " + std::to_string(off) + " lie outside the structure");
      }
      if (nano < 0 || nano > 999999) return seg.Error(at, "nano of millisecond " + std::to_string(nano) + " out of range");
      base::AppendJsonQuoted(FormatTimestamp(seg.Load<int64_t>(off), nano, t.precision) + zone, json);
      return Status::OK();
    }
    case LogicalTypeRoot::kDecimal: {
      if (t.precision <= 18) {
        AppendUnscaledLongJson(seg.Load<int64_t>(at), t.scale, json);
        return Status::OK();
      }
      CKPT_ASSIGN_OR_RETURN(Segment d, seg.Variable(at, false, "DECIMAL"));
      if (d.bytes().empty()) return seg.Error(at, "DECIMAL with no bytes");
      AppendDecimalJson(d.bytes(), t.scale, json);
      return Status::OK();
    }
    case LogicalTypeRoot::kChar:
    case LogicalTypeRoot::kVarChar: {
      CKPT_ASSIGN_OR_RETURN(Segment s, seg.Variable(at, true, "string"));
      base::AppendJsonQuoted(s.bytes(), json);
      return Status::OK();
    }
    case LogicalTypeRoot::kBinary:
    case LogicalTypeRoot::kVarBinary: {
      CKPT_ASSIGN_OR_RETURN(Segment s, seg.Variable(at, true, "byte string"));
      *json += Hex(s.bytes());
      return Status::OK();
    }
    case LogicalTypeRoot::kRaw: {
      CKPT_ASSIGN_OR_RETURN(Segment s, seg.Variable(at, false, "RAW value"));
      *json += Hex(s.bytes());
      return Status::OK();
    }
    case LogicalTypeRoot::kArray: {
      CKPT_ASSIGN_OR_RETURN(Segment s, seg.Variable(at, false, "ARRAY"));
      return ArrayJson(*t.children[0], s, depth + 1, json);
    }
    case LogicalTypeRoot::kMap: {
      CKPT_ASSIGN_OR_RETURN(Segment s, seg.Variable(at, false, "MAP"));
      return MapJson(*t.children[0], *t.children[1], s, depth + 1, json);
    }
    case LogicalTypeRoot::kMultiset: {
      CKPT_ASSIGN_OR_RETURN(Segment s, seg.Variable(at, false, "MULTISET"));
      static const LogicalType kCount = [] {
        LogicalType c;
        c.root = LogicalTypeRoot::kInteger;
        c.nullable = false;
        return c;
      }();
      return MapJson(*t.children[0], kCount, s, depth + 1, json);
    }
    case LogicalTypeRoot::kRow:
    case LogicalTypeRoot::kStructuredType: {
      CKPT_ASSIGN_OR_RETURN(Segment s, seg.Variable(at, false, "ROW"));
      std::vector<const LogicalType*> types;
      std::vector<std::string> names;
      for (const auto& f : t.fields) {
        types.push_back(f.type.get());
        names.push_back(f.name);
      }
      return RowJson(types, names, s, depth + 1, json);
    }
    case LogicalTypeRoot::kNull: *json += "null"; return Status::OK();
    default:
      return seg.Error(at, "values of type " + t.SummaryString() + " are not decoded");
  }
}

Status RowJson(const std::vector<const LogicalType*>& types, const std::vector<std::string>& names,
               const Segment& seg, int depth, std::string* json) {
  const uint64_t arity = types.size();
  const uint64_t null_bytes = ((arity + 63 + 8) / 64) * 8;
  CKPT_RETURN_IF_ERROR(seg.Need(0, null_bytes + 8 * arity,
                                "BinaryRowData of " + std::to_string(arity) + " fields"));
  const uint8_t kind = seg.Load<uint8_t>(0);
  if (kind > 3) return seg.Error(0, "row kind byte " + std::to_string(kind) + " is not a RowKind");
  *json += "{\"kind\":\"";
  *json += kRowKinds[kind];
  *json += "\",\"fields\":{";
  for (uint64_t i = 0; i < arity; ++i) {
    if (i) *json += ",";
    base::AppendJsonQuoted(names[i], json);
    *json += ":";
    if (seg.Bit(0, i + 8)) {
      *json += "null";
      continue;
    }
    CKPT_RETURN_IF_ERROR(ValueJson(*types[i], seg, null_bytes + 8 * i, depth, json));
  }
  *json += "}}";
  return Status::OK();
}

// BinaryArrayData.calculateFixLengthPartSize.
uint64_t ElementWidth(const LogicalType& t0) {
  const LogicalType& t = Resolve(t0);
  switch (t.root) {
    case LogicalTypeRoot::kBoolean:
    case LogicalTypeRoot::kTinyInt: return 1;
    case LogicalTypeRoot::kSmallInt: return 2;
    case LogicalTypeRoot::kInteger:
    case LogicalTypeRoot::kFloat:
    case LogicalTypeRoot::kDate:
    case LogicalTypeRoot::kTimeWithoutTimeZone:
    case LogicalTypeRoot::kIntervalYearMonth: return 4;
    default: return 8;
  }
}

Status ArrayJson(const LogicalType& element, const Segment& seg, int depth, std::string* json) {
  CKPT_RETURN_IF_ERROR(seg.Need(0, 4, "BinaryArrayData size"));
  const int32_t size = seg.Load<int32_t>(0);
  if (size < 0) return seg.Error(0, "negative array size " + std::to_string(size));
  const uint64_t n = static_cast<uint64_t>(size);
  const uint64_t header = 4 + ((n + 31) / 32) * 4;
  const uint64_t width = ElementWidth(element);
  CKPT_RETURN_IF_ERROR(seg.Need(0, header + width * n, "BinaryArrayData of " + std::to_string(n) + " elements"));
  *json += "[";
  for (uint64_t i = 0; i < n; ++i) {
    if (i) *json += ",";
    if (seg.Bit(4, i)) {
      *json += "null";
      continue;
    }
    CKPT_RETURN_IF_ERROR(ValueJson(element, seg, header + width * i, depth, json));
  }
  *json += "]";
  return Status::OK();
}

// A map as [[key, value], ...] (keys need not be strings).
Status MapJson(const LogicalType& key, const LogicalType& value, const Segment& seg, int depth,
               std::string* json) {
  CKPT_RETURN_IF_ERROR(seg.Need(0, 4, "BinaryMapData key array size"));
  const int32_t key_bytes = seg.Load<int32_t>(0);
  if (key_bytes < 0 || static_cast<uint64_t>(key_bytes) > seg.bytes().size() - 4) {
    return seg.Error(0, "key array size " + std::to_string(key_bytes) + " exceeds the map");
  }
  const Segment keys(seg.bytes().substr(4, key_bytes), seg.base() + 4, seg.file());
  const Segment values(seg.bytes().substr(4 + key_bytes), seg.base() + 4 + key_bytes, seg.file());
  std::string k, v;
  CKPT_RETURN_IF_ERROR(ArrayJson(key, keys, depth + 1, &k));
  CKPT_RETURN_IF_ERROR(ArrayJson(value, values, depth + 1, &v));
  if (keys.Load<int32_t>(0) != values.Load<int32_t>(0)) {
    return seg.Error(0, "map with " + std::to_string(keys.Load<int32_t>(0)) + " keys but " +
                            std::to_string(values.Load<int32_t>(0)) + " values");
  }
  // Pair the two rendered arrays element by element: re-render per index to keep it simple.
  const int32_t n = keys.Load<int32_t>(0);
  const uint64_t kh = 4 + ((static_cast<uint64_t>(n) + 31) / 32) * 4;
  const uint64_t kw = ElementWidth(key), vw = ElementWidth(value);
  *json += "[";
  for (int32_t i = 0; i < n; ++i) {
    if (i) *json += ",";
    *json += "[";
    if (keys.Bit(4, i)) *json += "null";
    else CKPT_RETURN_IF_ERROR(ValueJson(key, keys, kh + kw * i, depth + 1, json));
    *json += ",";
    if (values.Bit(4, i)) *json += "null";
    else CKPT_RETURN_IF_ERROR(ValueJson(value, values, kh + vw * i, depth + 1, json));
    *json += "]";
  }
  *json += "]";
  return Status::OK();
}

}  // namespace binary_layout

using binary_layout::Segment;

base::Status BinaryRowJson(const LogicalTypes& types, const std::vector<std::string>& names,
                     std::string_view bytes, uint64_t base, const std::string& file,
                     std::string* json) {
  std::vector<const LogicalType*> raw;
  for (const auto& t : types) raw.push_back(t.get());
  return binary_layout::RowJson(raw, names, Segment(bytes, base, file), 0, json);
}

base::Status BinaryArrayJson(const LogicalType& element, std::string_view bytes, uint64_t base,
                       const std::string& file, std::string* json) {
  return binary_layout::ArrayJson(element, Segment(bytes, base, file), 0, json);
}

base::Status BinaryMapJson(const LogicalType& key, const LogicalType& value, std::string_view bytes,
                     uint64_t base, const std::string& file, std::string* json) {
  return binary_layout::MapJson(key, value, Segment(bytes, base, file), 0, json);
}

}  // namespace ckpt::flink::internal
