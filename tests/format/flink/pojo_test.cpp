// PojoSerializerSnapshot (field names + field serializer snapshots in LinkedOptionalMaps) read
// from bytes built the way PojoSerializerSnapshotData writes them, and Pojo values decoded by it;
// a subclass instance (serialized by a serializer the snapshot does not hold) is refused.
#include <gtest/gtest.h>

#include <string>

#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/value_decoder.h"
#include "ckpt/testing/gtest_util.h"
#include "java_bytes.h"

namespace ckpt::flink {
namespace {

using java_bytes::Frame;
using java_bytes::I32;
using java_bytes::I64;
using java_bytes::Utf;

std::string B(bool b) { return std::string(1, b ? '\1' : '\0'); }

const char kPojo[] = "org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot";
const char kBool[] = "org.apache.flink.api.common.typeutils.base.BooleanSerializer$BooleanSerializerSnapshot";
const int64_t kHeader = 0x4f2c69a3d70LL;

std::string Field(const std::string& name, const char* serializer) {
  return Utf(name) + B(true) + Frame(Utf("com.example.Reading") + Utf(name)) + B(true) +
         Frame(Utf(serializer) + I32(3));
}

// One value state "reading" whose value serializer is the Pojo com.example.Reading {count, ok}.
std::string StateMeta() {
  const std::string pojo = I32(2) + Utf(kPojo) + I32(2) + Utf("com.example.Reading") +
                           I64(kHeader) + I32(2) +
                           Field("count", java_bytes::kLongSerializerSnapshot) +
                           Field("ok", kBool) + I64(kHeader) + I32(0) + I64(kHeader) + I32(0);
  return Utf("reading") + I32(0) + I32(1) + Utf("KEYED_STATE_TYPE") + Utf("VALUE") + I32(1) +
         Utf("VALUE_SERIALIZER") + pojo;
}

TEST(FlinkPojoTest, SnapshotNamesTheFieldsAndTheirSerializers) {
  const std::string bytes = StateMeta();
  DataInput in(bytes, "meta");
  ASSERT_OK_AND_ASSIGN(StateMetaInfo st, ReadStateMetaInfo(in, bytes, 0));
  EXPECT_TRUE(in.at_end());
  const SerializerSnapshot* vs = st.Serializer("VALUE_SERIALIZER");
  ASSERT_NE(vs, nullptr);
  EXPECT_TRUE(vs->decoded);
  EXPECT_EQ(vs->outer, "com.example.Reading");
  ASSERT_EQ(vs->field_names.size(), 2u);
  EXPECT_EQ(vs->field_names[0], "count");
  EXPECT_EQ(vs->field_names[1], "ok");
  EXPECT_EQ(vs->DisplayName(), "PojoSerializerSnapshot(Reading)<LongSerializer, BooleanSerializer>");
  EXPECT_TRUE(CanDecode(*vs));
}

TEST(FlinkPojoTest, ValuesDecodeAsObjectsWithNullFields) {
  const std::string bytes = StateMeta();
  DataInput meta_in(bytes, "meta");
  ASSERT_OK_AND_ASSIGN(StateMetaInfo st, ReadStateMetaInfo(meta_in, bytes, 0));
  const SerializerSnapshot& vs = *st.Serializer("VALUE_SERIALIZER");
  const std::string value = std::string(1, '\2') + B(false) + I64(42) + B(true) + std::string(1, '\1');
  DataInput in(value, "value");
  std::string json;
  ASSERT_OK(DecodeValueJson(vs, in, &json));
  EXPECT_EQ(json, "{\"count\":42,\"ok\":null}");
  EXPECT_EQ(in.remaining(), 1u);  // the next value's byte is left alone

  const std::string null_value(1, '\1');
  DataInput null_in(null_value, "value");
  json.clear();
  ASSERT_OK(DecodeValueJson(vs, null_in, &json));
  EXPECT_EQ(json, "null");

  const std::string subclass_value = std::string(1, '\4') + Utf("com.example.Special");
  DataInput sub(subclass_value, "value");
  json.clear();
  const base::Status st2 = DecodeValueJson(vs, sub, &json);
  EXPECT_FALSE(st2.ok());
  EXPECT_NE(st2.message().find("subclass of com.example.Reading"), std::string::npos) << st2.message();
}

TEST(FlinkPojoTest, AFieldWithAnUnknownSerializerMakesThePojoUndecodable) {
  std::string bytes = StateMeta();
  const std::string from = kBool;
  std::string custom = "com.example.CustomSerializer$Snapshot";
  custom.resize(from.size(), 'X');  // same length: the frames around it stay valid
  bytes.replace(bytes.find(from), from.size(), custom);
  DataInput in(bytes, "meta");
  ASSERT_OK_AND_ASSIGN(StateMetaInfo st, ReadStateMetaInfo(in, bytes, 0));
  EXPECT_TRUE(in.at_end());  // the field's frame bounds the unknown snapshot
  EXPECT_FALSE(CanDecode(*st.Serializer("VALUE_SERIALIZER")));
}

}  // namespace
}  // namespace ckpt::flink
