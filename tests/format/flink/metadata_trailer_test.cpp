// Every byte of a Flink `_metadata` belongs to its grammar: a file cut anywhere, or with bytes
// after its CheckpointProperties trailer, is either a parse error or a properties defect
// (PropertiesStatus), never a whole file; and a wrong magic says what the file starts with.
#include <gtest/gtest.h>

#include "ckpt/base/posix_fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::flink {
namespace {

const char kPath[] = "/snap/_metadata";

std::string FixtureMetadataBytes(const std::string& name) {
  return testing::ReadBytes(testing::FixturePath("flink/" + name + "/_metadata"));
}

// What a reader of `bytes` learns: OK only if the file decoded whole.
base::Status WholeFileStatus(std::string_view bytes) {
  auto md = ParseFlinkMetadata(bytes, kPath);
  if (!md.ok()) return md.status();
  return PropertiesStatus(*md);
}

TEST(FlinkMetadataTrailerTest, EveryFixtureIsWhole) {
  for (const std::string& name : testing::FlinkFixtureNames()) {
    SCOPED_TRACE(name);
    EXPECT_OK(WholeFileStatus(FixtureMetadataBytes(name)));
  }
}

void ExpectCorruptionNamingTheFile(const std::string& bytes, size_t cut) {
  const base::Status st = WholeFileStatus(std::string_view(bytes).substr(0, cut));
  EXPECT_EQ(st.code(), base::StatusCode::kCorruption) << "cut at " << cut << ": " << st.ToString();
  EXPECT_NE(st.message().find(kPath), std::string::npos) << st.message();
}

// Every 97th byte and the last 8: Corruption naming the file, whatever the version.
TEST(FlinkMetadataTrailerTest, EveryTruncationOfEveryFixtureIsCorruption) {
  for (const std::string& name : testing::FlinkFixtureNames()) {
    SCOPED_TRACE(name);
    const std::string bytes = FixtureMetadataBytes(name);
    for (size_t cut = 0; cut < bytes.size(); cut += 97) ExpectCorruptionNamingTheFile(bytes, cut);
    for (size_t back = 1; back <= 8; ++back) {
      ExpectCorruptionNamingTheFile(bytes, bytes.size() - back);
    }
  }
}

// Each cut from the end of the last operator through the properties (v4 and v5).
TEST(FlinkMetadataTrailerTest, EveryCutOfThePropertiesIsCorruption) {
  for (const std::string name : {"complexKeyed-flink1.20", "nonKeyed-flink2.0"}) {
    SCOPED_TRACE(name);
    const std::string bytes = FixtureMetadataBytes(name);
    ASSERT_OK_AND_ASSIGN(Metadata whole, ParseFlinkMetadata(bytes, kPath));
    ASSERT_GT(whole.trailer_size, 100u);
    for (size_t cut = whole.trailer_offset; cut < bytes.size(); ++cut) {
      ExpectCorruptionNamingTheFile(bytes, cut);
    }
  }
}

TEST(FlinkMetadataTrailerTest, FileEndingAfterTheOperatorsLacksItsProperties) {
  const std::string bytes = FixtureMetadataBytes("nonKeyed-flink2.0");
  ASSERT_OK_AND_ASSIGN(Metadata whole, ParseFlinkMetadata(bytes, kPath));
  ASSERT_GT(whole.trailer_offset, 0u);
  ASSERT_OK_AND_ASSIGN(Metadata cut,
                       ParseFlinkMetadata(bytes.substr(0, whole.trailer_offset), kPath));
  EXPECT_FALSE(cut.properties.has_value());
  ASSERT_STATUS(PropertiesStatus(cut), kCorruption,
                std::string(kPath) + ": at byte " + std::to_string(whole.trailer_offset) +
                    ": truncated: the file ends after the last operator");
}

TEST(FlinkMetadataTrailerTest, BytesAfterThePropertiesAreADefect) {
  const std::string bytes = FixtureMetadataBytes("complexKeyed-flink1.20") + "xyz";
  ASSERT_OK_AND_ASSIGN(Metadata md, ParseFlinkMetadata(bytes, kPath));
  ASSERT_STATUS(PropertiesStatus(md), kCorruption,
                "trailing bytes: 3 byte(s) after the CheckpointProperties object");
  EXPECT_NE(PropertiesStatus(md).message().find(kPath), std::string::npos);
}

// v2/v3 have no trailer: bytes after the last operator fail the parse itself.
TEST(FlinkMetadataTrailerTest, BytesAfterTheOperatorsOfV3FailTheParse) {
  const std::string bytes = FixtureMetadataBytes("complexKeyed-flink1.14") + "x";
  ASSERT_STATUS(ParseFlinkMetadata(bytes, kPath).status(), kCorruption, "trailing garbage");
}

TEST(FlinkMetadataTrailerTest, PropertiesOfAnotherClassAreADefect) {
  std::string bytes = FixtureMetadataBytes("nonKeyed-flink2.0");
  const size_t at = bytes.rfind("CheckpointProperties");
  ASSERT_NE(at, std::string::npos);
  bytes[at] = 'X';  // same length: still a well-formed Java object, of another class
  ASSERT_OK_AND_ASSIGN(Metadata md, ParseFlinkMetadata(bytes, kPath));
  EXPECT_FALSE(md.properties.has_value());
  ASSERT_STATUS(PropertiesStatus(md), kCorruption,
                "XheckpointProperties, not CheckpointProperties");
}

TEST(FlinkMetadataTrailerTest, BadMagicSaysWhatTheFileStartsWith) {
  std::string bytes = FixtureMetadataBytes("nonKeyed-flink2.0");
  bytes[3] = static_cast<char>(bytes[3] ^ 0x01);
  ASSERT_STATUS(ParseFlinkMetadata(bytes, kPath).status(), kCorruption,
                "bad magic: it starts with 49 60 67 2c, not Flink's 0x4960672D");
}

}  // namespace
}  // namespace ckpt::flink
