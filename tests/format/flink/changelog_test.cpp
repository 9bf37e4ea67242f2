// ReadChangeSet and ReadChangelogMetadata over changelog (DSTL) bytes built here the way Flink's
// StateChangeFormat and AbstractStateChangeLogger write them: plain and Snappy-framed files,
// metadata of key/value and timer states; damage is Corruption naming the file and the offset.
#include "ckpt/flink/changelog.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <string>

#include "ckpt/flink/snappy_frames.h"
#include "ckpt/testing/gtest_util.h"
#include "java_bytes.h"

namespace ckpt::flink {
namespace {

using java_bytes::Frame;
using java_bytes::I16;
using java_bytes::I32;
using java_bytes::I64;
using java_bytes::Le;
using java_bytes::Utf;

// A change set: the metadata group first (-1), then key group 5 with two changes.
std::string ChangeSet() {
  return I32(2) + I32(1) + I32(-1) + Frame("meta") + I32(2) + I32(5) + Frame("a") + Frame("bc");
}

std::string Framed(const std::string& data) {
  std::string c;
  snappy::Compress(data.data(), data.size(), &c);
  const std::string id = "sNaPpY";
  const std::string body = Le(MaskCrc32c(Crc32c(data)), 4) + c;
  return std::string(1, '\xFF') + Le(6, 3) + id + std::string(1, '\0') + Le(static_cast<uint32_t>(body.size()), 3) + body;
}

TEST(FlinkChangelogTest, ReadsTheChangeSetAtItsOffset) {
  const std::string file = std::string(1, '\0') + "pad!" + ChangeSet();
  ASSERT_OK_AND_ASSIGN(std::vector<StateChange> changes, ReadChangeSet(file, 4, "dstl/f"));
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].key_group, -1);
  EXPECT_EQ(changes[0].bytes, "meta");
  EXPECT_EQ(changes[1].key_group, 5);
  EXPECT_EQ(changes[1].bytes, "a");
  EXPECT_EQ(changes[2].bytes, "bc");
}

TEST(FlinkChangelogTest, OffsetsOfACompressedFileAreInTheDecompressedStream) {
  const std::string file = std::string(1, '\1') + Framed("pad!" + ChangeSet());
  ASSERT_OK_AND_ASSIGN(std::vector<StateChange> changes, ReadChangeSet(file, 4, "dstl/f"));
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[2].key_group, 5);
  EXPECT_EQ(changes[2].bytes, "bc");
}

TEST(FlinkChangelogTest, DamageIsCorruptionNamingTheFileAndOffset) {
  auto r = ReadChangeSet(std::string(1, '\7') + ChangeSet(), 0, "dstl/f");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("dstl/f: at byte 0: compression flag 7"), std::string::npos)
      << r.status().message();

  r = ReadChangeSet(std::string(1, '\0') + ChangeSet(), 1000, "dstl/f");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("offset 1000 is beyond"), std::string::npos) << r.status().message();

  std::string cut = std::string(1, '\0') + ChangeSet();
  cut.resize(cut.size() - 1);  // the last change loses a byte
  r = ReadChangeSet(cut, 0, "dstl/f");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("dstl/f: at byte "), std::string::npos) << r.status().message();
}

const char kVoid[] = "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";

std::string Simple(const char* cls) { return I32(2) + Utf(cls) + I32(3); }

// name, type, options, serializers (StateMetaInfoSnapshotReadersWriters' current writer).
std::string ValueStateMeta() {
  return Utf("count") + I32(0) + I32(1) + Utf("KEYED_STATE_TYPE") + Utf("VALUE") + I32(2) +
         Utf("NAMESPACE_SERIALIZER") + Simple(kVoid) + Utf("VALUE_SERIALIZER") +
         Simple(java_bytes::kLongSerializerSnapshot);
}

TEST(FlinkChangelogTest, ReadsKeyValueMetadataWithItsDefaultValue) {
  const std::string change = std::string(1, '\x08') + I32(6) + ValueStateMeta() + std::string(1, '\0') +
                             std::string(1, '\1') + I64(42) + I16(3) + std::string(1, '\0');
  ASSERT_OK_AND_ASSIGN(ChangelogStateMeta m, ReadChangelogMetadata(change, "dstl/f"));
  EXPECT_EQ(m.info.name, "count");
  EXPECT_EQ(m.info.Option("KEYED_STATE_TYPE"), "VALUE");
  EXPECT_EQ(m.state_id, 3);
  EXPECT_FALSE(m.ttl);
  EXPECT_TRUE(m.has_default);
}

TEST(FlinkChangelogTest, TimerMetadataHasNoDefaultOrTtl) {
  const std::string meta = Utf("_timer_state/event_t") + I32(3) + I32(0) + I32(1) +
                           Utf("VALUE_SERIALIZER") + Simple(java_bytes::kLongSerializerSnapshot);
  const std::string change = std::string(1, '\x08') + I32(6) + meta + I16(1) + std::string(1, '\3');
  ASSERT_OK_AND_ASSIGN(ChangelogStateMeta m, ReadChangelogMetadata(change, "dstl/f"));
  EXPECT_EQ(m.info.backend_type, StateMetaInfo::BackendType::kPriorityQueue);
  EXPECT_EQ(m.state_id, 1);
}

TEST(FlinkChangelogTest, MetadataWithTheWrongTypeOrTrailingBytesIsCorruption) {
  const std::string body = std::string(1, '\x08') + I32(6) + ValueStateMeta() + std::string(2, '\0') + I16(3);
  auto r = ReadChangelogMetadata(body + std::string(1, '\3'), "dstl/f");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("backend state type 3"), std::string::npos) << r.status().message();
  r = ReadChangelogMetadata(body + std::string(2, '\0'), "dstl/f");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("trailing bytes"), std::string::npos) << r.status().message();
  r = ReadChangelogMetadata(std::string(1, '\1') + "xx", "dstl/f");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a METADATA change"), std::string::npos);
}

}  // namespace
}  // namespace ckpt::flink
