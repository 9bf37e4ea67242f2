// The table runtime's serializer snapshots and standalone value formats (table_serializers.h).
// Snapshot grammars (after the class name and version):
//   RowDataSerializerSnapshot        i32 n, n Java-serialized LogicalTypes (each its own stream,
//                                    AC ED 00 05 + one object), NestedSerializersSnapshotDelegate
//   ExternalSerializerSnapshot       composite: i32 magic, i32 outer version, a Java-serialized
//                                    DataType, the nested delegate (the internal serializer)
//   RawValueDataSerializerSnapshot   composite: magic, outer version, nested delegate
//   LinkedListSerializerSnapshot     composite: magic, outer version, boolean hasNullMask from
//                                    outer version 3 on, nested delegate
//   SortedMapSerializerSnapshot      a Java-serialized Comparator, nested delegate (key, value)
//   DecimalSerializerSnapshot        i32 precision, i32 scale
//   TimestampDataSerializerSnapshot  i32 precision
//   BinaryRowDataSerializerSnapshot  i32 number of fields
//   ArrayDataSerializerSnapshot      Java-serialized element LogicalType, Java-serialized element
//                                    TypeSerializer
//   MapDataSerializerSnapshot        key and value LogicalTypes, key and value TypeSerializers
//   StringData / NullSerializer / CountWindow / table TimeWindow snapshots: nothing.
// Values: RowData and BinaryRowData i32 length + BinaryRowData; StringData i32 length + UTF-8;
// DecimalData the unscaled long (precision <= 18) or i32 length + unscaled bytes; TimestampData
// i64 millis (precision <= 3) or i64 millis + i32 nano of milli; ArrayData / MapData i32 length +
// BinaryArrayData / BinaryMapData; RawValueData i32 length + the inner serializer's bytes;
// ExternalSerializer its internal serializer's value; SortedMap i32 n + (key, bool isNull,
// value); LinkedList i32 n + [null mask, MaskUtils bits] + the non-null elements; CountWindow
// i64 id; NullSerializer one byte.
#include "table_serializers.h"

#include "builtin_serializers.h"
#include "ckpt/base/json_quote.h"
#include "ckpt/flink/java_serialization.h"
#include "ckpt/flink/value_decoder.h"

namespace ckpt::flink::internal {
namespace table_snapshots {

using base::Result;
using base::Status;
using TypePtr = std::shared_ptr<const LogicalType>;

constexpr int32_t kCompositeSnapshotMagic = 0x000DE704;
// LinkedListSerializerSnapshot's `outer` when its lists carry a null mask.
constexpr const char* kNullMask = "null mask";

enum class Table {
  kNone, kRowData, kBinaryRowData, kStringData, kDecimal, kTimestamp, kArrayData, kMapData,
  kRawValue, kExternal, kLinkedList, kSortedMap, kNullSer, kCountWindow,
};

Table TableOf(const std::string& c) {
  struct Entry {
    const char* suffix;
    Table t;
  };
  static const Entry kTable[] = {
      {"typeutils.RowDataSerializer$RowDataSerializerSnapshot", Table::kRowData},
      {"BinaryRowDataSerializer$BinaryRowDataSerializerSnapshot", Table::kBinaryRowData},
      {"StringDataSerializer$StringDataSerializerSnapshot", Table::kStringData},
      {"DecimalDataSerializer$DecimalSerializerSnapshot", Table::kDecimal},
      {"TimestampDataSerializer$TimestampDataSerializerSnapshot", Table::kTimestamp},
      {"ArrayDataSerializer$ArrayDataSerializerSnapshot", Table::kArrayData},
      {"MapDataSerializer$MapDataSerializerSnapshot", Table::kMapData},
      {"RawValueDataSerializer$RawValueDataSerializerSnapshot", Table::kRawValue},
      {"ExternalSerializer$ExternalSerializerSnapshot", Table::kExternal},
      {"LinkedListSerializer$LinkedListSerializerSnapshot", Table::kLinkedList},
      {"table.runtime.typeutils.SortedMapSerializerSnapshot", Table::kSortedMap},
      {"NullSerializer$NullSerializerSnapshot", Table::kNullSer},
      {"CountWindow$Serializer$CountWindowSerializerSnapshot", Table::kCountWindow},
  };
  for (const Entry& e : kTable) {
    if (c.ends_with(e.suffix)) return e.t;
  }
  return Table::kNone;
}

std::shared_ptr<LogicalType> Simple(LogicalTypeRoot root, int32_t precision, int32_t scale = 0) {
  auto t = std::make_shared<LogicalType>();
  t->root = root;
  t->precision = precision;
  t->scale = scale;
  return t;
}

// One Java-serialized LogicalType (or a DataType, whose logicalType is taken) at `in`'s cursor.
Result<TypePtr> JavaType(DataInput& in, const std::string& what) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(JavaStream stream, ReadJavaObject(in));
  const JavaValue* root = stream.root();
  if (root == nullptr) return in.Error(at, what + ": empty Java stream");
  auto t = root->class_name().starts_with("org.apache.flink.table.types.logical.")
               ? LogicalTypeFromJava(*root)
               : LogicalTypeOfDataType(*root);
  if (!t.ok()) return in.Error(at, what + ": " + t.status().message());
  return *t;
}

// Savepoints of Flink 1.1x SQL jobs hold one byte (0) between ExternalSerializerSnapshot's
// DataType stream and its nested serializer snapshots, which the source of
// ExternalSerializerSnapshot.writeOuterSnapshot does not explain; it is passed when, and only
// when, it is a boolean byte directly followed by the nested snapshots' magic.
Status SkipExternalFlag(DataInput& in) {
  constexpr int32_t kNestedSnapshotsMagic = 0x001457FD;
  DataInput probe = in;
  auto flag = probe.ReadU8();
  if (!flag.ok() || *flag > 1) return Status::OK();
  auto magic = probe.ReadI32();
  if (magic.ok() && *magic == kNestedSnapshotsMagic) return in.Skip(1);
  return Status::OK();
}

Status Composite(DataInput& in, SerializerSnapshot* s) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t magic, in.ReadI32());
  if (magic != kCompositeSnapshotMagic) {
    return in.Error(at, s->class_name + ": composite serializer snapshot without its magic");
  }
  CKPT_ASSIGN_OR_RETURN(s->outer_version, in.ReadI32());
  return base::Status::OK();
}

}  // namespace table_snapshots

