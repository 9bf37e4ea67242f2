// Decodes values serialized by Flink's built-in TypeSerializers into JSON, driven by their
// serializer snapshots: long/int/short/byte/boolean/double/float/char, String, byte[], Tuple,
// List, Map, Row ({"kind":"+I","fields":[...]}), TTL wrappers ({"value":v,"last_access":ms}), the
// void namespace and TimeWindow, Pojo, StreamElement, Java-serialized objects and Avro datums
// (src/extra_serializers.h). Anything else (Kryo, user serializers) is reported as not decodable
// (the caller shows the bytes with the serializer's class name) — never a guessed value. Pure.
#pragma once

#include <string>

#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::flink {

// True if DecodeValueJson understands every serializer in `s` (recursively).
bool CanDecode(const SerializerSnapshot& s);

// The fixed serialized length of `s`'s values, or -1 if variable.
int FixedLength(const SerializerSnapshot& s);

// Appends the JSON of one value read from `in`. Requires CanDecode(s). Corruption (from `in`)
// for truncated or malformed bytes.
base::Status DecodeValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json);

// `"0x<hex>"`: how undecodable bytes are shown.
std::string HexJson(std::string_view bytes);

}  // namespace ckpt::flink
