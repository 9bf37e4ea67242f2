// MurmurHash3 x64_128 (Austin Appleby's reference algorithm), as Guava's Hashing.murmur3_128
// computes it: the 16 output bytes are h1 then h2, each little-endian. Pure function.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ckpt::base {

std::array<uint8_t, 16> Murmur3X64_128(std::string_view data, uint32_t seed = 0);

// The first 8 output bytes as a little-endian integer (h1): a fast 64-bit key hash.
uint64_t Murmur3X64_64(std::string_view data, uint32_t seed = 0);

}  // namespace ckpt::base