using table_snapshots::Table;
using table_snapshots::TableOf;

bool IsTableSnapshot(const std::string& class_name) { return TableOf(class_name) != Table::kNone; }

base::Status ReadTableSnapshot(DataInput& in, SerializerSnapshot* s,
                               const std::function<base::Status(SerializerSnapshot*)>& read_nested) {
  using table_snapshots::JavaType;
  using table_snapshots::Simple;
  switch (TableOf(s->class_name)) {
    case Table::kRowData: {
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("RowData field type count", 4));
      for (uint32_t i = 0; i < n; ++i) {
        CKPT_ASSIGN_OR_RETURN(auto t, JavaType(in, "RowData field " + std::to_string(i) + " type"));
        s->logical_types.push_back(std::move(t));
      }
      return read_nested(s);
    }
    case Table::kExternal: {
      CKPT_RETURN_IF_ERROR(table_snapshots::Composite(in, s));
      CKPT_ASSIGN_OR_RETURN(auto t, JavaType(in, "ExternalSerializer data type"));
      CKPT_RETURN_IF_ERROR(table_snapshots::SkipExternalFlag(in));
      s->logical_types.push_back(std::move(t));
      return read_nested(s);
    }
    case Table::kRawValue:
      CKPT_RETURN_IF_ERROR(table_snapshots::Composite(in, s));
      return read_nested(s);
    case Table::kLinkedList: {
      // hasNullMask: not before outer version 2, always at 2, its own boolean from 3 on.
      CKPT_RETURN_IF_ERROR(table_snapshots::Composite(in, s));
      bool null_mask = s->outer_version >= 2;
      if (s->outer_version >= 3) {
        CKPT_ASSIGN_OR_RETURN(null_mask, in.ReadBool());
      }
      if (null_mask) s->outer = table_snapshots::kNullMask;
      return read_nested(s);
    }
    case Table::kSortedMap: {
      const uint64_t at = in.offset();
      auto cmp = ReadJavaObject(in);
      if (!cmp.ok()) return in.Error(at, "SortedMap comparator: " + cmp.status().message());
      const JavaValue* root = cmp->root();
      if (root != nullptr) s->outer = root->class_name();
      return read_nested(s);
    }
    case Table::kDecimal: {
      CKPT_ASSIGN_OR_RETURN(int32_t p, in.ReadI32());
      CKPT_ASSIGN_OR_RETURN(int32_t sc, in.ReadI32());
      if (p < 1 || p > 38 || sc < 0 || sc > p) {
        return in.Error("DECIMAL(" + std::to_string(p) + ", " + std::to_string(sc) + ") is not a valid decimal type");
      }
      s->logical_types.push_back(Simple(LogicalTypeRoot::kDecimal, p, sc));
      return base::Status::OK();
    }
    case Table::kTimestamp: {
      CKPT_ASSIGN_OR_RETURN(int32_t p, in.ReadI32());
      if (p < 0 || p > 9) return in.Error("TIMESTAMP precision " + std::to_string(p) + " out of range");
      s->logical_types.push_back(Simple(LogicalTypeRoot::kTimestampWithoutTimeZone, p));
      return base::Status::OK();
    }
    case Table::kBinaryRowData:
      return in.ReadI32().status();
    case Table::kArrayData: {
      CKPT_ASSIGN_OR_RETURN(auto e, JavaType(in, "ArrayData element type"));
      CKPT_RETURN_IF_ERROR(ReadJavaObject(in).status());  // the element TypeSerializer object
      auto t = Simple(LogicalTypeRoot::kArray, 0);
      t->children.push_back(std::move(e));
      s->logical_types.push_back(std::move(t));
      return base::Status::OK();
    }
    case Table::kMapData: {
      CKPT_ASSIGN_OR_RETURN(auto k, JavaType(in, "MapData key type"));
      CKPT_ASSIGN_OR_RETURN(auto v, JavaType(in, "MapData value type"));
      CKPT_RETURN_IF_ERROR(ReadJavaObject(in).status());  // key TypeSerializer
      CKPT_RETURN_IF_ERROR(ReadJavaObject(in).status());  // value TypeSerializer
      auto t = Simple(LogicalTypeRoot::kMap, 0);
      t->children = {std::move(k), std::move(v)};
      s->logical_types.push_back(std::move(t));
      return base::Status::OK();
    }
    case Table::kStringData:
    case Table::kNullSer:
    case Table::kCountWindow:
      return base::Status::OK();
    case Table::kNone:
      break;
  }
  return in.Error(s->class_name + " is not a table serializer snapshot");
}

