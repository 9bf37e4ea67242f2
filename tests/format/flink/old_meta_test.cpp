// Keyed backend meta information of Flink 1.4-1.6 (KeyedBackendSerializationProxy versions 3-5),
// built byte by byte from the grammar Flink 1.8+'s KeyedBackendSerializationProxy.read,
// StateMetaInfoSnapshotReadersWriters.V5ReaderImpl, LegacyStateMetaInfoReaders and
// TypeSerializerSerializationUtil.readSerializersAndConfigsWithResilience read: serializers as
// Java serialization streams of the TypeSerializer objects, framed by an offset table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/value_decoder.h"
#include "ckpt/testing/gtest_util.h"
#include "java_bytes.h"
#include "java_stream_bytes.h"

namespace ckpt::flink {
namespace {

using java_bytes::Frame;
using java_bytes::I16;
using java_bytes::I32;
using java_bytes::I64;
using java_bytes::Utf;
namespace js = java_stream_bytes;

const char kTypeSerializer[] = "org.apache.flink.api.common.typeutils.TypeSerializer";

// A serializer class descriptor under TypeSerializer (and TypeSerializerSingleton for the
// singletons), with `fields` in its own class.
std::string SerializerDesc(const std::string& cls, const std::vector<std::string>& fields = {},
                           bool singleton = true) {
  std::string super = js::ClassDesc(kTypeSerializer, 1, 0x02, {});
  if (singleton) super = js::ClassDesc("org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton", 1, 0x02, {}, super);
  return js::ClassDesc(cls, 1, 0x02, fields, super);
}
std::string Singleton(const std::string& cls) { return js::Object(SerializerDesc(cls), ""); }

const char kOldLong[] = "org.apache.flink.api.common.typeutils.base.LongSerializer";
const char kOldString[] = "org.apache.flink.api.common.typeutils.base.StringSerializer";
const char kVoidNs[] = "org.apache.flink.runtime.state.VoidNamespaceSerializer";

// TupleSerializer(Tuple1)<LongSerializer>: TupleSerializerBase's fields arity, fieldSerializers,
// tupleClass.
std::string Tuple1OfLong() {
  const std::string base = js::ClassDesc(
      "org.apache.flink.api.java.typeutils.runtime.TupleSerializerBase", 1, 0x02,
      {js::PrimField('I', "arity"),
       js::ObjField("fieldSerializers", js::Str("[Lorg/apache/flink/api/common/typeutils/TypeSerializer;"), '['),
       js::ObjField("tupleClass", js::Str("Ljava/lang/Class;"))},
      js::ClassDesc(kTypeSerializer, 1, 0x02, {}));
  const std::string desc = js::ClassDesc("org.apache.flink.api.java.typeutils.runtime.TupleSerializer", 1, 0x02, {}, base);
  const std::string array = js::Array(js::ClassDesc("[Lorg.apache.flink.api.common.typeutils.TypeSerializer;", 1, 0x02, {}),
                                      1, Singleton(kOldLong));
  const std::string tuple_class = js::Byte(0x76) + js::ClassDesc("org.apache.flink.api.java.tuple.Tuple1", 1, 0x02, {});
  return js::Object(desc, I32(1) + array + tuple_class);
}

// ListSerializer<StringSerializer>: its field elementSerializer.
std::string ListOfString() {
  const std::string desc = SerializerDesc(
      "org.apache.flink.api.common.typeutils.base.ListSerializer",
      {js::ObjField("elementSerializer", js::Str("Lorg/apache/flink/api/common/typeutils/TypeSerializer;"))}, false);
  return js::Object(desc, Singleton(kOldString));
}

// A serializer entry: the TypeSerializerSerializationProxy (version 1, framed Java stream) and
// the config snapshot (proxy version 1, class, version, bytes).
struct Pair {
  std::string serializer_object;  // one Java object (no stream header)
  std::string config_class;
};

std::string Resilient(const std::vector<Pair>& pairs) {
  std::string buf, table;
  for (const auto& p : pairs) {
    table += I32(static_cast<int32_t>(buf.size()));
    buf += I32(1) + Frame(js::StreamHeader() + p.serializer_object);
    table += I32(static_cast<int32_t>(buf.size()));
    buf += I32(1) + Utf(p.config_class) + I32(1) + Utf("opaque config bytes");
  }
  return I32(static_cast<int32_t>(pairs.size())) + table + I32(static_cast<int32_t>(buf.size())) + buf;
}

const char kParameterless[] = "org.apache.flink.api.common.typeutils.ParameterlessTypeSerializerConfig";

std::string V5State(const std::string& name, const std::string& kind, const std::vector<std::string>& keys,
                    const std::vector<Pair>& pairs) {
  std::string s = Utf(name) + I32(0) + I32(1) + Utf("KEYED_STATE_TYPE") + Utf(kind) + I32(static_cast<int32_t>(keys.size()));
  for (const auto& k : keys) s += Utf(k);
  return s + Resilient(pairs);
}

std::string V5Meta() {
  return I32(5) + js::Byte(0) + Resilient({{Tuple1OfLong(), "TupleSerializerConfigSnapshot"}}) + I16(3) +
         V5State("count", "VALUE", {"NAMESPACE_SERIALIZER", "VALUE_SERIALIZER"},
                 {{Singleton(kVoidNs), kParameterless}, {Singleton(kOldLong), kParameterless}}) +
         V5State("mine", "VALUE", {"NAMESPACE_SERIALIZER", "VALUE_SERIALIZER"},
                 {{Singleton(kVoidNs), kParameterless},
                  {js::Object(SerializerDesc("com.example.MySerializer", {}, false), ""), "com.example.MyConfig"}}) +
         V5State("names", "LIST", {"NAMESPACE_SERIALIZER", "VALUE_SERIALIZER"},
                 {{Singleton(kVoidNs), kParameterless},
                  {ListOfString(), "org.apache.flink.api.common.typeutils.base.CollectionSerializerConfigSnapshot"}});
}

TEST(FlinkOldMetaTest, Version5ListsStatesAndMapsSerializerObjects) {
  const std::string bytes = V5Meta() + "key groups follow";
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(bytes, "flink16"));
  EXPECT_EQ(meta.version, 5);
  EXPECT_FALSE(meta.compressed);
  EXPECT_EQ(meta.size_bytes, V5Meta().size());
  EXPECT_EQ(meta.key_serializer.DisplayName(), "TupleSerializerSnapshot(Tuple1)<LongSerializer>");
  ASSERT_EQ(meta.states.size(), 3u);
  EXPECT_EQ(meta.states[0].name, "count");
  EXPECT_EQ(meta.states[0].Option("KEYED_STATE_TYPE"), "VALUE");
  EXPECT_TRUE(CanDecode(*meta.states[0].Serializer("VALUE_SERIALIZER")));
  EXPECT_TRUE(CanDecode(*meta.states[0].Serializer("NAMESPACE_SERIALIZER")));
  // A user's serializer is kept by name; the offset table frames it, so the next state reads.
  EXPECT_EQ(meta.states[1].Serializer("VALUE_SERIALIZER")->class_name, "com.example.MySerializer");
  EXPECT_FALSE(CanDecode(*meta.states[1].Serializer("VALUE_SERIALIZER")));
  EXPECT_EQ(meta.states[2].Serializer("VALUE_SERIALIZER")->DisplayName(), "ListSerializerSnapshot<StringSerializer>");

