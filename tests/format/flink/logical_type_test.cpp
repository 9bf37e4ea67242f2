// LogicalType (logical_type.h): Flink's summary and serializable strings of every type root, and
// the model built from Java-serialized LogicalType objects written byte by byte after the Java
// Object Serialization grammar and the fields of org.apache.flink.table.types.logical.*.
#include "ckpt/flink/logical_type.h"

#include <gtest/gtest.h>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/java_serialization.h"
#include "ckpt/testing/gtest_util.h"
#include "java_stream_bytes.h"

namespace ckpt::flink {
namespace {

using TypePtr = std::shared_ptr<const LogicalType>;
namespace jb = java_stream_bytes;

TypePtr T(LogicalTypeRoot root, bool nullable = true, int32_t length = 0, int32_t precision = 0,
          int32_t scale = 0, std::string kind = "") {
  auto t = std::make_shared<LogicalType>();
  t->root = root;
  t->nullable = nullable;
  t->length = length;
  t->precision = precision;
  t->scale = scale;
  t->kind = std::move(kind);
  return t;
}

TypePtr With(TypePtr base, std::vector<TypePtr> children) {
  auto t = std::make_shared<LogicalType>(*base);
  t->children = std::move(children);
  return t;
}

TEST(FlinkLogicalTypeTest, PrimitiveTypesPrintAsFlinkPrintsThem) {
  using R = LogicalTypeRoot;
  struct Case {
    TypePtr t;
    const char* summary;
    const char* serializable;
  };
  const Case cases[] = {
      {T(R::kBoolean), "BOOLEAN", "BOOLEAN"},
      {T(R::kTinyInt, false), "TINYINT NOT NULL", "TINYINT NOT NULL"},
      {T(R::kSmallInt), "SMALLINT", "SMALLINT"},
      {T(R::kInteger, false), "INT NOT NULL", "INT NOT NULL"},
      {T(R::kBigInt), "BIGINT", "BIGINT"},
      {T(R::kFloat), "FLOAT", "FLOAT"},
      {T(R::kDouble), "DOUBLE", "DOUBLE"},
      {T(R::kDate), "DATE", "DATE"},
      {T(R::kChar, true, 5), "CHAR(5)", "CHAR(5)"},
      {T(R::kVarChar, true, 10), "VARCHAR(10)", "VARCHAR(10)"},
      {T(R::kVarChar, false, LogicalType::kMaxLength), "STRING NOT NULL",
       "VARCHAR(2147483647) NOT NULL"},
      {T(R::kBinary, true, 3), "BINARY(3)", "BINARY(3)"},
      {T(R::kVarBinary, true, LogicalType::kMaxLength), "BYTES", "VARBINARY(2147483647)"},
      {T(R::kDecimal, true, 0, 10, 2), "DECIMAL(10, 2)", "DECIMAL(10, 2)"},
      {T(R::kTimeWithoutTimeZone, true, 0, 3), "TIME(3)", "TIME(3)"},
      {T(R::kTimestampWithoutTimeZone, true, 0, 6, 0, "REGULAR"), "TIMESTAMP(6)", "TIMESTAMP(6)"},
      {T(R::kTimestampWithoutTimeZone, false, 0, 3, 0, "ROWTIME"), "TIMESTAMP(3) NOT NULL *ROWTIME*",
       "TIMESTAMP(3) NOT NULL"},
      {T(R::kTimestampWithLocalTimeZone, true, 0, 3, 0, "REGULAR"), "TIMESTAMP_LTZ(3)",
       "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
      {T(R::kTimestampWithTimeZone, true, 0, 9), "TIMESTAMP(9) WITH TIME ZONE",
       "TIMESTAMP(9) WITH TIME ZONE"},
      {T(R::kIntervalYearMonth, true, 0, 2, 0, "YEAR_TO_MONTH"), "INTERVAL YEAR(2) TO MONTH",
       "INTERVAL YEAR(2) TO MONTH"},
      {T(R::kIntervalYearMonth, true, 0, 2, 0, "MONTH"), "INTERVAL MONTH", "INTERVAL MONTH"},
      {T(R::kIntervalDayTime, true, 0, 2, 6, "DAY_TO_SECOND"), "INTERVAL DAY(2) TO SECOND(6)",
       "INTERVAL DAY(2) TO SECOND(6)"},
      {T(R::kIntervalDayTime, false, 0, 2, 3, "MINUTE_TO_SECOND"),
       "INTERVAL MINUTE TO SECOND(3) NOT NULL", "INTERVAL MINUTE TO SECOND(3) NOT NULL"},
      {T(R::kNull), "NULL", "NULL"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.t->SummaryString(), c.summary);
    EXPECT_EQ(c.t->SerializableString(), c.serializable);
  }
}

TEST(FlinkLogicalTypeTest, CompositeTypesPrintTheirChildren) {
  using R = LogicalTypeRoot;
  const TypePtr str = T(R::kVarChar, true, LogicalType::kMaxLength);
  const TypePtr i = T(R::kInteger, false);
  EXPECT_EQ(With(T(R::kArray), {str})->SummaryString(), "ARRAY<STRING>");
  EXPECT_EQ(With(T(R::kArray, false), {str})->SerializableString(),
            "ARRAY<VARCHAR(2147483647)> NOT NULL");
  EXPECT_EQ(With(T(R::kMultiset), {i})->SummaryString(), "MULTISET<INT NOT NULL>");
  EXPECT_EQ(With(T(R::kMap), {str, i})->SummaryString(), "MAP<STRING, INT NOT NULL>");
  auto row = std::make_shared<LogicalType>();
  row->root = R::kRow;
  row->fields = {{"a", i, ""}, {"we`ird", str, "it's"}};
  EXPECT_EQ(row->SummaryString(), "ROW<`a` INT NOT NULL, `we``ird` STRING 'it''s'>");
  EXPECT_EQ(row->SerializableString(),
            "ROW<`a` INT NOT NULL, `we``ird` VARCHAR(2147483647) 'it''s'>");
  auto structured = std::make_shared<LogicalType>(*T(R::kStructuredType, false));
  structured->class_name = "com.example.User";
  structured->kind = "ANONYMOUS";
  EXPECT_EQ(structured->SummaryString(), "*com.example.User*");
  auto distinct = std::make_shared<LogicalType>(*T(R::kDistinctType, false));
  distinct->class_name = "`cat`.`db`.`Money`";
  distinct->children = {T(R::kDecimal, true, 0, 10, 2)};
  EXPECT_EQ(distinct->SummaryString(), "`cat`.`db`.`Money` NOT NULL");
  auto raw = std::make_shared<LogicalType>(*T(R::kRaw));
  raw->class_name = "java.time.Duration";
  EXPECT_EQ(raw->SummaryString(), "RAW('java.time.Duration', ?)");
}

TEST(FlinkLogicalTypeTest, FixedLengthPartFollowsBinaryRowData) {
  using R = LogicalTypeRoot;
  EXPECT_TRUE(T(R::kBigInt)->InFixedLengthPart());
  EXPECT_TRUE(T(R::kDecimal, true, 0, 18, 2)->InFixedLengthPart());
  EXPECT_FALSE(T(R::kDecimal, true, 0, 19, 2)->InFixedLengthPart());
  EXPECT_TRUE(T(R::kTimestampWithoutTimeZone, true, 0, 3)->InFixedLengthPart());
  EXPECT_FALSE(T(R::kTimestampWithoutTimeZone, true, 0, 4)->InFixedLengthPart());
  EXPECT_FALSE(T(R::kVarChar, true, 5)->InFixedLengthPart());
}

// ---- Java-serialized LogicalTypes --------------------------------------------------------

const std::string kPkg = "org.apache.flink.table.types.logical.";

// LogicalType's descriptor: boolean isNullable, LogicalTypeRoot typeRoot.
std::string LogicalTypeDesc() {
  return jb::ClassDesc(kPkg + "LogicalType", 1, kJavaScSerializable,
                       {jb::PrimField('Z', "isNullable"),
                        jb::ObjField("typeRoot", jb::Str("L" + std::string("org/apache/flink/table/types/logical/LogicalTypeRoot;")))});
}
// TC_ENUM of LogicalTypeRoot (extends java.lang.Enum).
std::string Enum(const std::string& cls, const std::string& constant) {
  const std::string enum_desc = jb::ClassDesc("java.lang.Enum", 0, kJavaScSerializable | kJavaScEnum, {});
  return jb::Byte(0x7E) + jb::ClassDesc(cls, 0, kJavaScSerializable | kJavaScEnum, {}, enum_desc) +
         jb::Str(constant);
}
std::string Root(const std::string& constant) { return Enum(kPkg + "LogicalTypeRoot", constant); }
// The LogicalType class data: isNullable, typeRoot.
std::string Base(bool nullable, const std::string& root) {
  return jb::Byte(nullable ? 1 : 0) + Root(root);
}

std::string IntTypeObject(bool nullable) {
  return jb::Object(jb::ClassDesc(kPkg + "IntType", 1, kJavaScSerializable, {}, LogicalTypeDesc()),
                    Base(nullable, "INTEGER"));
}

base::Result<TypePtr> Parse(const std::string& object) {
  const std::string bytes = jb::StreamHeader() + object;
  DataInput in(bytes, "types.bin");
  CKPT_ASSIGN_OR_RETURN(JavaStream stream, ReadJavaObject(in));
  if (stream.root() == nullptr) return base::Status::InvalidArgument("no root");
  return LogicalTypeFromJava(*stream.root());
}

TEST(FlinkLogicalTypeTest, BuildsAtomicTypesFromJavaObjects) {
  ASSERT_OK_AND_ASSIGN(TypePtr i, Parse(IntTypeObject(false)));
  EXPECT_EQ(i->SummaryString(), "INT NOT NULL");

  const std::string varchar = jb::Object(
      jb::ClassDesc(kPkg + "VarCharType", 1, kJavaScSerializable, {jb::PrimField('I', "length")},
                    LogicalTypeDesc()),
      Base(true, "VARCHAR") + java_bytes::I32(10));
  ASSERT_OK_AND_ASSIGN(TypePtr v, Parse(varchar));
  EXPECT_EQ(v->SummaryString(), "VARCHAR(10)");

  const std::string decimal = jb::Object(
      jb::ClassDesc(kPkg + "DecimalType", 1, kJavaScSerializable,
                    {jb::PrimField('I', "precision"), jb::PrimField('I', "scale")}, LogicalTypeDesc()),
      Base(false, "DECIMAL") + java_bytes::I32(20) + java_bytes::I32(4));
  ASSERT_OK_AND_ASSIGN(TypePtr d, Parse(decimal));
  EXPECT_EQ(d->SummaryString(), "DECIMAL(20, 4) NOT NULL");

  // TimestampType: int precision, TimestampKind kind (object fields after primitives).
  const std::string ts = jb::Object(
      jb::ClassDesc(kPkg + "TimestampType", 1, kJavaScSerializable,
                    {jb::PrimField('I', "precision"),
                     jb::ObjField("kind", jb::Str("Lorg/apache/flink/table/types/logical/TimestampKind;"))},
                    LogicalTypeDesc()),
      Base(true, "TIMESTAMP_WITHOUT_TIME_ZONE") + java_bytes::I32(3) +
          Enum(kPkg + "TimestampKind", "ROWTIME"));
  ASSERT_OK_AND_ASSIGN(TypePtr t, Parse(ts));
  EXPECT_EQ(t->SummaryString(), "TIMESTAMP(3) *ROWTIME*");
  EXPECT_EQ(t->SerializableString(), "TIMESTAMP(3)");
}

TEST(FlinkLogicalTypeTest, BuildsRowsArraysAndMapsFromJavaObjects) {
  // ArrayType(elementType = IntType NOT NULL).
  const std::string array = jb::Object(
      jb::ClassDesc(kPkg + "ArrayType", 1, kJavaScSerializable,
                    {jb::ObjField("elementType", jb::Str("Lorg/apache/flink/table/types/logical/LogicalType;"))},
                    LogicalTypeDesc()),
      Base(true, "ARRAY") + IntTypeObject(false));
  ASSERT_OK_AND_ASSIGN(TypePtr a, Parse(array));
  EXPECT_EQ(a->SummaryString(), "ARRAY<INT NOT NULL>");

  // RowType(fields = ArrayList[RowField(description null, name "id", type IntType)]):
  // ArrayList writes int size as a field, then (writeObject) block data with the capacity and
  // the elements, then TC_ENDBLOCKDATA.
  const std::string row_field = jb::Object(
      jb::ClassDesc(kPkg + "RowType$RowField", 1, kJavaScSerializable,
                    {jb::ObjField("description", jb::Str("Ljava/lang/String;")),
                     jb::ObjField("name", jb::Str("Ljava/lang/String;")),
                     jb::ObjField("type", jb::Str("Lorg/apache/flink/table/types/logical/LogicalType;"))}),
      jb::Null() + jb::Str("id") + IntTypeObject(true));
  const std::string list = jb::Object(
      jb::ClassDesc("java.util.ArrayList", 8683452581122892189LL,
                    kJavaScSerializable | kJavaScWriteMethod, {jb::PrimField('I', "size")}),
      java_bytes::I32(1) + jb::BlockData(java_bytes::I32(1)) + row_field + jb::EndBlock());
  const std::string row = jb::Object(
      jb::ClassDesc(kPkg + "RowType", 1, kJavaScSerializable,
                    {jb::ObjField("fields", jb::Str("Ljava/util/List;"))}, LogicalTypeDesc()),
      Base(false, "ROW") + list);
  ASSERT_OK_AND_ASSIGN(TypePtr r, Parse(row));
  EXPECT_EQ(r->SummaryString(), "ROW<`id` INT> NOT NULL");
  ASSERT_EQ(r->fields.size(), 1u);
  EXPECT_EQ(r->fields[0].name, "id");
}

TEST(FlinkLogicalTypeTest, AnUnknownRootOrAMissingFieldIsAnErrorNamingTheObject) {
  const std::string bad_root = jb::Object(
      jb::ClassDesc(kPkg + "IntType", 1, kJavaScSerializable, {}, LogicalTypeDesc()),
      Base(true, "HYPERINT"));
  auto r = Parse(bad_root);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at byte 4 (" + kPkg + "IntType): unknown type root HYPERINT"),
            std::string::npos)
      << r.status().message();

  const std::string no_length = jb::Object(
      jb::ClassDesc(kPkg + "VarCharType", 1, kJavaScSerializable, {}, LogicalTypeDesc()),
      Base(true, "VARCHAR"));
  r = Parse(no_length);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no int field 'length'"), std::string::npos)
      << r.status().message();

  const std::string not_a_type = jb::Object(
      jb::ClassDesc("java.lang.Object2", 1, kJavaScSerializable, {}), "");
  r = Parse(not_a_type);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a LogicalType"), std::string::npos);
}

}  // namespace
}  // namespace ckpt::flink
