// XXH3-64 checksums (libxxhash), one-shot and streaming. The format stores them little-endian.
// Xxh3Stream is not thread-safe; the free function is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/status.h"

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

// What reading a whole file for its checksum found.
struct FileDigest {
  bool complete = false;  // read to Size() (false: the file ended early)
  uint64_t checksum = 0;  // XXH3-64 of the whole file, when complete
  uint64_t bytes = 0;     // bytes read
};

// XXH3-64 of `file`, read from the start in 1 MiB chunks through `buffer`. `on_chunk(n)` runs
// after each chunk of n bytes (progress, cancellation): a non-OK status stops the read and is
// returned. IOError from a read.
Result<FileDigest> Xxh3OfFile(const RandomAccessFile& file, std::string* buffer,
                              const std::function<Status(size_t)>& on_chunk = {});

// Renders a checksum as 16 lowercase hex digits.
std::string ChecksumHex(uint64_t checksum);

}  // namespace ckpt::base
