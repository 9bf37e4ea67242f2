// Flink's built-in TypeSerializers as the value decoder and the key-group hash both recognize
// them: one table from a serializer snapshot's class name (and, for composites, its decoded
// nested serializers) to the kind of value it writes, and StringValue's varint.
#pragma once

#include <cstdint>

#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::flink::internal {

enum class SerializerKind { kLong, kInt, kShort, kByte, kBool, kDouble, kFloat, kChar, kString,
                            kBytes, kVoid, kTimeWindow, kTuple, kList, kMap, kTtl, kRow, kPojo,
                            kTable,  // table runtime serializers: table_serializers.h
                            kStreamElement, kJava, kAvro, kCep,  // extra_serializers.h
                            kUnknown };

// kUnknown for user serializers (Kryo, Avro, ...) and for composites whose nested serializers or
// outer format this reader does not know.
SerializerKind SerializerKindOf(const SerializerSnapshot& s);

// One varint of StringValue.writeString (a length + 1, or a UTF-16 code unit); `what` names the
// string in the error ("a String key").
base::Result<uint32_t> ReadStringValueVarint(DataInput& in, const char* what);

}  // namespace ckpt::flink::internal
