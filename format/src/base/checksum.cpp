#include "ckpt/base/checksum.h"

#include <xxh_x86dispatch.h>
#include <xxhash.h>

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

}  // namespace ckpt::base
