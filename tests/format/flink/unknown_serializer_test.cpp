// A serializer snapshot of a class this reader does not know (a user's own serializer) is kept
// with its class name, `decoded` false, and its bytes are passed (Flink writes them without a
// length frame, so the reader finds what must follow: meta_resync.h): every other state still
// lists, and its key-group entries still decode. Built from the byte grammar of
// KeyedBackendSerializationProxy v6 / StateMetaInfoSnapshotReadersWriters.CurrentWriterImpl, and
// from a real Flink 2.0 savepoint with its value serializer's class renamed to a user class.
#include <gtest/gtest.h>

#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/key_group_stream.h"
#include "ckpt/flink/key_group_stream_writer.h"
#include "ckpt/flink/value_decoder.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "java_bytes.h"

namespace ckpt::flink {
namespace {

using java_bytes::I16;
using java_bytes::I32;
using java_bytes::I64;
using java_bytes::Utf;

const char kLong[] = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
const char kString[] =
    "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot";
const char kUnkVoid[] =
    "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";
const char kMine[] = "com.example.MySerializer$Snapshot";
const char kOther[] = "com.example.OtherSerializer$Snapshot";

// TypeSerializerSnapshotSerializationUtil: proxy version 2, class, version, the class's bytes.
std::string Snap(const std::string& cls, const std::string& content = "", int32_t version = 3) {
  return I32(2) + Utf(cls) + I32(version) + content;
}
// A user snapshot's own bytes: deliberately holding a UTF string and odd bytes.
std::string UserContent() { return Utf("com.example.Event") + I32(7) + std::string("\x00\xff\x01", 3); }

std::string State(const std::string& name, const std::string& kind,
                  const std::vector<std::pair<std::string, std::string>>& serializers) {
  std::string s = Utf(name) + I32(0) + I32(1) + Utf("KEYED_STATE_TYPE") + Utf(kind) +
                  I32(static_cast<int32_t>(serializers.size()));
  for (const auto& [k, v] : serializers) s += Utf(k) + v;
  return s;
}

// Three value states; "mine" has a user serializer in the middle of its serializers, "last" as
// the very last snapshot of the meta information.
std::string KeyedMeta(const std::string& key_serializer) {
  return I32(6) + std::string(1, '\0') + key_serializer + I16(3) +
         State("counts", "VALUE", {{"NAMESPACE_SERIALIZER", Snap(kUnkVoid)}, {"VALUE_SERIALIZER", Snap(kLong)}}) +
         State("mine", "VALUE",
               {{"VALUE_SERIALIZER", Snap(kMine, UserContent(), 1)}, {"NAMESPACE_SERIALIZER", Snap(kUnkVoid)}}) +
         State("last", "VALUE",
               {{"NAMESPACE_SERIALIZER", Snap(kUnkVoid)}, {"VALUE_SERIALIZER", Snap(kOther, UserContent(), 2)}});
}

TEST(FlinkUnknownSerializerTest, ListsEveryStateAroundUserSerializers) {
  const std::string bytes = KeyedMeta(Snap(kLong));
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(bytes, "meta"));
  ASSERT_EQ(meta.states.size(), 3u);
  EXPECT_EQ(meta.states[0].name, "counts");
  EXPECT_TRUE(CanDecode(*meta.states[0].Serializer("VALUE_SERIALIZER")));
  const SerializerSnapshot* mine = meta.states[1].Serializer("VALUE_SERIALIZER");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->class_name, kMine);
  EXPECT_EQ(mine->version, 1);
  EXPECT_FALSE(mine->decoded);
  EXPECT_FALSE(CanDecode(*mine));
  // The serializer after the unknown one is read again.
  ASSERT_NE(meta.states[1].Serializer("NAMESPACE_SERIALIZER"), nullptr);
  EXPECT_TRUE(meta.states[1].Serializer("NAMESPACE_SERIALIZER")->decoded);
  EXPECT_EQ(meta.states[2].name, "last");
  EXPECT_EQ(meta.states[2].Serializer("VALUE_SERIALIZER")->class_name, kOther);
  EXPECT_EQ(meta.size_bytes, bytes.size());
}

