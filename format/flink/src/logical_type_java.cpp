// LogicalTypeFromJava: a Java-serialized org.apache.flink.table.types.logical.* object to the
// LogicalType model. Every subclass keeps LogicalType's fields isNullable (boolean) and typeRoot
// (the LogicalTypeRoot enum); the parameters are the subclasses' own fields (length; precision,
// scale; kind, precision; resolution, yearPrecision / dayPrecision, fractionalPrecision;
// elementType; keyType, valueType; fields = List<RowField{name, type, description}>; clazz;
// objectIdentifier{catalogName, databaseName, objectName}, sourceType, implementationClass,
// attributes).
#include <utility>

#include "ckpt/flink/java_serialization.h"
#include "ckpt/flink/logical_type.h"

namespace ckpt::flink {
namespace {

using base::Result;
using base::Status;
using TypePtr = std::shared_ptr<const LogicalType>;

constexpr int kMaxTypeDepth = 32;
constexpr const char* kLogicalPackage = "org.apache.flink.table.types.logical.";

Status Bad(const JavaValue& v, const std::string& what) {
  return Status::InvalidArgument("Java-serialized LogicalType at byte " + std::to_string(v.offset) +
                                 " (" + (v.class_name().empty() ? "no class" : v.class_name()) +
                                 "): " + what);
}

Result<int32_t> IntField(const JavaValue& v, const char* name) {
  const JavaValue* f = v.Field(name);
  if (f == nullptr || f->kind != JavaValue::Kind::kPrimitive || f->type_code != 'I') {
    return Bad(v, std::string("no int field '") + name + "'");
  }
  return static_cast<int32_t>(f->integer);
}

Result<std::string> EnumField(const JavaValue& v, const char* name) {
  const JavaValue* f = v.Field(name);
  if (f == nullptr || f->kind != JavaValue::Kind::kEnum) {
    return Bad(v, std::string("no enum field '") + name + "'");
  }
  return f->text;
}

std::string StringField(const JavaValue& v, const char* name) {
  const JavaValue* f = v.Field(name);
  return f != nullptr && f->kind == JavaValue::Kind::kString ? f->text : "";
}

// The elements of a java.util.List as Flink's types hold them: ArrayList (writeObject: size in
// block data, then the elements), Collections' unmodifiable / singleton / empty lists,
// Arrays$ArrayList.
Result<std::vector<const JavaValue*>> ListElements(const JavaValue& v, int depth) {
  if (depth > 4) return Bad(v, "list wrappers nested too deeply");
  const std::string& c = v.class_name();
  std::vector<const JavaValue*> out;
  if (c == "java.util.ArrayList" || c == "java.util.LinkedList") {
    const JavaClassData* d = v.DataOf(c);
    if (d == nullptr) return Bad(v, "list without its data");
    for (const JavaValue* a : d->annotations) {
      if (a->kind != JavaValue::Kind::kBlockData) out.push_back(a);
    }
    return out;
  }
  if (c.starts_with("java.util.Collections$Unmodifiable") ||
      c.starts_with("java.util.Collections$Synchronized")) {
    const JavaValue* inner = v.Field("list");
    if (inner == nullptr) inner = v.Field("c");
    if (inner == nullptr || inner->kind != JavaValue::Kind::kObject) return Bad(v, "wrapper without its list");
    return ListElements(*inner, depth + 1);
  }
  if (c == "java.util.Collections$SingletonList") {
    const JavaValue* e = v.Field("element");
    if (e != nullptr) out.push_back(e);
    return out;
  }
  if (c == "java.util.Collections$EmptyList") return out;
  if (c == "java.util.Arrays$ArrayList") {
    const JavaValue* a = v.Field("a");
    if (a == nullptr || a->kind != JavaValue::Kind::kArray) return Bad(v, "Arrays$ArrayList without its array");
    return a->elements;
  }
  return Bad(v, "a list of class " + c + " is not understood");
}

Result<TypePtr> FromJava(const JavaValue& v, int depth);

Result<TypePtr> TypeField(const JavaValue& v, const char* name, int depth) {
  const JavaValue* f = v.Field(name);
  if (f == nullptr || f->kind != JavaValue::Kind::kObject) {
    return Bad(v, std::string("no LogicalType field '") + name + "'");
  }
  return FromJava(*f, depth + 1);
}

// ObjectIdentifier.asSerializableString: `catalog`.`database`.`object`, each part escaped (the
// catalog and database are absent for an inline identifier). "" if the type has none.
std::string Identifier(const JavaValue& v) {
  const JavaValue* id = v.Field("objectIdentifier");
  if (id == nullptr || id->kind != JavaValue::Kind::kObject) return "";
  std::string s;
  for (const char* part : {"catalogName", "databaseName", "objectName"}) {
    const std::string p = StringField(*id, part);
    if (p.empty()) continue;
    if (!s.empty()) s += ".";
    s += "`";
    for (char c : p) {
      s += c;
      if (c == '`') s += '`';
    }
    s += "`";
  }
  return s;
}

Result<std::vector<LogicalType::Field>> Fields(const JavaValue& v, const char* list_name,
                                               int depth) {
  const JavaValue* list = v.Field(list_name);
  if (list == nullptr || list->kind != JavaValue::Kind::kObject) {
    return Bad(v, std::string("no list field '") + list_name + "'");
  }
  CKPT_ASSIGN_OR_RETURN(std::vector<const JavaValue*> elems, ListElements(*list, 0));
  std::vector<LogicalType::Field> out;
  for (const JavaValue* e : elems) {
    if (e->kind != JavaValue::Kind::kObject) return Bad(v, "a field that is not an object");
    LogicalType::Field f;
    f.name = StringField(*e, "name");
    f.description = StringField(*e, "description");
    CKPT_ASSIGN_OR_RETURN(f.type, TypeField(*e, "type", depth));
    out.push_back(std::move(f));
  }
  return out;
}

struct RootName {
  const char* name;
  LogicalTypeRoot root;
};
constexpr RootName kRoots[] = {
    {"CHAR", LogicalTypeRoot::kChar},
    {"VARCHAR", LogicalTypeRoot::kVarChar},
    {"BOOLEAN", LogicalTypeRoot::kBoolean},
    {"BINARY", LogicalTypeRoot::kBinary},
    {"VARBINARY", LogicalTypeRoot::kVarBinary},
    {"DECIMAL", LogicalTypeRoot::kDecimal},
    {"TINYINT", LogicalTypeRoot::kTinyInt},
    {"SMALLINT", LogicalTypeRoot::kSmallInt},
    {"INTEGER", LogicalTypeRoot::kInteger},
    {"BIGINT", LogicalTypeRoot::kBigInt},
    {"FLOAT", LogicalTypeRoot::kFloat},
    {"DOUBLE", LogicalTypeRoot::kDouble},
    {"DATE", LogicalTypeRoot::kDate},
    {"TIME_WITHOUT_TIME_ZONE", LogicalTypeRoot::kTimeWithoutTimeZone},
    {"TIMESTAMP_WITHOUT_TIME_ZONE", LogicalTypeRoot::kTimestampWithoutTimeZone},
    {"TIMESTAMP_WITH_TIME_ZONE", LogicalTypeRoot::kTimestampWithTimeZone},
    {"TIMESTAMP_WITH_LOCAL_TIME_ZONE", LogicalTypeRoot::kTimestampWithLocalTimeZone},
    {"INTERVAL_YEAR_MONTH", LogicalTypeRoot::kIntervalYearMonth},
    {"INTERVAL_DAY_TIME", LogicalTypeRoot::kIntervalDayTime},
    {"ARRAY", LogicalTypeRoot::kArray},
    {"MULTISET", LogicalTypeRoot::kMultiset},
    {"MAP", LogicalTypeRoot::kMap},
    {"ROW", LogicalTypeRoot::kRow},
    {"DISTINCT_TYPE", LogicalTypeRoot::kDistinctType},
    {"STRUCTURED_TYPE", LogicalTypeRoot::kStructuredType},
    {"NULL", LogicalTypeRoot::kNull},
    {"RAW", LogicalTypeRoot::kRaw},
    {"SYMBOL", LogicalTypeRoot::kSymbol},
    {"UNRESOLVED", LogicalTypeRoot::kUnresolved},
    {"DESCRIPTOR", LogicalTypeRoot::kDescriptor},
    {"VARIANT", LogicalTypeRoot::kVariant},
};

Result<TypePtr> FromJava(const JavaValue& v, int depth) {
  if (depth > kMaxTypeDepth) return Bad(v, "types nested too deeply");
  if (v.kind != JavaValue::Kind::kObject) return Bad(v, "not an object");
  const std::string& c = v.class_name();
  if (!c.starts_with(kLogicalPackage)) return Bad(v, "not a LogicalType");
  auto t = std::make_shared<LogicalType>();
  const JavaValue* nullable = v.Field("isNullable");
  if (nullable == nullptr || nullable->kind != JavaValue::Kind::kPrimitive) {
    return Bad(v, "no field 'isNullable'");
  }
  t->nullable = nullable->integer != 0;
  CKPT_ASSIGN_OR_RETURN(std::string root, EnumField(v, "typeRoot"));
  bool known = false;
  for (const RootName& r : kRoots) {
    if (root == r.name) {
      t->root = r.root;
      known = true;
    }
  }
  if (!known) return Bad(v, "unknown type root " + root);
  const std::string simple = c.substr(std::string_view(kLogicalPackage).size());
  switch (t->root) {
    case LogicalTypeRoot::kChar:
    case LogicalTypeRoot::kVarChar:
    case LogicalTypeRoot::kBinary:
    case LogicalTypeRoot::kVarBinary: {
      CKPT_ASSIGN_OR_RETURN(t->length, IntField(v, "length"));
      break;
    }
    case LogicalTypeRoot::kDecimal: {
      CKPT_ASSIGN_OR_RETURN(t->precision, IntField(v, "precision"));
      CKPT_ASSIGN_OR_RETURN(t->scale, IntField(v, "scale"));
      break;
    }
    case LogicalTypeRoot::kTimeWithoutTimeZone: {
      CKPT_ASSIGN_OR_RETURN(t->precision, IntField(v, "precision"));
      break;
    }
    case LogicalTypeRoot::kTimestampWithoutTimeZone:
    case LogicalTypeRoot::kTimestampWithTimeZone:
    case LogicalTypeRoot::kTimestampWithLocalTimeZone: {
      CKPT_ASSIGN_OR_RETURN(t->precision, IntField(v, "precision"));
      CKPT_ASSIGN_OR_RETURN(t->kind, EnumField(v, "kind"));
      break;
    }
    case LogicalTypeRoot::kIntervalYearMonth: {
      CKPT_ASSIGN_OR_RETURN(t->kind, EnumField(v, "resolution"));
      CKPT_ASSIGN_OR_RETURN(t->precision, IntField(v, "yearPrecision"));
      break;
    }
    case LogicalTypeRoot::kIntervalDayTime: {
      CKPT_ASSIGN_OR_RETURN(t->kind, EnumField(v, "resolution"));
      CKPT_ASSIGN_OR_RETURN(t->precision, IntField(v, "dayPrecision"));
      CKPT_ASSIGN_OR_RETURN(t->scale, IntField(v, "fractionalPrecision"));
      break;
    }
    case LogicalTypeRoot::kArray:
    case LogicalTypeRoot::kMultiset: {
      CKPT_ASSIGN_OR_RETURN(TypePtr e, TypeField(v, "elementType", depth));
      t->children.push_back(std::move(e));
      break;
    }
    case LogicalTypeRoot::kMap: {
      CKPT_ASSIGN_OR_RETURN(TypePtr k, TypeField(v, "keyType", depth));
      CKPT_ASSIGN_OR_RETURN(TypePtr val, TypeField(v, "valueType", depth));
      t->children = {std::move(k), std::move(val)};
      break;
    }
    case LogicalTypeRoot::kRow: {
      CKPT_ASSIGN_OR_RETURN(t->fields, Fields(v, "fields", depth));
      break;
    }
    case LogicalTypeRoot::kStructuredType: {
      t->class_name = Identifier(v);
      if (t->class_name.empty()) {
        const JavaValue* impl = v.Field("implementationClass");
        if (impl == nullptr || impl->kind != JavaValue::Kind::kClass) {
          return Bad(v, "structured type with neither identifier nor implementation class");
        }
        t->class_name = impl->class_name();
        t->kind = "ANONYMOUS";
      }
      CKPT_ASSIGN_OR_RETURN(t->fields, Fields(v, "attributes", depth));
      break;
    }
    case LogicalTypeRoot::kDistinctType: {
      t->class_name = Identifier(v);
      CKPT_ASSIGN_OR_RETURN(TypePtr src, TypeField(v, "sourceType", depth));
      t->children.push_back(std::move(src));
      break;
    }
    case LogicalTypeRoot::kRaw:
    case LogicalTypeRoot::kSymbol: {
      const JavaValue* clazz = v.Field(t->root == LogicalTypeRoot::kRaw ? "clazz" : "symbolClass");
      if (clazz == nullptr || clazz->kind != JavaValue::Kind::kClass) {
        return Bad(v, "no class field");
      }
      t->class_name = clazz->class_name();
      break;
    }
    case LogicalTypeRoot::kUnresolved:
      t->class_name = simple;
      break;
    default:
      break;
  }
  return TypePtr(std::move(t));
}

}  // namespace

Result<TypePtr> LogicalTypeFromJava(const JavaValue& v) { return FromJava(v, 0); }

Result<TypePtr> LogicalTypeOfDataType(const JavaValue& v) {
  if (v.kind != JavaValue::Kind::kObject || !v.class_name().starts_with("org.apache.flink.table.types.")) {
    return Bad(v, "not a DataType");
  }
  const JavaValue* lt = v.Field("logicalType");
  if (lt == nullptr || lt->kind != JavaValue::Kind::kObject) return Bad(v, "DataType without its logicalType");
  return FromJava(*lt, 0);
}

}  // namespace ckpt::flink
