#include "ckpt/base/checksum.h"

#include <gtest/gtest.h>

#include <string>

namespace ckpt::base {
namespace {

TEST(ChecksumTest, StreamingEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data.push_back(static_cast<char>(i * 31));
  Xxh3Stream s;
  for (size_t pos = 0; pos < data.size(); pos += 777) s.Update(std::string_view(data).substr(pos, 777));
  EXPECT_EQ(s.Digest(), Xxh3(data));
  s.Reset();
  EXPECT_EQ(s.Digest(), Xxh3(""));
}

TEST(ChecksumTest, KnownValueOfEmptyInput) {
  // XXH3_64bits("") from the xxHash reference.
  EXPECT_EQ(ChecksumHex(Xxh3("")), "2d06800538d394c2");
}

TEST(ChecksumTest, OneFlippedBitChangesTheChecksum) {
  std::string a(4096, 'x');
  std::string b = a;
  b[1234] ^= 1;
  EXPECT_NE(Xxh3(a), Xxh3(b));
}

}  // namespace
}  // namespace ckpt::base
