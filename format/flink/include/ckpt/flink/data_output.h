// DataOutput: the writing counterpart of DataInput — Java DataOutputStream bytes (big-endian
// ints, modified UTF-8 strings) appended to one in-memory buffer. Writes that Java itself would
// refuse (a string over 65535 encoded bytes, a byte array over 2^31-1) return InvalidArgument
// naming what was being written. Not thread-safe (a buffer being filled).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/status.h"

namespace ckpt::flink {

class DataOutput {
 public:
  DataOutput() = default;

  size_t size() const { return buf_.size(); }
  const std::string& bytes() const { return buf_; }
  std::string Release() { return std::move(buf_); }

  void WriteU8(uint8_t v) { buf_.push_back(static_cast<char>(v)); }
  void WriteI8(int8_t v) { WriteU8(static_cast<uint8_t>(v)); }
  void WriteBool(bool v) { WriteU8(v ? 1 : 0); }
  void WriteU16(uint16_t v);
  void WriteI32(int32_t v);
  void WriteI64(int64_t v);
  // Raw bytes, no length.
  void WriteBytes(std::string_view bytes) { buf_.append(bytes); }
  // writeUTF of a UTF-8 string: u16 length, then Java modified UTF-8 (NUL as C0 80, characters
  // outside the BMP as two 3-byte surrogates). InvalidArgument naming `what` if `utf8` is not
  // valid UTF-8 or encodes to more than 65535 bytes.
  base::Status WriteUtf(std::string_view utf8, std::string_view what);
  // i32 length, then the bytes. InvalidArgument naming `what` above 2^31-1 bytes.
  base::Status WriteLengthPrefixed(std::string_view bytes, std::string_view what);

 private:
  std::string buf_;
};

// UTF-8 to Java modified UTF-8 (the inverse of ModifiedUtf8ToUtf8). False if `in` is not valid
// UTF-8.
bool Utf8ToModifiedUtf8(std::string_view in, std::string* out);

}  // namespace ckpt::flink
