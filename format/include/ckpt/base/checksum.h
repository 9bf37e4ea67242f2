// XXH3-64 checksums (libxxhash), one-shot and streaming. The format stores them little-endian.
// Xxh3Stream is not thread-safe; the free function is.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace ckpt::base {

uint64_t Xxh3(std::string_view data);

class Xxh3Stream {
 public:
  Xxh3Stream();
  ~Xxh3Stream();
  Xxh3Stream(const Xxh3Stream&) = delete;
  Xxh3Stream& operator=(const Xxh3Stream&) = delete;
  void Update(std::string_view data);
  uint64_t Digest() const;
  void Reset();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Renders a checksum as 16 lowercase hex digits.
std::string ChecksumHex(uint64_t checksum);

}  // namespace ckpt::base
