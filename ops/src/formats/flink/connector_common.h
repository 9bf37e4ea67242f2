// Private to ckpt::ops: the byte shapes Flink's connectors share (SimpleVersionedSerialization,
// StringValue strings, Path.write, little-endian ByteBuffer fields), read with flink::DataInput so
// every error is Corruption "<file>: at byte <n>: ..." with the absolute offset. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/flink/data_input.h"

namespace ckpt::ops::internal::connector {

// SimpleVersionedSerialization.writeVersionAndSerialize: i32 version, i32 length, the bytes.
struct Versioned {
  int32_t version = 0;
  std::string_view bytes;
  uint64_t offset = 0;  // absolute offset of bytes[0]
};
base::Result<Versioned> ReadVersioned(flink::DataInput& in);

// A reader over `v`'s bytes naming the same file, offsets absolute.
inline flink::DataInput Open(const flink::DataInput& outer, const Versioned& v) {
  return flink::DataInput(v.bytes, outer.file(), v.offset);
}

// Corruption naming `what` unless `in` is at its end (a serializer that read fewer bytes than
// were written is not the one that wrote them).
base::Status ExpectEnd(const flink::DataInput& in, const char* what);

// Corruption "unsupported <what> version <n>" at `in`'s cursor.
base::Status UnsupportedVersion(const flink::DataInput& in, const char* what, int32_t version);

// java.nio.ByteBuffer fields in LITTLE_ENDIAN order (PendingSplitsCheckpoint, LocalRecoverable).
base::Result<int32_t> ReadLeI32(flink::DataInput& in);
base::Result<int64_t> ReadLeI64(flink::DataInput& in);
// A little-endian i32 length, then that many UTF-8 bytes.
base::Result<std::string> ReadLeString(flink::DataInput& in, const char* what);

// StringUtils.writeNullableString: a boolean, then StringValue.writeString (varint length + 1,
// then each UTF-16 unit as a varint). nullopt for null.
base::Result<std::optional<std::string>> ReadNullableStringValue(flink::DataInput& in);

// org.apache.flink.core.fs.Path.write: a boolean (URI present), then the URI's scheme, user
// info, host (nullable strings), port (i32), path, query, fragment; as Path.toString shows it.
base::Result<std::string> ReadFlinkPath(flink::DataInput& in);

}  // namespace ckpt::ops::internal::connector
