// StreamElementSerializer, KryoSerializer, JavaSerializer and AvroSerializer snapshots and values,
// built byte by byte from Flink's and Avro's specifications (StreamElementSerializer's tags,
// KryoSerializerSnapshotData, AvroSerializerSnapshot version 2, the Avro 1.11 binary encoding,
// the Java Object Serialization Specification).
#include <gtest/gtest.h>

#include <string>

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

std::string XByte(uint8_t b) { return std::string(1, static_cast<char>(b)); }

const char kExtraLong[] = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
const char kStreamElement[] =
    "org.apache.flink.streaming.runtime.streamrecord.StreamElementSerializer$StreamElementSerializerSnapshot";
const char kKryo[] = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot";
const char kAvro[] = "org.apache.flink.formats.avro.typeutils.AvroSerializerSnapshot";
const char kJava[] = "org.apache.flink.runtime.state.JavaSerializer$JavaSerializerSnapshot";
const int64_t kOptionalMapHeader = 0x4f2c69a3d70LL;

// One operator list state "queue" (as the async-wait operator registers it) whose
// VALUE_SERIALIZER is `snapshot` (class, version and own bytes), then a second state "after"
// with a LongSerializer, proving the snapshot's bytes were read to their end.
std::string OperatorMeta(const std::string& snapshot) {
  auto state = [](const std::string& name, const std::string& snap) {
    return Utf(name) + I32(1) + I32(1) + Utf("OPERATOR_STATE_DISTRIBUTION_MODE") + Utf("SPLIT_DISTRIBUTE") + I32(1) +
           Utf("VALUE_SERIALIZER") + I32(2) + snap;
  };
  return I32(6) + XByte(0) + I16(2) + state("queue", snapshot) + state("after", Utf(kExtraLong) + I32(3)) + I16(0);
}

base::Result<SerializerSnapshot> ValueSerializerOf(const std::string& snapshot) {
  CKPT_ASSIGN_OR_RETURN(OperatorBackendMeta meta, ReadOperatorBackendMeta(OperatorMeta(snapshot), "op"));
  if (meta.states.size() != 2 || meta.states[1].name != "after" ||
      !meta.states[1].Serializer("VALUE_SERIALIZER")->decoded) {
    return base::Status::Corruption("the state after the snapshot was not read");
  }
  return *meta.states[0].Serializer("VALUE_SERIALIZER");
}

base::Result<std::string> DecodeExtra(const SerializerSnapshot& s, const std::string& bytes) {
  DataInput in(bytes, "value", 100);
  std::string json;
  CKPT_RETURN_IF_ERROR(DecodeValueJson(s, in, &json));
  if (!in.at_end()) return base::Status::Corruption("trailing bytes");
  return json;
}

// CompositeTypeSerializerSnapshot: magic, outer version, (no outer bytes), then the nested
// snapshots' delegate: magic, version, count, each nested snapshot (class, version, bytes).
std::string StreamElementSnapshot() {
  return Utf(kStreamElement) + I32(2) + I32(0x000DE704) + I32(2) + I32(0x001457FD) + I32(1) + I32(1) +
         Utf(kExtraLong) + I32(3);
}

TEST(FlinkStreamElementTest, RecordsWatermarksAndMarkersByTag) {
  ASSERT_OK_AND_ASSIGN(SerializerSnapshot s, ValueSerializerOf(StreamElementSnapshot()));
  EXPECT_EQ(s.DisplayName(), "StreamElementSerializer<LongSerializer>");
  ASSERT_TRUE(CanDecode(s));
  EXPECT_EQ(*DecodeExtra(s, XByte(0) + I64(1700) + I64(42)), "{\"record\":42,\"timestamp\":1700}");
  EXPECT_EQ(*DecodeExtra(s, XByte(1) + I64(-5)), "{\"record\":-5}");
  EXPECT_EQ(*DecodeExtra(s, XByte(2) + I64(999)), "{\"watermark\":999}");
  EXPECT_EQ(*DecodeExtra(s, XByte(3) + I64(10) + I64(0x22) + I64(0x11) + I32(3)),
            "{\"latency_marker\":{\"marked_time\":10,\"operator_id\":"
            "\"00000000000000110000000000000022\",\"subtask\":3}}");
  EXPECT_EQ(*DecodeExtra(s, XByte(4) + I32(-1)), "{\"watermark_status\":\"IDLE\"}");
  EXPECT_EQ(*DecodeExtra(s, XByte(5) + XByte(1)), "{\"record_attributes\":{\"backlog\":true}}");
  EXPECT_EQ(*DecodeExtra(s, XByte(6) + I32(2) + I64(77)), "{\"watermark\":77,\"subpartition\":2}");
  ASSERT_STATUS(DecodeExtra(s, XByte(9)), kCorruption, "value: at byte 100: stream element tag 9");
  ASSERT_STATUS(DecodeExtra(s, XByte(0) + I64(1)), kCorruption, "value: at byte 109");  // value cut
}