TEST(FlinkUnknownSerializerTest, AnUnknownKeySerializerLeavesTheStatesListed) {
  const std::string bytes = KeyedMeta(Snap(kMine, UserContent(), 1));
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(bytes, "meta"));
  EXPECT_EQ(meta.key_serializer.class_name, kMine);
  EXPECT_FALSE(meta.key_serializer.decoded);
  ASSERT_EQ(meta.states.size(), 3u);
  EXPECT_EQ(meta.states[0].name, "counts");
  EXPECT_EQ(meta.states[2].name, "last");
}

// The key groups after the meta information: the other states' values still decode, and the
// user serializer's entries keep their framed key and value bytes.
TEST(FlinkUnknownSerializerTest, OtherStatesStillDumpWithTheirValues) {
  KeyGroupStreamWriter w(KeyedMeta(Snap(kLong)), /*compressed=*/false);
  const std::string key = std::string(1, '\x05') + I64(42);  // key group 5, key 42
  std::vector<KeyGroupWriteEntry> entries = {
      {0, key + std::string(1, '\0'), I64(1234)},
      {1, key + std::string(1, '\0'), "\x01\x02\x03"},
      {2, key + std::string(1, '\0'), "opaque"},
  };
  int64_t offset = 0;
  ASSERT_OK(w.AddKeyGroup(entries, &offset));
  const std::string stream = w.Release();
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta,
                       ReadKeyedBackendMeta(StreamMetaBytes(stream, {offset}), "stream"));
  EXPECT_EQ(meta.size_bytes, static_cast<uint64_t>(offset));
  std::vector<std::string> seen;
  const base::Status read = ReadKeyGroupSection(stream, static_cast<uint64_t>(offset), "stream", [&](const KeyGroupEntry& e) {
    const StateMetaInfo& st = meta.states[e.state_id];
    DataInput k(std::string_view(e.key).substr(1, 8), "stream");
    std::string line = st.name + " ";
    EXPECT_OK(DecodeValueJson(meta.key_serializer, k, &line));
    const SerializerSnapshot* vs = st.Serializer("VALUE_SERIALIZER");
    if (CanDecode(*vs)) {
      DataInput v(e.value, "stream");
      line += "=";
      EXPECT_OK(DecodeValueJson(*vs, v, &line));
    } else {
      line += " " + vs->class_name + " " + HexJson(e.value);
    }
    seen.push_back(line);
    return base::Status::OK();
  });
  ASSERT_OK(read);
  EXPECT_EQ(seen, (std::vector<std::string>{"counts 42=1234", std::string("mine 42 ") + kMine + " \"0x010203\"",
                                            std::string("last 42 ") + kOther + " \"0x6f7061717565\""}));
}

TEST(FlinkUnknownSerializerTest, UnboundedLastSnapshotNamesClassStateAndOffset) {
  // A changelog METADATA change goes on after the state: the last serializer cannot be bounded.
  const std::string state =
      State("last", "VALUE", {{"NAMESPACE_SERIALIZER", Snap(kUnkVoid)}, {"VALUE_SERIALIZER", Snap(kOther, UserContent())}});
  DataInput in(state, "change");
  const auto st = ReadStateMetaInfo(in, state, 0);
  ASSERT_STATUS(st, kUnimplemented, kOther);
  EXPECT_NE(st.status().message().find("state 'last'"), std::string::npos) << st.status().ToString();
  const size_t after_class = state.find(kOther) + std::string(kOther).size() + 4;
  EXPECT_NE(st.status().message().find("at byte " + std::to_string(after_class)), std::string::npos)
      << st.status().ToString();
}

TEST(FlinkUnknownSerializerTest, TruncatedAndFlippedBytesNameTheOffset) {
  const std::string bytes = KeyedMeta(Snap(kLong));
  // Cut inside the second state's name: the reader says where.
  const size_t mine = bytes.find("mine");
  const auto cut = ReadKeyedBackendMeta(bytes.substr(0, mine + 2), "meta");
  ASSERT_STATUS(cut, kCorruption, "meta: at byte " + std::to_string(mine - 2));
  // The first state's backend type flipped to 9.
  std::string flipped = bytes;
  const size_t type_at = bytes.find("counts") + 6;
  flipped[type_at + 3] = 9;
  ASSERT_STATUS(ReadKeyedBackendMeta(flipped, "meta"), kCorruption,
                "meta: at byte " + std::to_string(type_at) + ": unknown backend state type 9");
}

