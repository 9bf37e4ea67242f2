// Flink SQL state values (table_serializers.h): BinaryRowData, BinaryArrayData and BinaryMapData
// built byte by byte from BinaryRowWriter / BinarySegmentUtils' layout (little-endian segments),
// the standalone table serializers (RowData, StringData, TimestampData, DecimalData) through
// DecodeValueJson, their snapshot grammars through ReadStateMetaInfo, and a real Flink SQL
// savepoint (fixtures/flink/semi-anti-join-with-literal-agg-savepoint).
#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/logical_type.h"
#include "ckpt/flink/value_decoder.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "java_stream_bytes.h"
#include "table_serializers.h"

namespace ckpt::flink {
namespace {

using internal::BinaryRowJson;
using TypePtr = std::shared_ptr<const LogicalType>;
namespace jb = java_stream_bytes;
using java_bytes::I32;
using java_bytes::I64;
using java_bytes::Utf;

const std::string kRowDataSnapshot =
    "org.apache.flink.table.runtime.typeutils.RowDataSerializer$RowDataSerializerSnapshot";

TypePtr RdT(LogicalTypeRoot root, int32_t precision = 0, int32_t scale = 0) {
  auto t = std::make_shared<LogicalType>();
  t->root = root;
  t->precision = precision;
  t->scale = scale;
  t->length = LogicalType::kMaxLength;
  return t;
}

// Little-endian, as a memory segment holds it.
std::string RdLe(uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}
std::string RdSlot(uint64_t v, int n = 8) { return RdLe(v, n) + std::string(8 - n, '\0'); }
// A string of at most 7 bytes inside its slot: the bytes, then the mark bit and the length in the
// slot's highest byte.
std::string RdInlineSlot(const std::string& s) {
  return s + std::string(7 - s.size(), '\0') + std::string(1, static_cast<char>(0x80 | s.size()));
}
std::string RdOffsetSlot(uint64_t offset, uint64_t size_or_nano) { return RdLe(offset << 32 | size_or_nano, 8); }

// Header (RowKind byte, null bits of field i at bit i + 8) padded to the null bit set's width.
std::string RdHeader(uint8_t kind, size_t arity, const std::vector<size_t>& nulls) {
  std::string h(((arity + 63 + 8) / 64) * 8, '\0');
  h[0] = static_cast<char>(kind);
  for (size_t i : nulls) h[(i + 8) / 8] = static_cast<char>(h[(i + 8) / 8] | (1 << ((i + 8) % 8)));
  return h;
}

std::string RdRowJson(const std::vector<TypePtr>& types, const std::string& bytes, uint64_t base = 0) {
  std::vector<std::string> names;
  for (size_t i = 0; i < types.size(); ++i) names.push_back("f" + std::to_string(i));
  std::string json;
  const base::Status st = BinaryRowJson(types, names, bytes, base, "row.bin", &json);
  return st.ok() ? json : st.ToString();
}

TEST(FlinkRowDataTest, FixedLengthFieldsAndNulls) {
  using R = LogicalTypeRoot;
  const std::vector<TypePtr> types = {
      RdT(R::kBoolean), RdT(R::kTinyInt), RdT(R::kSmallInt), RdT(R::kInteger), RdT(R::kBigInt),
      RdT(R::kFloat), RdT(R::kDouble), RdT(R::kDate), RdT(R::kTimeWithoutTimeZone, 0),
      RdT(R::kTimestampWithoutTimeZone, 3), RdT(R::kDecimal, 10, 2), RdT(R::kInteger),
      RdT(R::kDecimal, 18, 4), RdT(R::kTimestampWithLocalTimeZone, 0)};
  const std::string row =
      RdHeader(0, types.size(), {11}) + RdSlot(1, 1) + RdSlot(0xFF, 1) + RdSlot(300, 2) + RdSlot(12, 4) +
      RdSlot(static_cast<uint64_t>(-5LL)) + RdSlot(0x3FC00000, 4) /* 1.5f */ +
      RdSlot(0x4002000000000000ULL) /* 2.25 */ + RdSlot(19753, 4) /* 2024-01-31 */ +
      RdSlot(45296000, 4) /* 12:34:56 */ + RdSlot(1706702400123ULL) + RdSlot(12345, 8) +
      RdSlot(0xDEADBEEF, 4) /* null: ignored */ + RdSlot(static_cast<uint64_t>(-5LL)) +
      RdSlot(0);
  EXPECT_EQ(RdRowJson(types, row),
            R"({"kind":"+I","fields":{"f0":true,"f1":-1,"f2":300,"f3":12,"f4":-5,"f5":1.5,)"
            R"("f6":2.25,"f7":"2024-01-31","f8":"12:34:56","f9":"2024-01-31 12:00:00.123",)"
            R"("f10":123.45,"f11":null,"f12":-0.0005,"f13":"1970-01-01 00:00:00Z"}})");
}

TEST(FlinkRowDataTest, VariableLengthFieldsInlineAndOutOfLine) {
  using R = LogicalTypeRoot;
  const std::vector<TypePtr> types = {RdT(R::kVarChar), RdT(R::kVarChar),
                                      RdT(R::kTimestampWithoutTimeZone, 9), RdT(R::kDecimal, 20, 2),
                                      RdT(R::kVarBinary), RdT(R::kVarChar)};
  // Fixed part: 8 + 6 * 8 = 56 bytes; then "hello world!" (12 bytes, padded to 16) at 56, the
  // timestamp's millis at 72, the decimal's two bytes at 80.
  const std::string row = RdHeader(1, 6, {}) + RdInlineSlot("abc") + RdOffsetSlot(56, 12) +
                          RdOffsetSlot(72, 456789) + RdOffsetSlot(80, 2) + RdInlineSlot("\x01\xff") +
                          RdInlineSlot("") + "hello world!" + std::string(4, '\0') +
                          RdLe(1706702400123ULL, 8) + "\xff\x00" + std::string(6, '\0');
  EXPECT_EQ(RdRowJson(types, row),
            R"({"kind":"-U","fields":{"f0":"abc","f1":"hello world!",)"
            R"("f2":"2024-01-31 12:00:00.123456789","f3":-2.56,"f4":"0x01ff","f5":""}})");
}

TEST(FlinkRowDataTest, ArraysMapsAndNestedRows) {
  using R = LogicalTypeRoot;
  auto array = std::make_shared<LogicalType>(*RdT(R::kArray));
  array->children = {RdT(R::kInteger)};
  auto map = std::make_shared<LogicalType>(*RdT(R::kMap));
  map->children = {RdT(R::kVarChar), RdT(R::kInteger)};
  auto nested = std::make_shared<LogicalType>(*RdT(R::kRow));
  nested->fields = {{"x", RdT(R::kBigInt), ""}};
  // BinaryArrayData [1, null, 3]: size, null bits (element 1), three 4-byte ints, padding.
  const std::string arr = RdLe(3, 4) + RdLe(0x02, 4) + RdLe(1, 4) + RdLe(0, 4) + RdLe(3, 4) + RdLe(0, 4);
  // BinaryMapData {"a": 7}: key array size in bytes, key array ["a"], value array [7].
  const std::string keys = RdLe(1, 4) + RdLe(0, 4) + RdInlineSlot("a");
  const std::string values = RdLe(1, 4) + RdLe(0, 4) + RdLe(7, 4) + RdLe(0, 4);
  const std::string mp = RdLe(keys.size(), 4) + keys + values;
  const std::string inner = RdHeader(2, 1, {}) + RdSlot(42);
  // Fixed part 8 + 3 * 8 = 32: array at 32 (24 bytes), map at 56 (36 -> 40), row at 96 (16).
  const std::string row = RdHeader(0, 3, {}) + RdOffsetSlot(32, arr.size()) + RdOffsetSlot(56, mp.size()) +
                          RdOffsetSlot(96, inner.size()) + arr + mp + std::string(4, '\0') + inner;
  EXPECT_EQ(RdRowJson({array, map, nested}, row),
            R"({"kind":"+I","fields":{"f0":[1,null,3],"f1":[["a",7]],)"
            R"("f2":{"kind":"+U","fields":{"x":42}}}})");
}

TEST(FlinkRowDataTest, TruncatedAndFlippedBytesNameTheOffset) {
  using R = LogicalTypeRoot;
  const std::vector<TypePtr> types = {RdT(R::kInteger), RdT(R::kVarChar)};
  const std::string good = RdHeader(0, 2, {}) + RdSlot(5, 4) + RdOffsetSlot(24, 3) + "xyz";
  EXPECT_EQ(RdRowJson(types, good), R"({"kind":"+I","fields":{"f0":5,"f1":"xyz"}})");
  // Cut inside the fixed part: the row's start (at absolute byte 100) is named.
  EXPECT_EQ(RdRowJson(types, good.substr(0, 20), 100),
            "Corruption: row.bin: at byte 100: BinaryRowData of 2 fields (24 bytes) runs past the "
            "end of the 20-byte structure");
  // Cut inside the variable part: the slot of f1 (byte 16 of the row) is named.
  EXPECT_EQ(RdRowJson(types, good.substr(0, 26), 100),
            "Corruption: row.bin: at byte 116: string: offset 24 size 3 lies outside the 26-byte "
            "structure");
  std::string flipped = good;
  flipped[0] = 9;  // not a RowKind
  EXPECT_EQ(RdRowJson(types, flipped, 100),
            "Corruption: row.bin: at byte 100: row kind byte 9 is not a RowKind");
  const std::string time = RdHeader(0, 1, {}) + RdSlot(86400000, 4);
  EXPECT_EQ(RdRowJson({RdT(R::kTimeWithoutTimeZone)}, time, 100),
            "Corruption: row.bin: at byte 108: TIME value 86400000 ms is not a time of day");
  flipped = good;
  flipped[23] = static_cast<char>(0x8F);  // inline mark with length 15
  EXPECT_EQ(RdRowJson(types, flipped, 100),
            "Corruption: row.bin: at byte 116: string: inline length 15 > 7");
}

// ---- standalone table serializers ----------------------------------------------------------

std::string RdStateWithValueSerializer(const std::string& snapshot);

SerializerSnapshot RdSnap(const std::string& cls, std::vector<TypePtr> types) {
  SerializerSnapshot s;
  s.class_name = "org.apache.flink.table.runtime.typeutils." + cls;
  s.logical_types = std::move(types);
  return s;
}

std::string RdDecode(const SerializerSnapshot& s, const std::string& bytes) {
  DataInput in(bytes, "value.bin");
  std::string json;
  const base::Status st = DecodeValueJson(s, in, &json);
  if (!st.ok()) return st.ToString();
  return in.at_end() ? json : json + " (bytes left)";
}

TEST(FlinkRowDataTest, StandaloneTableSerializers) {
  using R = LogicalTypeRoot;
  const SerializerSnapshot row =
      RdSnap("RowDataSerializer$RowDataSerializerSnapshot", {RdT(R::kInteger), RdT(R::kVarChar)});
  ASSERT_TRUE(CanDecode(row));
  const std::string binary = RdHeader(0, 2, {1}) + RdSlot(-7 & 0xFFFFFFFF, 4) + RdSlot(0);
  EXPECT_EQ(RdDecode(row, I32(static_cast<int32_t>(binary.size())) + binary),
            R"({"kind":"+I","fields":{"f0":-7,"f1":null}})");
  EXPECT_EQ(row.DisplayName(), "RowDataSerializer(f0 INT, f1 STRING)");

  const SerializerSnapshot str = RdSnap("StringDataSerializer$StringDataSerializerSnapshot", {});
  EXPECT_EQ(RdDecode(str, I32(6) + "h\xC3\xA9llo"), "\"h\xC3\xA9llo\"");

  const SerializerSnapshot ts3 = RdSnap("TimestampDataSerializer$TimestampDataSerializerSnapshot",
                                      {RdT(R::kTimestampWithoutTimeZone, 3)});
  EXPECT_EQ(RdDecode(ts3, I64(1706702400123LL)), "\"2024-01-31 12:00:00.123\"");
  const SerializerSnapshot ts6 = RdSnap("TimestampDataSerializer$TimestampDataSerializerSnapshot",
                                      {RdT(R::kTimestampWithoutTimeZone, 6)});
  EXPECT_EQ(RdDecode(ts6, I64(-1) + I32(999000)), "\"1969-12-31 23:59:59.999999\"");
  EXPECT_EQ(RdDecode(ts6, I64(0) + I32(1000000)),
            "Corruption: value.bin: at byte 8: nano of millisecond 1000000 out of range");

  const SerializerSnapshot null_ser = RdSnap("NullSerializer$NullSerializerSnapshot", {});
  EXPECT_EQ(RdDecode(null_ser, std::string(1, '\0')), "null");
  const SerializerSnapshot count = RdSnap("CountWindow$Serializer$CountWindowSerializerSnapshot", {});
  EXPECT_EQ(RdDecode(count, I64(17)), R"({"id":17})");

  const SerializerSnapshot dec = RdSnap("DecimalDataSerializer$DecimalSerializerSnapshot",
                                      {RdT(R::kDecimal, 25, 3)});
  // 2^64 = 18446744073709551616 as BigInteger bytes 01 00 .. 00 (9 bytes), scale 3.
  EXPECT_EQ(RdDecode(dec, I32(9) + "\x01" + std::string(8, '\0')), "18446744073709551.616");
  EXPECT_EQ(RdDecode(dec, I32(9)), "Corruption: value.bin: at byte 0: length 9 exceeds the 0 bytes left");
}

TEST(FlinkRowDataTest, LinkedListsWithAndWithoutANullMask) {
  // LinkedListSerializerSnapshot, outer version 3: boolean hasNullMask; one LongSerializer.
  const std::string longs =
      Utf("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot") + I32(3);
  auto snapshot = [&](bool mask) {
    return RdStateWithValueSerializer(
        Utf("org.apache.flink.table.runtime.typeutils.LinkedListSerializer$"
            "LinkedListSerializerSnapshot") +
        I32(3) + I32(0x000DE704) + I32(3) + std::string(1, mask ? '\1' : '\0') + I32(0x001457FD) +
        I32(1) + I32(1) + longs);
  };
  for (bool mask : {true, false}) {
    const std::string bytes = snapshot(mask);
    DataInput in(bytes, "meta.bin");
    ASSERT_OK_AND_ASSIGN(StateMetaInfo st, ReadStateMetaInfo(in, bytes, 0));
    const SerializerSnapshot& list = *st.Serializer("VALUE_SERIALIZER");
    ASSERT_TRUE(CanDecode(list));
    if (mask) {
      // Three elements, the second null: mask 0b010 most significant bit first = 0x40.
      EXPECT_EQ(RdDecode(list, I32(3) + "\x40" + I64(7) + I64(9)), "[7,null,9]");
    } else {
      EXPECT_EQ(RdDecode(list, I32(2) + I64(7) + I64(9)), "[7,9]");
      EXPECT_EQ(RdDecode(list, I32(1000) + I64(7)),
                "Corruption: value.bin: at byte 4: linked list size 1000 cannot fit in the 8 "
                "bytes left");
    }
  }
}

// ---- snapshot grammars -------------------------------------------------------------------

std::string RdIntTypeStream() {
  const std::string pkg = "org.apache.flink.table.types.logical.";
  const std::string enum_desc = jb::ClassDesc("java.lang.Enum", 0, kJavaScSerializable | kJavaScEnum, {});
  const std::string root = jb::Byte(0x7E) +
                           jb::ClassDesc(pkg + "LogicalTypeRoot", 0, kJavaScSerializable | kJavaScEnum, {}, enum_desc) +
                           jb::Str("INTEGER");
  const std::string base = jb::ClassDesc(
      pkg + "LogicalType", 1, kJavaScSerializable,
      {jb::PrimField('Z', "isNullable"), jb::ObjField("typeRoot", jb::Str("Lorg/apache/flink/table/types/logical/LogicalTypeRoot;"))});
  return jb::StreamHeader() +
         jb::Object(jb::ClassDesc(pkg + "IntType", 1, kJavaScSerializable, {}, base), jb::Byte(0) + root);
}

// One StateMetaInfoSnapshot: name, backend type, options, then VALUE_SERIALIZER's proxied snapshot.
std::string RdStateWithValueSerializer(const std::string& snapshot) {
  return Utf("s") + I32(0) + I32(1) + Utf("KEYED_STATE_TYPE") + Utf("VALUE") + I32(1) +
         Utf("VALUE_SERIALIZER") + I32(2) + snapshot;
}

TEST(FlinkRowDataTest, RowDataAndTimestampSnapshotsAreRead) {
  const std::string row_snapshot =
      Utf(kRowDataSnapshot) + I32(3) + I32(1) + RdIntTypeStream() + I32(0x001457FD) + I32(1) +
      I32(1) + Utf("org.apache.flink.api.common.typeutils.base.IntSerializer$IntSerializerSnapshot") +
      I32(3);
  const std::string bytes = RdStateWithValueSerializer(row_snapshot);
  DataInput in(bytes, "meta.bin");
  ASSERT_OK_AND_ASSIGN(StateMetaInfo st, ReadStateMetaInfo(in, bytes, 0));
  EXPECT_TRUE(in.at_end());
  const SerializerSnapshot* v = st.Serializer("VALUE_SERIALIZER");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->DisplayName(), "RowDataSerializer(f0 INT NOT NULL)");
  ASSERT_EQ(v->nested.size(), 1u);
  EXPECT_TRUE(CanDecode(*v));