TEST(FlinkKryoSnapshotTest, TypeClassAndRegistrationsAreReadThroughTheirFrames) {
  // One registration (key: the registered class; value: class, UNSPECIFIED), no default
  // serializers, one default serializer class.
  const std::string registration = Utf("com.example.Event") + I32(0);
  const std::string snapshot = Utf(kKryo) + I32(2) + Utf("com.example.Event") +          //
                               I64(kOptionalMapHeader) + I32(1) + Utf("com.example.Event") +  //
                               XByte(1) + Frame(Utf("com.example.Event")) + XByte(1) + Frame(registration) +
                               I64(kOptionalMapHeader) + I32(0) +  //
                               I64(kOptionalMapHeader) + I32(1) + Utf("java.util.UUID") + XByte(1) +
                               Frame(Utf("java.util.UUID")) + XByte(0);
  ASSERT_OK_AND_ASSIGN(SerializerSnapshot s, ValueSerializerOf(snapshot));
  EXPECT_TRUE(s.decoded);
  EXPECT_EQ(s.outer, "com.example.Event");
  EXPECT_EQ(s.DisplayName(), "KryoSerializerSnapshot(Event)");
  EXPECT_FALSE(CanDecode(s));  // Kryo bytes depend on the job's registrations and classes
  // A broken optional-map header names its offset.
  std::string broken = snapshot;
  const size_t header_at = snapshot.find(I64(kOptionalMapHeader));
  broken[header_at + 7] ^= 1;
  const std::string meta = OperatorMeta(broken);
  ASSERT_STATUS(ReadOperatorBackendMeta(meta, "op"), kCorruption,
                "op: at byte " + std::to_string(meta.find(broken.substr(header_at, 8))));
}

TEST(FlinkJavaSerializerTest, ValuesAreJavaObjectsWithClassAndFields) {
  using namespace java_stream_bytes;
  ASSERT_OK_AND_ASSIGN(SerializerSnapshot s, ValueSerializerOf(Utf(kJava) + I32(1)));
  ASSERT_TRUE(CanDecode(s));
  const std::string desc = ClassDesc("com.example.Reading", 1, 0x02,
                                     {PrimField('I', "count"), ObjField("label", Str("Ljava/lang/String;"))});
  const std::string value = StreamHeader() + Object(desc, I32(7) + Str("north"));
  ASSERT_OK_AND_ASSIGN(std::string json, DecodeExtra(s, value));
  EXPECT_NE(json.find("\"class\":\"com.example.Reading\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"count\":7"), std::string::npos) << json;
  EXPECT_NE(json.find("\"label\":\"north\""), std::string::npos) << json;
  ASSERT_STATUS(DecodeExtra(s, value.substr(0, value.size() - 3)), kCorruption, "value: at byte");
}

// The Avro writer schema of a GenericRecord with every kind of type.
const char kSchema[] = R"({"type":"record","name":"Reading","namespace":"com.example","fields":[
  {"name":"id","type":"long"},{"name":"n","type":"int"},{"name":"ok","type":"boolean"},
  {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"raw","type":"bytes"},
  {"name":"label","type":["null","string"]},
  {"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
  {"name":"tags","type":{"type":"array","items":"string"}},
  {"name":"attrs","type":{"type":"map","values":"long"}},
  {"name":"hash","type":{"type":"fixed","name":"Hash","size":2}},
  {"name":"nothing","type":"null"},
  {"name":"next","type":["null","Reading"]}]})";