  // Values decode through the mapped snapshots: key Tuple1<Long>, list of strings.
  const std::string key_bytes = I64(7);  // DataInput reads it in place: it must outlive `key`
  DataInput key(key_bytes, "v");
  std::string json;
  ASSERT_OK(DecodeValueJson(meta.key_serializer, key, &json));
  EXPECT_EQ(json, "[7]");
  const std::string list = I32(2) + js::Byte(3) + "ab" + js::Byte(1);  // ["ab", ""]
  DataInput v(list, "v");
  json.clear();
  ASSERT_OK(DecodeValueJson(*meta.states[2].Serializer("VALUE_SERIALIZER"), v, &json));
  EXPECT_EQ(json, "[\"ab\",\"\"]");
}

TEST(FlinkOldMetaTest, Versions3And4HaveTypeOrdinalNameAndTwoSerializers) {
  auto state = [](int32_t type, const std::string& name) {
    return I32(type) + Utf(name) + Resilient({{Singleton(kVoidNs), kParameterless}, {Singleton(kOldString), kParameterless}});
  };
  for (int32_t version : {3, 4}) {
    const std::string bytes = I32(version) + (version == 4 ? js::Byte(1) : "") +
                              Resilient({{Singleton(kOldLong), kParameterless}}) + I16(2) + state(1, "last-seen") +
                              state(6, "by-key");
    ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(bytes, "old"));
    EXPECT_EQ(meta.compressed, version == 4);
    ASSERT_EQ(meta.states.size(), 2u);
    EXPECT_EQ(meta.states[0].Option("KEYED_STATE_TYPE"), "VALUE");
    EXPECT_EQ(meta.states[1].name, "by-key");
    EXPECT_EQ(meta.states[1].Option("KEYED_STATE_TYPE"), "MAP");
    EXPECT_TRUE(CanDecode(*meta.states[1].Serializer("VALUE_SERIALIZER")));
    EXPECT_EQ(meta.size_bytes, bytes.size());
  }
}