  const std::string ts = RdStateWithValueSerializer(
      Utf("org.apache.flink.table.runtime.typeutils.TimestampDataSerializer$"
          "TimestampDataSerializerSnapshot") + I32(1) + I32(6));
  DataInput tin(ts, "meta.bin");
  ASSERT_OK_AND_ASSIGN(StateMetaInfo tst, ReadStateMetaInfo(tin, ts, 0));
  EXPECT_EQ(tst.Serializer("VALUE_SERIALIZER")->DisplayName(),
            "TimestampDataSerializer(TIMESTAMP(6))");

  // The Java stream cut short: an error naming where the type was expected.
  const std::string cut = bytes.substr(0, bytes.size() - 120);
  DataInput cin(cut, "meta.bin");
  auto r = ReadStateMetaInfo(cin, cut, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("meta.bin: at byte"), std::string::npos) << r.status().message();
}

// ---- the real Flink SQL savepoint ----------------------------------------------------------

TEST(FlinkRowDataTest, RealSqlSavepointStatesDecode) {
  const std::string file = "flink/semi-anti-join-with-literal-agg-savepoint/_metadata";
  auto all = base::ReadFileToString(base::Fs::Default(), testing::FixturePath(file));
  ASSERT_OK(all);
  // Join[122]'s inline keyed state: i32 length 0xc2d at 0xd1, the stream from 0xd5.
  const std::string_view stream = std::string_view(*all).substr(0xd5, 0xc2d);
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(stream, file, 0xd5));
  EXPECT_EQ(meta.key_serializer.DisplayName(), "RowDataSerializer()");
  ASSERT_EQ(meta.states.size(), 2u);
  EXPECT_EQ(meta.states[0].name, "left-records");
  const SerializerSnapshot* map = meta.states[0].Serializer("VALUE_SERIALIZER");
  ASSERT_NE(map, nullptr);
  ASSERT_EQ(map->nested.size(), 2u);
  EXPECT_EQ(map->nested[0].DisplayName(), "RowDataSerializer(f0 INT, f1 BIGINT, f2 STRING)");
  EXPECT_EQ(meta.states[1].Serializer("VALUE_SERIALIZER")->DisplayName(),
            "RowDataSerializer(f0 BIGINT NOT NULL, f1 BIGINT NOT NULL)");
  // A user key at byte 0xc9f: i32 32, then the row: +I, no nulls, INT 12, BIGINT 34, and "56"
  // inline (35 36, mark byte 0x82).
  const std::string_view at = std::string_view(*all).substr(0xc9f, 36);
  EXPECT_EQ(static_cast<uint8_t>(at[35]), 0x82);
  DataInput in(at, file, 0xc9f);
  std::string json;
  ASSERT_OK(DecodeValueJson(map->nested[0], in, &json));
  EXPECT_EQ(json, R"({"kind":"+I","fields":{"f0":12,"f1":34,"f2":"56"}})");
}

}  // namespace
}  // namespace ckpt::flink
