// Built-in serializers by their snapshot classes: see builtin_serializers.h.
#include "builtin_serializers.h"

#include <string>

#include "extra_serializers.h"
#include "table_serializers.h"

namespace ckpt::flink::internal {

SerializerKind SerializerKindOf(const SerializerSnapshot& s) {
  const std::string& c = s.class_name;
  if (IsTableSerializer(s)) return SerializerKind::kTable;
  if (c.ends_with("base.LongSerializer$LongSerializerSnapshot")) return SerializerKind::kLong;
  if (c.ends_with("base.IntSerializer$IntSerializerSnapshot")) return SerializerKind::kInt;
  if (c.ends_with("base.ShortSerializer$ShortSerializerSnapshot")) return SerializerKind::kShort;
  if (c.ends_with("base.ByteSerializer$ByteSerializerSnapshot")) return SerializerKind::kByte;
  if (c.ends_with("base.BooleanSerializer$BooleanSerializerSnapshot")) return SerializerKind::kBool;
  if (c.ends_with("base.DoubleSerializer$DoubleSerializerSnapshot")) return SerializerKind::kDouble;
  if (c.ends_with("base.FloatSerializer$FloatSerializerSnapshot")) return SerializerKind::kFloat;
  if (c.ends_with("base.CharSerializer$CharSerializerSnapshot")) return SerializerKind::kChar;
  if (c.ends_with("base.StringSerializer$StringSerializerSnapshot")) return SerializerKind::kString;
  if (c.ends_with("BytePrimitiveArraySerializer$BytePrimitiveArraySerializerSnapshot"))
    return SerializerKind::kBytes;
  if (c.ends_with("VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot"))
    return SerializerKind::kVoid;
  if (c.ends_with("TimeWindow$Serializer$TimeWindowSerializerSnapshot"))
    return SerializerKind::kTimeWindow;
  if (c.ends_with("TupleSerializerSnapshot") && s.decoded) return SerializerKind::kTuple;
  if (c.ends_with("base.ListSerializerSnapshot") && s.nested.size() == 1)
    return SerializerKind::kList;
  if (c.ends_with("base.MapSerializerSnapshot") && s.nested.size() == 2) return SerializerKind::kMap;
  if (c.ends_with("TtlStateFactory$TtlSerializerSnapshot") && s.nested.size() == 2)
    return SerializerKind::kTtl;
  if (c.ends_with("typeutils.runtime.RowSerializer$RowSerializerSnapshot") && s.decoded &&
      s.outer_version >= 1 && s.outer_version <= 4) {  // the outer formats the reader knows
    return SerializerKind::kRow;
  }
  if (c.ends_with("runtime.PojoSerializerSnapshot") && s.decoded &&
      s.field_names.size() == s.nested.size()) {
    return SerializerKind::kPojo;
  }
  return ExtraSerializerKind(s);
}

base::Result<uint32_t> ReadStringValueVarint(DataInput& in, const char* what) {
  uint32_t v = 0;
  int shift = 0;
  while (true) {
    CKPT_ASSIGN_OR_RETURN(uint8_t b, in.ReadU8());
    if (shift > 28) return in.Error(std::string("overlong varint in ") + what);
    v |= static_cast<uint32_t>(b & 0x7F) << shift;
    if (b < 0x80) return v;
    shift += 7;
  }
}

}  // namespace ckpt::flink::internal
