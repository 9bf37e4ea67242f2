#include "ckpt/base/murmur3.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ckpt::base {
namespace {

std::string Hex(const std::array<uint8_t, 16>& b) {
  std::string s;
  char buf[3];
  for (uint8_t x : b) {
    std::snprintf(buf, sizeof(buf), "%02x", x);
    s += buf;
  }
  return s;
}

TEST(Murmur3Test, EmptyInputWithSeedZeroIsZero) {
  EXPECT_EQ(Hex(Murmur3X64_128("")), std::string(32, '0'));
}

TEST(Murmur3Test, MatchesGuavaMurmur3_128) {
  // The reference implementation gives h1 = 0xcbd8a7b341bd9b02, h2 = 0x5b1e906a48ae1d19 for
  // "hello"; Guava's asBytes() (and so Flink) lays each out little-endian.
  EXPECT_EQ(Hex(Murmur3X64_128("hello")), "029bbd41b3a7d8cb191dae486a901e5b");
  EXPECT_EQ(Murmur3X64_64("hello"), 0xcbd8a7b341bd9b02ULL);
  // Flink's uid hash of "datagen-source-uid" (see operator_id_test.cpp), 18 bytes: both tails.
  EXPECT_EQ(Hex(Murmur3X64_128("datagen-source-uid")), "47aee94394d6ea26e2d544bef0a37bb5");
}

TEST(Murmur3Test, EveryTailLengthChangesTheHash) {
  std::string s;
  std::string prev = Hex(Murmur3X64_128(s));
  for (int i = 0; i < 40; ++i) {
    s.push_back(static_cast<char>('a' + i % 26));
    std::string h = Hex(Murmur3X64_128(s));
    EXPECT_NE(h, prev) << "length " << s.size();
    prev = h;
  }
}

TEST(Murmur3Test, SixtyFourBitVariantIsTheFirstHalf) {
  auto full = Murmur3X64_128("some key");
  uint64_t h1 = 0;
  for (int i = 7; i >= 0; --i) h1 = (h1 << 8) | full[i];
  EXPECT_EQ(Murmur3X64_64("some key"), h1);
}

}  // namespace
}  // namespace ckpt::base
