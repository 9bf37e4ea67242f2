// Private to ckpt::ops: streaming XXH3-64 through libxxhash's runtime CPU dispatch (AVX2/AVX-512
// when available, as xxhsum does), for whole-file checksums on validate's hot path. The result is
// identical to ckpt::base::Xxh3Stream. Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace ckpt::ops::internal {

class FastXxh3 {
 public:
  FastXxh3();
  ~FastXxh3();
  FastXxh3(const FastXxh3&) = delete;
  FastXxh3& operator=(const FastXxh3&) = delete;
  void Update(std::string_view data);
  uint64_t Digest() const;

 private:
  void* state_;  // XXH3_state_t, kept opaque so xxhash.h stays out of this header
};

}  // namespace ckpt::ops::internal
