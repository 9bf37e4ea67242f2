// Flink SQL's LogicalType (org.apache.flink.table.types.logical.*) without a JVM: the model of
// every type root with its parameters and nullability, printed as Flink's asSummaryString and
// asSerializableString print it, and built from the Java-serialized LogicalType objects that
// table serializer snapshots hold (RowDataSerializerSnapshot, ExternalSerializerSnapshot, ...).
// Pure; a LogicalType is an immutable value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::flink {

struct JavaValue;

// LogicalTypeRoot, in Flink's order.
enum class LogicalTypeRoot {
  kChar, kVarChar, kBoolean, kBinary, kVarBinary, kDecimal, kTinyInt, kSmallInt, kInteger,
  kBigInt, kFloat, kDouble, kDate, kTimeWithoutTimeZone, kTimestampWithoutTimeZone,
  kTimestampWithTimeZone, kTimestampWithLocalTimeZone, kIntervalYearMonth, kIntervalDayTime,
  kArray, kMultiset, kMap, kRow, kDistinctType, kStructuredType, kNull, kRaw, kSymbol,
  kUnresolved, kDescriptor, kVariant,
};

struct LogicalType {
  // CHAR/VARCHAR/BINARY/VARBINARY: 2147483647 is the maximum (STRING, BYTES).
  static constexpr int32_t kMaxLength = 2147483647;

  struct Field {  // ROW fields, structured type attributes
    std::string name;
    std::shared_ptr<const LogicalType> type;
    std::string description;  // "" if none
  };

  LogicalTypeRoot root = LogicalTypeRoot::kNull;
  bool nullable = true;
  int32_t length = 0;     // CHAR, VARCHAR, BINARY, VARBINARY
  int32_t precision = 0;  // DECIMAL, TIME, TIMESTAMP*, INTERVAL (year / day precision)
  int32_t scale = 0;      // DECIMAL; INTERVAL DAY TO SECOND: the fractional precision
  // TIMESTAMP kinds: "REGULAR", "ROWTIME", "PROCTIME"; INTERVAL: the resolution constant
  // ("YEAR_TO_MONTH", "DAY_TO_SECOND", ...); STRUCTURED: "ANONYMOUS" for an inline type (known by
  // its implementation class only).
  std::string kind;
  std::vector<std::shared_ptr<const LogicalType>> children;  // ARRAY/MULTISET elem, MAP key+value, DISTINCT source
  std::vector<Field> fields;                                 // ROW, STRUCTURED
  // RAW: the class; STRUCTURED/DISTINCT: the object identifier as Flink serializes it
  // (`catalog`.`database`.`object`) or, for an anonymous structured type, the implementation
  // class; SYMBOL: the enum class.
  std::string class_name;

  // "INT NOT NULL", "STRING", "DECIMAL(10, 2)", "TIMESTAMP(3) *ROWTIME*", "TIMESTAMP_LTZ(3)",
  // "ROW<`a` INT, `b` STRING>": LogicalType.asSummaryString.
  std::string SummaryString() const;
  // "VARCHAR(2147483647)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", ...: asSerializableString (RAW
  // prints its serializer snapshot as '?': the snapshot is a JVM object).
  std::string SerializableString() const;

  // The fixed-length part of a BinaryRowData field: true when the value lives in the 8-byte slot
  // (BinaryRowData.isInFixedLengthPart).
  bool InFixedLengthPart() const;
};

// Builds a LogicalType from the Java-serialized object `v` (a subclass of
// org.apache.flink.table.types.logical.LogicalType, read with ReadJavaObject). InvalidArgument
// naming the class and the byte offset of the object for an unknown class or missing field.
base::Result<std::shared_ptr<const LogicalType>> LogicalTypeFromJava(const JavaValue& v);

// Same, for a Java-serialized org.apache.flink.table.types.DataType (AtomicDataType,
// FieldsDataType, CollectionDataType, KeyValueDataType): its `logicalType` field.
base::Result<std::shared_ptr<const LogicalType>> LogicalTypeOfDataType(const JavaValue& v);

}  // namespace ckpt::flink
