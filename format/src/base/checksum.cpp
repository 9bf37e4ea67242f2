#include "ckpt/base/checksum.h"

#include <xxh_x86dispatch.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace ckpt::base {

// The *_dispatch entry points pick the widest SIMD the CPU has at run time (as xxhsum does);
// Debian's plain XXH3_64bits is built for the baseline x86-64 ISA and is markedly slower.
uint64_t Xxh3(std::string_view data) { return XXH3_64bits_dispatch(data.data(), data.size()); }

struct Xxh3Stream::State {
  XXH3_state_t* st = XXH3_createState();
  ~State() { XXH3_freeState(st); }
};

Xxh3Stream::Xxh3Stream() : state_(std::make_unique<State>()) { Reset(); }
Xxh3Stream::~Xxh3Stream() = default;
void Xxh3Stream::Update(std::string_view data) {
  XXH3_64bits_update_dispatch(state_->st, data.data(), data.size());
}
uint64_t Xxh3Stream::Digest() const { return XXH3_64bits_digest(state_->st); }
void Xxh3Stream::Reset() { XXH3_64bits_reset(state_->st); }

std::string ChecksumHex(uint64_t checksum) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(checksum));
  return buf;
}

Result<FileDigest> Xxh3OfFile(const RandomAccessFile& file, std::string* buffer,
                              const std::function<Status(size_t)>& on_chunk) {
  // Large sequential reads like xxhsum's, small enough that a chunk is still in cache when it
  // is hashed.
  constexpr size_t kChunkBytes = 1u << 20;
  FileDigest out;
  Xxh3Stream hash;
  const uint64_t size = file.Size();
  buffer->resize(kChunkBytes);
  while (out.bytes < size) {
    const auto want = static_cast<size_t>(std::min<uint64_t>(kChunkBytes, size - out.bytes));
    CKPT_ASSIGN_OR_RETURN(size_t n, file.ReadAt(out.bytes, want, buffer->data()));
    if (n == 0) return out;
    hash.Update(std::string_view(buffer->data(), n));
    out.bytes += n;
    if (on_chunk) CKPT_RETURN_IF_ERROR(on_chunk(n));
  }
  out.complete = true;
  out.checksum = hash.Digest();
  return out;
}

}  // namespace ckpt::base
