#include "ckpt/base/murmur3.h"

#include <cstring>

namespace ckpt::base {
namespace {

inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t Fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void Hash(std::string_view data, uint32_t seed, uint64_t* out1, uint64_t* out2) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const size_t len = data.size();
  const size_t nblocks = len / 16;
  uint64_t h1 = seed;
  uint64_t h2 = seed;
  constexpr uint64_t c1 = 0x87c37b91114253d5ULL;
  constexpr uint64_t c2 = 0x4cf5ad432745937fULL;

  for (size_t i = 0; i < nblocks; ++i) {
    uint64_t k1 = LoadLe64(bytes + i * 16);
    uint64_t k2 = LoadLe64(bytes + i * 16 + 8);
    k1 *= c1; k1 = Rotl64(k1, 31); k1 *= c2; h1 ^= k1;
    h1 = Rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
    k2 *= c2; k2 = Rotl64(k2, 33); k2 *= c1; h2 ^= k2;
    h2 = Rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
  }

  const uint8_t* tail = bytes + nblocks * 16;
  uint64_t k1 = 0;
  uint64_t k2 = 0;
  // Tail bytes fold in from the highest position down, as in the reference implementation.
  switch (len & 15) {
    case 15: k2 ^= uint64_t{tail[14]} << 48; [[fallthrough]];
    case 14: k2 ^= uint64_t{tail[13]} << 40; [[fallthrough]];
    case 13: k2 ^= uint64_t{tail[12]} << 32; [[fallthrough]];
    case 12: k2 ^= uint64_t{tail[11]} << 24; [[fallthrough]];
    case 11: k2 ^= uint64_t{tail[10]} << 16; [[fallthrough]];
    case 10: k2 ^= uint64_t{tail[9]} << 8; [[fallthrough]];
    case 9:
      k2 ^= uint64_t{tail[8]};
      k2 *= c2; k2 = Rotl64(k2, 33); k2 *= c1; h2 ^= k2;
      [[fallthrough]];
    case 8: k1 ^= uint64_t{tail[7]} << 56; [[fallthrough]];
    case 7: k1 ^= uint64_t{tail[6]} << 48; [[fallthrough]];
    case 6: k1 ^= uint64_t{tail[5]} << 40; [[fallthrough]];
    case 5: k1 ^= uint64_t{tail[4]} << 32; [[fallthrough]];
    case 4: k1 ^= uint64_t{tail[3]} << 24; [[fallthrough]];
    case 3: k1 ^= uint64_t{tail[2]} << 16; [[fallthrough]];
    case 2: k1 ^= uint64_t{tail[1]} << 8; [[fallthrough]];
    case 1:
      k1 ^= uint64_t{tail[0]};
      k1 *= c1; k1 = Rotl64(k1, 31); k1 *= c2; h1 ^= k1;
      break;
    default: break;
  }

  h1 ^= len; h2 ^= len;
  h1 += h2; h2 += h1;
  h1 = Fmix64(h1); h2 = Fmix64(h2);
  h1 += h2; h2 += h1;
  *out1 = h1;
  *out2 = h2;
}

}  // namespace

std::array<uint8_t, 16> Murmur3X64_128(std::string_view data, uint32_t seed) {
  uint64_t h1 = 0, h2 = 0;
  Hash(data, seed, &h1, &h2);
  std::array<uint8_t, 16> out{};
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(h1 >> (8 * i));
    out[8 + i] = static_cast<uint8_t>(h2 >> (8 * i));
  }
  return out;
}

uint64_t Murmur3X64_64(std::string_view data, uint32_t seed) {
  uint64_t h1 = 0, h2 = 0;
  Hash(data, seed, &h1, &h2);
  return h1;
}

}  // namespace ckpt::base
