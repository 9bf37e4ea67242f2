// LogicalType's two string forms, as Flink's asSummaryString / asSerializableString write them
// (LogicalType.withNullability appends " NOT NULL"; identifiers in ROW fields are quoted with
// backticks, a backtick doubled; descriptions follow as a quoted string literal).
#include "ckpt/flink/logical_type.h"

namespace ckpt::flink {
namespace {

std::string EscapeIdentifier(const std::string& s) {
  std::string out = "`";
  for (char c : s) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

std::string EscapeLiteral(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string P(int32_t v) { return "(" + std::to_string(v) + ")"; }

// The interval types' text: DayTimeIntervalType / YearMonthIntervalType format tables.
std::string IntervalText(const LogicalType& t) {
  const std::string& r = t.kind;
  const std::string y = P(t.precision), f = P(t.scale);
  if (t.root == LogicalTypeRoot::kIntervalYearMonth) {
    if (r == "YEAR") return "INTERVAL YEAR" + y;
    if (r == "YEAR_TO_MONTH") return "INTERVAL YEAR" + y + " TO MONTH";
    return "INTERVAL MONTH";
  }
  if (r == "DAY") return "INTERVAL DAY" + y;
  if (r == "DAY_TO_HOUR") return "INTERVAL DAY" + y + " TO HOUR";
  if (r == "DAY_TO_MINUTE") return "INTERVAL DAY" + y + " TO MINUTE";
  if (r == "DAY_TO_SECOND") return "INTERVAL DAY" + y + " TO SECOND" + f;
  if (r == "HOUR") return "INTERVAL HOUR";
  if (r == "HOUR_TO_MINUTE") return "INTERVAL HOUR TO MINUTE";
  if (r == "HOUR_TO_SECOND") return "INTERVAL HOUR TO SECOND" + f;
  if (r == "MINUTE") return "INTERVAL MINUTE";
  if (r == "MINUTE_TO_SECOND") return "INTERVAL MINUTE TO SECOND" + f;
  return "INTERVAL SECOND" + f;
}

std::string Text(const LogicalType& t, bool summary) {
  auto child = [&](size_t i) {
    return summary ? t.children[i]->SummaryString() : t.children[i]->SerializableString();
  };
  auto max_or = [&](const char* max_name, const char* name) {
    if (summary && t.length == LogicalType::kMaxLength) return std::string(max_name);
    return std::string(name) + P(t.length);
  };
  auto kind_suffix = [&]() {
    // TimestampType / LocalZonedTimestampType: a time attribute shows its kind in the summary.
    const bool timestamp = t.root == LogicalTypeRoot::kTimestampWithoutTimeZone ||
                           t.root == LogicalTypeRoot::kTimestampWithLocalTimeZone ||
                           t.root == LogicalTypeRoot::kTimestampWithTimeZone;
    return summary && timestamp && !t.kind.empty() && t.kind != "REGULAR" ? " *" + t.kind + "*"
                                                                         : std::string();
  };
  std::string s;
  switch (t.root) {
    case LogicalTypeRoot::kChar: s = "CHAR" + P(t.length); break;
    case LogicalTypeRoot::kVarChar: s = max_or("STRING", "VARCHAR"); break;
    case LogicalTypeRoot::kBoolean: s = "BOOLEAN"; break;
    case LogicalTypeRoot::kBinary: s = "BINARY" + P(t.length); break;
    case LogicalTypeRoot::kVarBinary: s = max_or("BYTES", "VARBINARY"); break;
    case LogicalTypeRoot::kDecimal:
      s = "DECIMAL(" + std::to_string(t.precision) + ", " + std::to_string(t.scale) + ")";
      break;
    case LogicalTypeRoot::kTinyInt: s = "TINYINT"; break;
    case LogicalTypeRoot::kSmallInt: s = "SMALLINT"; break;
    case LogicalTypeRoot::kInteger: s = "INT"; break;
    case LogicalTypeRoot::kBigInt: s = "BIGINT"; break;
    case LogicalTypeRoot::kFloat: s = "FLOAT"; break;
    case LogicalTypeRoot::kDouble: s = "DOUBLE"; break;
    case LogicalTypeRoot::kDate: s = "DATE"; break;
    case LogicalTypeRoot::kTimeWithoutTimeZone: s = "TIME" + P(t.precision); break;
    case LogicalTypeRoot::kTimestampWithoutTimeZone: s = "TIMESTAMP" + P(t.precision); break;
    case LogicalTypeRoot::kTimestampWithTimeZone:
      s = "TIMESTAMP" + P(t.precision) + " WITH TIME ZONE";
      break;
    case LogicalTypeRoot::kTimestampWithLocalTimeZone:
      s = summary ? "TIMESTAMP_LTZ" + P(t.precision)
                  : "TIMESTAMP" + P(t.precision) + " WITH LOCAL TIME ZONE";
      break;
    case LogicalTypeRoot::kIntervalYearMonth:
    case LogicalTypeRoot::kIntervalDayTime: s = IntervalText(t); break;
    case LogicalTypeRoot::kArray: s = "ARRAY<" + child(0) + ">"; break;
    case LogicalTypeRoot::kMultiset: s = "MULTISET<" + child(0) + ">"; break;
    case LogicalTypeRoot::kMap: s = "MAP<" + child(0) + ", " + child(1) + ">"; break;
    case LogicalTypeRoot::kRow:
    case LogicalTypeRoot::kStructuredType: {
      if (t.root == LogicalTypeRoot::kStructuredType) {
        // StructuredType: a registered one prints its identifier; an inline one "*class*" (no
        // nullability: Flink's asSummaryString; it has no serializable form).
        if (t.kind == "ANONYMOUS") return "*" + t.class_name + "*";
        s = t.class_name;
        break;
      }
      s = "ROW<";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        const auto& f = t.fields[i];
        s += (i ? ", " : "") + EscapeIdentifier(f.name) + " " +
             (summary ? f.type->SummaryString() : f.type->SerializableString());
        if (!f.description.empty()) s += " " + EscapeLiteral(f.description);
      }
      s += ">";
      break;
    }
    case LogicalTypeRoot::kDistinctType: s = t.class_name; break;
    case LogicalTypeRoot::kNull: s = "NULL"; break;
    case LogicalTypeRoot::kRaw: s = "RAW(" + EscapeLiteral(t.class_name) + ", ?)"; break;
    case LogicalTypeRoot::kSymbol: s = "SYMBOL(" + EscapeLiteral(t.class_name) + ")"; break;
    case LogicalTypeRoot::kUnresolved: s = t.class_name; break;
    case LogicalTypeRoot::kDescriptor: s = "DESCRIPTOR"; break;
    case LogicalTypeRoot::kVariant: s = "VARIANT"; break;
  }
  if (!t.nullable) s += " NOT NULL";
  return s + kind_suffix();
}

}  // namespace

std::string LogicalType::SummaryString() const { return Text(*this, true); }
std::string LogicalType::SerializableString() const { return Text(*this, false); }

bool LogicalType::InFixedLengthPart() const {
  switch (root) {
    case LogicalTypeRoot::kBoolean:
    case LogicalTypeRoot::kTinyInt:
    case LogicalTypeRoot::kSmallInt:
    case LogicalTypeRoot::kInteger:
    case LogicalTypeRoot::kDate:
    case LogicalTypeRoot::kTimeWithoutTimeZone:
    case LogicalTypeRoot::kIntervalYearMonth:
    case LogicalTypeRoot::kBigInt:
    case LogicalTypeRoot::kIntervalDayTime:
    case LogicalTypeRoot::kFloat:
    case LogicalTypeRoot::kDouble:
      return true;
    case LogicalTypeRoot::kDecimal: return precision <= 18;
    case LogicalTypeRoot::kTimestampWithoutTimeZone:
    case LogicalTypeRoot::kTimestampWithLocalTimeZone: return precision <= 3;
    case LogicalTypeRoot::kDistinctType: return children[0]->InFixedLengthPart();
    default: return false;
  }
}

}  // namespace ckpt::flink