// Avro's zigzag varint of `v`.
std::string ZigZag(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  std::string out;
  while (z >= 0x80) {
    out += XByte(static_cast<uint8_t>(z | 0x80));
    z >>= 7;
  }
  return out + XByte(static_cast<uint8_t>(z));
}
std::string AvroStr(const std::string& s) { return ZigZag(static_cast<int64_t>(s.size())) + s; }

std::string ReadingDatum(bool with_next) {
  std::string d = ZigZag(-300) + ZigZag(150) + XByte(1) +
                  std::string("\x00\x00\xc0\x3f", 4) +                  // 1.5f little-endian
                  std::string("\x00\x00\x00\x00\x00\x00\x04\xc0", 8) +  // -2.5
                  AvroStr(std::string("\x01\xff", 2)) + ZigZag(1) + AvroStr("hi") + ZigZag(1) +
                  ZigZag(2) + AvroStr("a") + AvroStr("b") + ZigZag(0) +  // array: one block of 2
                  ZigZag(-1) + ZigZag(2) + AvroStr("k") + ZigZag(9) + ZigZag(0) +  // map: sized block
                  std::string("\xab\xcd", 2);
  if (!with_next) return d + ZigZag(0);
  return d + ZigZag(1) + ReadingDatum(false);
}

TEST(FlinkAvroTest, SnapshotSchemaAndGenericRecordValues) {
  const std::string snapshot = Utf(kAvro) + I32(2) + Utf("org.apache.avro.generic.GenericRecord") + Utf(kSchema);
  ASSERT_OK_AND_ASSIGN(SerializerSnapshot s, ValueSerializerOf(snapshot));
  EXPECT_EQ(s.outer, "org.apache.avro.generic.GenericRecord");
  EXPECT_EQ(s.schema, kSchema);
  ASSERT_TRUE(CanDecode(s));
  const std::string inner =
      R"({"id":-300,"n":150,"ok":true,"f":1.5,"d":-2.5,"raw":"0x01ff","label":"hi","color":"GREEN",)"
      R"("tags":["a","b"],"attrs":{"k":9},"hash":"0xabcd","nothing":null,"next":)";
  EXPECT_EQ(*DecodeExtra(s, ReadingDatum(true)), inner + inner + "null}}");
}

TEST(FlinkAvroTest, VersionOneHoldsTheSchemaAlone) {
  ASSERT_OK_AND_ASSIGN(SerializerSnapshot s, ValueSerializerOf(Utf(kAvro) + I32(1) + Utf(R"("long")")));
  EXPECT_EQ(s.schema, "\"long\"");
  EXPECT_EQ(*DecodeExtra(s, ZigZag(-1)), "-1");
}

TEST(FlinkAvroTest, DamagedDatumsNameTheOffset) {
  const std::string snapshot = Utf(kAvro) + I32(2) + Utf("org.apache.avro.generic.GenericRecord") + Utf(kSchema);
  ASSERT_OK_AND_ASSIGN(SerializerSnapshot s, ValueSerializerOf(snapshot));
  const std::string datum = ReadingDatum(false);
  ASSERT_STATUS(DecodeExtra(s, datum.substr(0, 5)), kCorruption, "value: at byte");
  // The label's union branch flipped to 7 (of 2).
  std::string flipped = datum;
  const size_t union_at = datum.find(ZigZag(1) + AvroStr("hi"));
  flipped[union_at] = static_cast<char>(14);  // zigzag 7
  ASSERT_STATUS(DecodeExtra(s, flipped), kCorruption,
                "value: at byte " + std::to_string(100 + union_at) + ": Avro union branch 7 of 2");
  // A string length beyond the bytes left.
  ASSERT_STATUS(DecodeExtra(s, ZigZag(1) + ZigZag(1) + XByte(1) + std::string(12, '\0') + ZigZag(1000)), kCorruption,
                "value: at byte 115: Avro bytes length 1000 exceeds");
}

TEST(FlinkAvroTest, BadSchemaIsNotDecodable) {
  ASSERT_OK_AND_ASSIGN(SerializerSnapshot s,
                       ValueSerializerOf(Utf(kAvro) + I32(2) + Utf("com.example.X") + Utf(R"({"type":"nope"})")));
  EXPECT_FALSE(CanDecode(s));
}

}  // namespace
}  // namespace ckpt::flink