bool IsTableSerializer(const SerializerSnapshot& s) { return TableOf(s.class_name) != Table::kNone; }

bool CanDecodeTable(const SerializerSnapshot& s) {
  switch (TableOf(s.class_name)) {
    case Table::kRowData: return s.decoded;
    case Table::kStringData:
    case Table::kRawValue:
    case Table::kCountWindow:
    case Table::kNullSer:
      return s.decoded;
    case Table::kDecimal:
    case Table::kTimestamp:
    case Table::kArrayData:
    case Table::kMapData:
      return s.decoded && s.logical_types.size() == 1;
    case Table::kExternal:
    case Table::kLinkedList: return s.decoded && s.nested.size() == 1 && CanDecode(s.nested[0]);
    case Table::kSortedMap:
      return s.decoded && s.nested.size() == 2 && CanDecode(s.nested[0]) && CanDecode(s.nested[1]);
    default: return false;
  }
}

std::string TableDisplayName(const SerializerSnapshot& s) {
  std::string n = s.class_name.substr(s.class_name.find_last_of('.') + 1);
  n = n.substr(0, n.find('$'));
  if (TableOf(s.class_name) == Table::kRowData) {
    n += "(";
    for (size_t i = 0; i < s.logical_types.size(); ++i) {
      n += (i ? ", f" : "f") + std::to_string(i) + " " + s.logical_types[i]->SummaryString();
    }
    return n + ")";
  }
  if (!s.logical_types.empty()) n += "(" + s.logical_types[0]->SummaryString() + ")";
  if (!s.nested.empty()) {
    n += "<";
    for (size_t i = 0; i < s.nested.size(); ++i) n += (i ? ", " : "") + s.nested[i].DisplayName();
    n += ">";
  }
  return n;
}

