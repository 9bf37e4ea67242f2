// Byte strings as Java's DataOutput writes them (big-endian writeShort/Int/Long, writeUTF for
// ASCII text), plus little-endian integers: for tests that build Flink's streams by hand.
#pragma once

#include <cstdint>
#include <string>

namespace ckpt::flink::java_bytes {

inline std::string I32(int32_t v) {
  std::string o;
  for (int s = 24; s >= 0; s -= 8) o.push_back(static_cast<char>(static_cast<uint32_t>(v) >> s));
  return o;
}
inline std::string I16(int16_t v) { return I32(v).substr(2); }
inline std::string I64(int64_t v) {
  return I32(static_cast<int32_t>(v >> 32)) + I32(static_cast<int32_t>(v));
}
// writeUTF of ASCII text: a 2-byte length, then the bytes.
inline std::string Utf(const std::string& s) { return I16(static_cast<int16_t>(s.size())) + s; }
// A 4-byte length, then the bytes.
inline std::string Frame(const std::string& s) { return I32(static_cast<int32_t>(s.size())) + s; }
// The low `n` bytes of `v`, least significant first.
inline std::string Le(uint32_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

inline constexpr char kLongSerializerSnapshot[] =
    "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";

}  // namespace ckpt::flink::java_bytes
