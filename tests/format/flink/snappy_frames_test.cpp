// DecompressSnappyFrames over streams framed here with libsnappy the way xerial's
// SnappyFramedOutputStream (Flink's SnappyStreamCompressionDecorator) frames them, and over
// damaged ones: every error names the file and the byte offset.
#include "ckpt/flink/snappy_frames.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <string>

#include "ckpt/testing/gtest_util.h"
#include "java_bytes.h"

namespace ckpt::flink {
namespace {

using java_bytes::Le;

std::string Chunk(uint8_t type, const std::string& body) {
  return std::string(1, static_cast<char>(type)) + Le(static_cast<uint32_t>(body.size()), 3) + body;
}

const std::string kIdentifier = Chunk(0xFF, "sNaPpY");

std::string Compressed(const std::string& data) {
  std::string c;
  snappy::Compress(data.data(), data.size(), &c);
  return Chunk(0x00, Le(MaskCrc32c(Crc32c(data)), 4) + c);
}

std::string Uncompressed(const std::string& data) {
  return Chunk(0x01, Le(MaskCrc32c(Crc32c(data)), 4) + data);
}

TEST(FlinkSnappyFramesTest, Crc32cMatchesTheCastagnoliCheckValue) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
}

TEST(FlinkSnappyFramesTest, DecompressesConcatenatedFramedStreams) {
  const std::string a(70000, 'a');  // more than one 64 KiB block
  const std::string framed = kIdentifier + Compressed(a.substr(0, 65536)) + Compressed(a.substr(65536)) +
                             kIdentifier + Uncompressed("tail") + Chunk(0xFE, "pad");
  ASSERT_OK_AND_ASSIGN(std::string out, DecompressSnappyFrames(framed, "kg-file", 100));
  EXPECT_EQ(out, a + "tail");
}

TEST(FlinkSnappyFramesTest, DamageIsCorruptionNamingFileAndOffset) {
  std::string bad_crc = kIdentifier + Compressed("hello");
  bad_crc[10 + 4] ^= 1;  // first checksum byte of the data chunk
  auto r = DecompressSnappyFrames(bad_crc, "kg-file", 100);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("kg-file: at byte 110"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("checksum"), std::string::npos);

  const std::string truncated = (kIdentifier + Compressed("hello")).substr(0, 16);
  r = DecompressSnappyFrames(truncated, "kg-file", 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("kg-file: at byte 10"), std::string::npos) << r.status().message();

  r = DecompressSnappyFrames(kIdentifier + Chunk(0x05, "x"), "kg-file", 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unskippable"), std::string::npos);

  r = DecompressSnappyFrames(Chunk(0xFF, "sNaPpX"), "kg-file", 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("stream identifier"), std::string::npos);

  // A block that claims more than the format's 64 KiB is refused before allocating.
  std::string huge = "\xff\xff\xff\x7f";  // varint uncompressed length 2^31-1
  r = DecompressSnappyFrames(kIdentifier + Chunk(0x00, Le(0, 4) + huge), "kg-file", 0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("invalid length"), std::string::npos);
}

}  // namespace
}  // namespace ckpt::flink