base::Status DecodeTableValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json) {
  switch (TableOf(s.class_name)) {
    case Table::kRowData: {
      const uint64_t at = in.offset() + 4;
      CKPT_ASSIGN_OR_RETURN(std::string_view row, in.ReadLengthPrefixed());
      std::vector<std::string> names;
      for (size_t i = 0; i < s.logical_types.size(); ++i) names.push_back("f" + std::to_string(i));
      return BinaryRowJson(s.logical_types, names, row, at, in.file(), json);
    }
    case Table::kStringData: {
      CKPT_ASSIGN_OR_RETURN(std::string_view text, in.ReadLengthPrefixed());
      base::AppendJsonQuoted(text, json);
      return base::Status::OK();
    }
    case Table::kDecimal: {
      const LogicalType& t = *s.logical_types[0];
      if (t.precision <= 18) {
        CKPT_ASSIGN_OR_RETURN(int64_t unscaled, in.ReadI64());
        AppendUnscaledLongJson(unscaled, t.scale, json);
        return base::Status::OK();
      }
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(std::string_view bytes, in.ReadLengthPrefixed());
      if (bytes.empty()) return in.Error(at, "DECIMAL with no bytes");
      AppendDecimalJson(bytes, t.scale, json);
      return base::Status::OK();
    }
    case Table::kTimestamp: {
      const int32_t p = s.logical_types[0]->precision;
      CKPT_ASSIGN_OR_RETURN(int64_t millis, in.ReadI64());
      int32_t nano = 0;
      if (p > 3) {
        const uint64_t at = in.offset();
        CKPT_ASSIGN_OR_RETURN(nano, in.ReadI32());
        if (nano < 0 || nano > 999999) return in.Error(at, "nano of millisecond " + std::to_string(nano) + " out of range");
      }
      base::AppendJsonQuoted(FormatTimestamp(millis, nano, p), json);
      return base::Status::OK();
    }
    case Table::kArrayData:
    case Table::kMapData: {
      const uint64_t at = in.offset() + 4;
      CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadLengthPrefixed());
      const LogicalType& t = *s.logical_types[0];
      if (t.root == LogicalTypeRoot::kArray) return BinaryArrayJson(*t.children[0], b, at, in.file(), json);
      return BinaryMapJson(*t.children[0], *t.children[1], b, at, in.file(), json);
    }
    case Table::kRawValue: {
      const uint64_t at = in.offset() + 4;
      CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadLengthPrefixed());
      if (s.nested.size() == 1 && CanDecode(s.nested[0])) {
        DataInput inner(b, in.file(), at);
        std::string v;
        if (DecodeValueJson(s.nested[0], inner, &v).ok() && inner.at_end()) {
          *json += v;
          return base::Status::OK();
        }
      }
      *json += HexJson(b);
      return base::Status::OK();
    }
    case Table::kExternal: {
      // A ROW data type names the internal RowDataSerializer's fields.
      const SerializerSnapshot& inner = s.nested[0];
      const LogicalType* t = s.logical_types.empty() ? nullptr : s.logical_types[0].get();
      if (t != nullptr && t->root == LogicalTypeRoot::kRow && TableOf(inner.class_name) == Table::kRowData &&
          t->fields.size() == inner.logical_types.size()) {
        const uint64_t at = in.offset() + 4;
        CKPT_ASSIGN_OR_RETURN(std::string_view row, in.ReadLengthPrefixed());
        std::vector<std::string> names;
        for (const auto& f : t->fields) names.push_back(f.name);
        return BinaryRowJson(inner.logical_types, names, row, at, in.file(), json);
      }
      return DecodeValueJson(inner, in, json);
    }
    case Table::kSortedMap: {
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("sorted map size", 2));
      *json += "[";
      for (uint32_t i = 0; i < n; ++i) {
        *json += i ? ",[" : "[";
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
      return base::Status::OK();
    }
    case Table::kLinkedList: {
      // i32 n; with a null mask, MaskUtils.writeMask (n bits, most significant first, set = null);
      // the non-null elements.
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("linked list size", 0));
      std::string_view mask;
      if (s.outer == table_snapshots::kNullMask) {
        CKPT_ASSIGN_OR_RETURN(mask, in.ReadBytes((uint64_t{n} + 7) / 8));
      } else if (n > in.remaining()) {
        return in.Error("linked list size " + std::to_string(n) + " cannot fit in the " +
                        std::to_string(in.remaining()) + " bytes left");
      }
      *json += "[";
      for (uint32_t i = 0; i < n; ++i) {
        if (i) *json += ",";
        if (!mask.empty() && ((static_cast<uint8_t>(mask[i / 8]) >> (7 - i % 8)) & 1)) {
          *json += "null";
          continue;
        }
        CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[0], in, json));
      }
      *json += "]";
      return base::Status::OK();
    }
    case Table::kNullSer:  // one byte (0), read and ignored
      CKPT_RETURN_IF_ERROR(in.ReadU8().status());
      *json += "null";
      return base::Status::OK();
    case Table::kCountWindow: {
      CKPT_ASSIGN_OR_RETURN(int64_t id, in.ReadI64());
      *json += "{\"id\":" + std::to_string(id) + "}";
      return base::Status::OK();
    }
    default:
      break;
  }
  return in.Error("serializer " + s.class_name + " is not decodable");
}

}  // namespace ckpt::flink::internal
