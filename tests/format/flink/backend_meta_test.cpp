// ReadKeyedBackendMeta, ReadKeyGroupSection and DecodeValueJson over a real key-group stream
// (a Flink 2.0 canonical savepoint of a heap backend: ValueState<Long> keyed by Tuple1<Long>).
#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/key_group_stream.h"
#include "ckpt/flink/value_decoder.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::flink {
namespace {

const std::string kFile =
    "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint/"
    "82c5b6d4-4e5a-42c3-8fe0-070dcc8a702c";

std::string FixtureBytes(const std::string& rel) {
  auto b = base::ReadFileToString(base::Fs::Default(), testing::FixturePath(rel));
  EXPECT_OK(b);
  return b.ok() ? *b : "";
}

TEST(FlinkBackendMetaTest, NamesStatesKindsAndSerializers) {
  const std::string bytes = FixtureBytes(kFile);
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(bytes, kFile));
  EXPECT_EQ(meta.version, 6);
  EXPECT_FALSE(meta.compressed);
  EXPECT_EQ(meta.key_serializer.DisplayName(), "TupleSerializerSnapshot(Tuple1)<LongSerializer>");
  ASSERT_EQ(meta.states.size(), 1u);
  EXPECT_EQ(meta.states[0].name, "state-name");
  EXPECT_EQ(meta.states[0].Option("KEYED_STATE_TYPE"), "VALUE");
  ASSERT_NE(meta.states[0].Serializer("VALUE_SERIALIZER"), nullptr);
  EXPECT_EQ(meta.states[0].Serializer("VALUE_SERIALIZER")->version, 3);
  EXPECT_EQ(meta.size_bytes, 0x1f9u);  // the first key group starts right after it
}

TEST(FlinkBackendMetaTest, DecodesTheKeyGroupEntries) {
  const std::string bytes = FixtureBytes(kFile);
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(bytes, kFile));
  std::vector<std::string> seen;
  const base::Status read = ReadKeyGroupSection(bytes, meta.size_bytes, kFile, [&](const KeyGroupEntry& e) {
    EXPECT_EQ(e.state_id, 0);
    EXPECT_EQ(static_cast<uint8_t>(e.key[0]), 1);  // key group 1, flag bit cleared
    DataInput key(std::string_view(e.key).substr(1), kFile);
    std::string json;
    EXPECT_OK(DecodeValueJson(meta.key_serializer, key, &json));
    json += "=";
    DataInput value(e.value, kFile);
    EXPECT_OK(DecodeValueJson(*meta.states[0].Serializer("VALUE_SERIALIZER"), value, &json));
    seen.push_back(json);
    return base::Status::OK();
  });
  ASSERT_OK(read);
  EXPECT_EQ(seen, std::vector<std::string>{"[3]=3"});
}

TEST(FlinkBackendMetaTest, TruncatedStreamsAreCorruptionNamingTheFile) {
  const std::string bytes = FixtureBytes(kFile);
  for (size_t n : {size_t{3}, size_t{40}, size_t{300}}) {
    ASSERT_STATUS(ReadKeyedBackendMeta(bytes.substr(0, n), kFile), kCorruption, kFile);
  }
  ASSERT_STATUS(ReadKeyGroupSection(bytes.substr(0, 0x200), 0x1f9, kFile,
                                    [](const KeyGroupEntry&) { return base::Status::OK(); }),
                kCorruption, kFile);
}

TEST(FlinkValueDecoderTest, DecodesStringsAndRefusesUnknownSerializers) {
  SerializerSnapshot str{"org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot", 3, "", {}, true};
  // StringValue: length+1 = 4, then "h", "i", U+00E9 (0xE9 = 0x80|0x69, 0x01).
  const std::string bytes("\x04h" "i\xE9\x01", 5);
  DataInput in(bytes, "mem");
  std::string json;
  ASSERT_OK(DecodeValueJson(str, in, &json));
  EXPECT_EQ(json, "\"hi\xC3\xA9\"");
  SerializerSnapshot pojo{"org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot", 2, "", {}, false};
  EXPECT_FALSE(CanDecode(pojo));
  EXPECT_EQ(FixedLength(str), -1);
}

}  // namespace
}  // namespace ckpt::flink
