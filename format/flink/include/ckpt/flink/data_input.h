// DataInput: a bounds-checked reader of Java DataOutputStream bytes (big-endian ints, modified
// UTF-8 strings) over one in-memory buffer. Every error is Corruption naming the file and the
// byte offset where the read started. A length read from the bytes is checked against what is
// left before anything is allocated. Not thread-safe (a cursor); the buffer must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

  base::Result<uint8_t> ReadU8();
  base::Result<int8_t> ReadI8();
  base::Result<bool> ReadBool();
  base::Result<uint16_t> ReadU16();
  base::Result<int16_t> ReadI16();
  base::Result<int32_t> ReadI32();
  base::Result<int64_t> ReadI64();
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

  std::string_view data_;
  std::string file_;
  uint64_t base_ = 0;
  size_t pos_ = 0;
};

// Java modified UTF-8 (C0 80 for NUL, surrogate pairs as two 3-byte sequences) to UTF-8. False
// if the bytes are not valid modified UTF-8.
bool ModifiedUtf8ToUtf8(std::string_view in, std::string* out);

}  // namespace ckpt::flink
