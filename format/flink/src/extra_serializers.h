// Serializer snapshots and values beyond the core built-ins of builtin_serializers.h:
// StreamElementSerializer (an async-wait operator's queue), JavaSerializer (Java serialization),
// AvroSerializer (Avro binary in the snapshot's writer schema) and KryoSerializer (its snapshot;
// Kryo values stay bytes: they depend on the job's Kryo registrations and classes).
#pragma once

#include <string>

#include "builtin_serializers.h"
#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::flink::internal {

// Reads the own bytes of the snapshot classes this file knows (Kryo, Avro) into `s` (Kryo: the
// type class in `outer`; Avro: the runtime type in `outer`, the writer schema in `schema`).
// False, reading nothing, for other classes.
base::Result<bool> ReadExtraSnapshot(DataInput& in, SerializerSnapshot* s);

// kStreamElement, kJava, kAvro, or kUnknown.
SerializerKind ExtraSerializerKind(const SerializerSnapshot& s);

// One value of a kStreamElement / kJava / kAvro serializer as JSON.
base::Status DecodeExtraValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json);

}  // namespace ckpt::flink::internal