TEST(FlinkOldMetaTest, TruncatedAndFlippedBytesNameTheOffset) {
  const std::string bytes = V5Meta();
  for (size_t n : {size_t{3}, size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
    ASSERT_STATUS(ReadKeyedBackendMeta(bytes.substr(0, n), "flink16"), kCorruption, "flink16: at byte");
  }
  // The key serializer's config offset flipped beyond the buffer: named at its table slot.
  std::string flipped = bytes;
  flipped[4 + 1 + 4 + 4] = '\x7f';  // after version, compressed, n, serializer offset: the config offset
  ASSERT_STATUS(ReadKeyedBackendMeta(flipped, "flink16"), kCorruption,
                "flink16: at byte 13: serializer buffer offset");
  // The first config snapshot's proxy version flipped.
  const size_t cfg = bytes.find(Utf("TupleSerializerConfigSnapshot")) - 4;
  flipped = bytes;
  flipped[cfg + 3] = 9;
  ASSERT_STATUS(ReadKeyedBackendMeta(flipped, "flink16"), kCorruption,
                "flink16: at byte " + std::to_string(cfg) + ": serializer config snapshot proxy version 9");
}

// OperatorBackendSerializationProxy v3 (Flink 1.5: utf name, u8 mode, resilient(1 | 2)) and v4
// (Flink 1.6: the v5 state layout), each with a broadcast list.
TEST(FlinkOldMetaTest, OperatorStateOfFlink15And16) {
  const std::string v3 = I32(3) + I16(1) + Utf("offsets") + js::Byte(1) + Resilient({{Singleton(kOldLong), kParameterless}}) +
                         I16(1) + Utf("rules") + js::Byte(2) +
                         Resilient({{Singleton(kOldString), kParameterless}, {Singleton(kOldLong), kParameterless}});
  ASSERT_OK_AND_ASSIGN(OperatorBackendMeta m3, ReadOperatorBackendMeta(v3, "op15"));
  ASSERT_EQ(m3.states.size(), 1u);
  EXPECT_EQ(m3.states[0].Option("OPERATOR_STATE_DISTRIBUTION_MODE"), "UNION");
  EXPECT_TRUE(CanDecode(*m3.states[0].Serializer("VALUE_SERIALIZER")));
  ASSERT_EQ(m3.broadcast_states.size(), 1u);
  EXPECT_EQ(m3.broadcast_states[0].backend_type, StateMetaInfo::BackendType::kBroadcast);
  EXPECT_EQ(m3.broadcast_states[0].Serializer("KEY_SERIALIZER")->DisplayName(), "StringSerializer");
  EXPECT_EQ(m3.size_bytes, v3.size());

  const std::string v4 = I32(4) + I16(1) +
                         Utf("buffer") + I32(1) + I32(1) + Utf("OPERATOR_STATE_DISTRIBUTION_MODE") +
                         Utf("SPLIT_DISTRIBUTE") + I32(1) + Utf("VALUE_SERIALIZER") +
                         Resilient({{ListOfString(), "CollectionSerializerConfigSnapshot"}}) + I16(0);
  ASSERT_OK_AND_ASSIGN(OperatorBackendMeta m4, ReadOperatorBackendMeta(v4, "op16"));
  ASSERT_EQ(m4.states.size(), 1u);
  EXPECT_EQ(m4.states[0].Serializer("VALUE_SERIALIZER")->DisplayName(), "ListSerializerSnapshot<StringSerializer>");
  EXPECT_TRUE(m4.broadcast_states.empty());
  // A mode byte out of range names its offset.
  std::string bad = v3;
  bad[4 + 2 + 2 + 7] = 5;
  ASSERT_STATUS(ReadOperatorBackendMeta(bad, "op15"), kCorruption, "op15: at byte 15: unknown operator state mode 5");
}

}  // namespace
}  // namespace ckpt::flink
