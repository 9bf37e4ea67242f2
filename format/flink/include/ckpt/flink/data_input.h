// DataInput: a bounds-checked reader of Java DataOutputStream bytes (big-endian ints, modified
// UTF-8 strings) over one in-memory buffer. Every error is Corruption naming the file and the
// byte offset where the read started. A length read from the bytes is checked against what is
// left before anything is allocated. Not thread-safe (a cursor); the buffer must outlive it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::flink {

class DataInput {
 public:
  // `data` is the whole file (or a sub-range of it starting at file offset `base_offset`);
  // `file` names it in errors.
  DataInput(std::string_view data, std::string file, uint64_t base_offset = 0)
      : data_(data), file_(std::move(file)), base_(base_offset) {}

  uint64_t offset() const { return base_ + pos_; }  // absolute file offset of the cursor
  size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  const std::string& file() const { return file_; }

  // The fixed-size reads are inline: a 10,000-subtask `_metadata` holds hundreds of thousands
  // of them (key-group offsets), and the out-of-line error path keeps the hot one small.
  base::Result<uint8_t> ReadU8() {
    if (remaining() < 1) [[unlikely]] return Truncated(1, "byte");
    return static_cast<uint8_t>(data_[pos_++]);
  }
  base::Result<int8_t> ReadI8() {
    if (remaining() < 1) [[unlikely]] return Truncated(1, "byte");
    return static_cast<int8_t>(data_[pos_++]);
  }
  base::Result<bool> ReadBool() {
    if (remaining() < 1) [[unlikely]] return Truncated(1, "byte");
    return data_[pos_++] != 0;
  }
  base::Result<uint16_t> ReadU16() {
    if (remaining() < 2) [[unlikely]] return Truncated(2, "u16");
    const uint16_t v = LoadBe16(data_.data() + pos_);
    pos_ += 2;
    return v;
  }
  base::Result<int16_t> ReadI16() {
    if (remaining() < 2) [[unlikely]] return Truncated(2, "u16");
    const uint16_t v = LoadBe16(data_.data() + pos_);
    pos_ += 2;
    return static_cast<int16_t>(v);
  }
  base::Result<int32_t> ReadI32() {
    if (remaining() < 4) [[unlikely]] return Truncated(4, "int");
    const uint32_t v = LoadBe32(data_.data() + pos_);
    pos_ += 4;
    return static_cast<int32_t>(v);
  }
  base::Result<int64_t> ReadI64() {
    if (remaining() < 8) [[unlikely]] return Truncated(8, "long");
    const uint64_t v = LoadBe64(data_.data() + pos_);
    pos_ += 8;
    return static_cast<int64_t>(v);
  }
  // `n` consecutive longs appended to `out` (n checked against what is left first).
  base::Status ReadI64Array(uint32_t n, std::vector<int64_t>* out);
  base::Result<float> ReadF32();
  base::Result<double> ReadF64();
  // writeUTF: u16 length, Java modified UTF-8; returned as standard UTF-8.
  base::Result<std::string> ReadUtf();
  // `n` raw bytes (n checked against what is left).
  base::Result<std::string_view> ReadBytes(uint64_t n);
  // i32 length (must be >= 0 and fit), then the bytes.
  base::Result<std::string_view> ReadLengthPrefixed();
  // A count of items each at least `min_item_bytes` long: rejects negative counts and counts
  // the remaining bytes cannot hold (so a flipped length never drives a huge allocation).
  base::Result<uint32_t> ReadCount(const char* what, uint32_t min_item_bytes);
  base::Status Skip(uint64_t n);

  // Corruption "<file>: at byte <offset>: <what>" for the given absolute offset.
  base::Status Error(uint64_t at, const std::string& what) const;
  base::Status Error(const std::string& what) const { return Error(offset(), what); }

 private:
  base::Status Need(uint64_t n, const char* what) const;
  base::Status Truncated(uint64_t n, const char* what) const;  // the error Need returns

  static uint16_t LoadBe16(const char* p) {
    const auto* u = reinterpret_cast<const uint8_t*>(p);
    return static_cast<uint16_t>((u[0] << 8) | u[1]);
  }
  static uint32_t LoadBe32(const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return __builtin_bswap32(v);
  }
  static uint64_t LoadBe64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return __builtin_bswap64(v);
  }

  std::string_view data_;
  std::string file_;
  uint64_t base_ = 0;
  size_t pos_ = 0;
};

// Java modified UTF-8 (C0 80 for NUL, surrogate pairs as two 3-byte sequences) to UTF-8. False
// if the bytes are not valid modified UTF-8.
bool ModifiedUtf8ToUtf8(std::string_view in, std::string* out);

}  // namespace ckpt::flink