TEST(FlinkUnknownSerializerTest, OperatorStatesAroundAUserSerializer) {
  auto op_state = [](const std::string& name, int32_t type, const std::string& serializers, int32_t n) {
    return Utf(name) + I32(type) + I32(1) + Utf("OPERATOR_STATE_DISTRIBUTION_MODE") + Utf(type == 2 ? "BROADCAST" : "SPLIT_DISTRIBUTE") +
           I32(n) + serializers;
  };
  // The last list state's serializer is unknown; a broadcast state follows.
  const std::string bytes = I32(6) + std::string(1, '\0') + I16(2) +
                            op_state("offsets", 1, Utf("VALUE_SERIALIZER") + Snap(kLong), 1) +
                            op_state("buffer", 1, Utf("VALUE_SERIALIZER") + Snap(kMine, UserContent()), 1) + I16(1) +
                            op_state("rules", 2, Utf("KEY_SERIALIZER") + Snap(kString) + Utf("VALUE_SERIALIZER") + Snap(kOther, UserContent()), 2);
  ASSERT_OK_AND_ASSIGN(OperatorBackendMeta meta, ReadOperatorBackendMeta(bytes, "op"));
  ASSERT_EQ(meta.states.size(), 2u);
  EXPECT_EQ(meta.states[1].Serializer("VALUE_SERIALIZER")->class_name, kMine);
  ASSERT_EQ(meta.broadcast_states.size(), 1u);
  EXPECT_EQ(meta.broadcast_states[0].name, "rules");
  EXPECT_TRUE(meta.broadcast_states[0].Serializer("KEY_SERIALIZER")->decoded);
  EXPECT_EQ(meta.broadcast_states[0].Serializer("VALUE_SERIALIZER")->class_name, kOther);
  EXPECT_EQ(meta.size_bytes, bytes.size());
}

// A real canonical savepoint (Flink 2.0, heap backend) with its value serializer's class renamed
// to a user class of the same length: the state still lists, its entry keeps its bytes, the key
// still decodes.
TEST(FlinkUnknownSerializerTest, RenamedSerializerInARealSavepoint) {
  const std::string rel =
      "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint/82c5b6d4-4e5a-42c3-8fe0-070dcc8a702c";
  auto file = base::ReadFileToString(base::Fs::Default(), testing::FixturePath(rel));
  ASSERT_OK(file);
  std::string bytes = *file;
  const size_t meta_end = 0x1f9;  // the first key group's offset
  const std::string meta_text = bytes.substr(0, meta_end);
  const size_t value = meta_text.rfind(kLong);
  ASSERT_NE(value, std::string::npos);
  std::string user = "com.example.UserLongSerializer$Snapshot";
  user.resize(std::string(kLong).size(), 'X');
  bytes.replace(value, user.size(), user);
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(StreamMetaBytes(bytes, {meta_end}), rel));
  ASSERT_EQ(meta.states.size(), 1u);
  const SerializerSnapshot* vs = meta.states[0].Serializer("VALUE_SERIALIZER");
  ASSERT_NE(vs, nullptr);
  EXPECT_EQ(vs->class_name, user);
  EXPECT_FALSE(CanDecode(*vs));
  EXPECT_EQ(meta.size_bytes, meta_end);
  std::vector<std::string> seen;
  const base::Status read = ReadKeyGroupSection(bytes, meta_end, rel, [&](const KeyGroupEntry& e) {
    DataInput key(std::string_view(e.key).substr(1), rel);
    std::string json;
    EXPECT_OK(DecodeValueJson(meta.key_serializer, key, &json));
    seen.push_back(json + "=" + HexJson(e.value));
    return base::Status::OK();
  });
  ASSERT_OK(read);
  EXPECT_EQ(seen, std::vector<std::string>{"[3]=\"0x0000000000000003\""});
}

}  // namespace
}  // namespace ckpt::flink
