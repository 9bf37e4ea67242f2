// ReadJavaStream over streams a real JDK wrote (tests/format/flink/data/java, see its README) and
// the CheckpointProperties trailer of a real Flink savepoint; then every truncation and every bit
// flip of them, which must give an error naming the file and offset, or a stream that renders.
#include <gtest/gtest.h>

#include <cmath>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/java_serialization.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "java_stream_bytes.h"

namespace ckpt::flink {
namespace {

using java_stream_bytes::JavaRootOf;
using Kind = JavaValue::Kind;

std::string JdkSerPath(const std::string& name) {
  return std::string(CKPT_SOURCE_DIR) + "/tests/format/flink/data/java/" + name + ".ser";
}

std::string JdkSerBytes(const std::string& name) { return testing::ReadBytes(JdkSerPath(name)); }

base::Result<JavaStream> JdkDecode(const std::string& name, const std::string& bytes) {
  return ReadJavaStream(bytes, JdkSerPath(name));
}

// The CheckpointProperties that end a Flink 1.20 savepoint's `_metadata`.
std::string FlinkTrailerBytes() {
  const std::string bytes =
      testing::ReadBytes(testing::FixturePath("flink/complexKeyed-flink1.20/_metadata"));
  auto md = ParseFlinkMetadata(bytes, "_metadata");
  EXPECT_TRUE(md.ok()) << md.status().ToString();
  return md.ok() ? md->trailer : std::string();
}

TEST(JavaSerializationJdkTest, HashMapWritesItsEntriesAfterTheDefaultFields) {
  const std::string name = "hashmap";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  const JavaValue& map = JavaRootOf(s);
  EXPECT_EQ(map.class_name(), "java.util.HashMap");
  EXPECT_EQ(map.class_desc->serial_version_uid, 362498820763181265);
  EXPECT_EQ(map.Field("loadFactor")->real, 0.75);
  EXPECT_EQ(map.Field("threshold")->integer, 12);
  EXPECT_EQ(
      JavaStreamToJson(s),
      "{\"contents\":[{\"class\":\"java.util.HashMap\",\"serialVersionUID\":362498820763181265,"
      "\"handle\":\"0x7e0001\",\"fields\":{\"loadFactor\":0.75,\"threshold\":12},"
      "\"annotations\":{\"java.util.HashMap\":[{\"blockData\":\"0x0000001000000002\"},\"one\","
      "{\"class\":\"java.lang.Integer\",\"serialVersionUID\":1360826667806852920,\"handle\":"
      "\"0x7e0005\",\"fields\":{\"value\":1}},\"two\",{\"class\":\"java.lang.Integer\","
      "\"serialVersionUID\":1360826667806852920,\"handle\":\"0x7e0007\",\"fields\":"
      "{\"value\":2}}]}}]}");
  EXPECT_EQ(FormatJavaStream(s),
            "java.util.HashMap @0x7e0001 (serialVersionUID 362498820763181265) {\n"
            "  java.util.HashMap:\n"
            "    loadFactor = float 0.75\n"
            "    threshold = int 12\n"
            "    writeObject data:\n"
            "      blockdata (8 bytes) 00 00 00 10 00 00 00 02\n"
            "      \"one\"\n"
            "      java.lang.Integer @0x7e0005 (serialVersionUID 1360826667806852920) {\n"
            "        java.lang.Integer:\n"
            "          value = int 1\n"
            "      }\n"
            "      \"two\"\n"
            "      java.lang.Integer @0x7e0007 {\n"
            "        java.lang.Integer:\n"
            "          value = int 2\n"
            "      }\n"
            "}\n");
}

TEST(JavaSerializationJdkTest, ArrayListSharesARepeatedString) {
  const std::string name = "arraylist";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  const JavaClassData* list = JavaRootOf(s).DataOf("java.util.ArrayList");
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(list->fields.at(0).second->integer, 5);
  ASSERT_EQ(list->annotations.size(), 6u);  // the capacity block, then 5 elements
  EXPECT_EQ(list->annotations[1]->text, "shared");
  EXPECT_EQ(list->annotations[1], list->annotations[4]);
  EXPECT_EQ(list->annotations[2]->Field("value")->integer, 42);
  EXPECT_EQ(list->annotations[3]->kind, Kind::kNull);
  const JavaValue* magnitude = list->annotations[5]->Field("magnitude");
  ASSERT_NE(magnitude, nullptr);
  EXPECT_EQ(magnitude->class_name(), "[B");
  EXPECT_EQ(magnitude->array_length(), 13u);
}

TEST(JavaSerializationJdkTest, EnumConstantWithABody) {
  const std::string name = "enum";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  EXPECT_EQ(JavaRootOf(s).kind, Kind::kEnum);
  EXPECT_EQ(JavaRootOf(s).class_name(), "Gen$Color");
  EXPECT_EQ(JavaRootOf(s).text, "GREEN");
  EXPECT_EQ(JavaRootOf(s).class_desc->super->name, "java.lang.Enum");
}

TEST(JavaSerializationJdkTest, WriteObjectDataAfterDefaultWriteObject) {
  const std::string name = "write_object";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  const JavaValue& root = JavaRootOf(s);
  EXPECT_EQ(root.class_desc->serial_version_uid, 42);
  EXPECT_EQ(root.Field("count")->integer, 3);
  EXPECT_EQ(root.Field("label")->text, "custom");
  EXPECT_EQ(root.Field("skipped"), nullptr);  // transient
  const JavaClassData& cd = root.class_data.at(0);
  ASSERT_EQ(cd.annotations.size(), 2u);
  EXPECT_EQ(cd.annotations[0]->text, std::string("\0\0\0\x07\0\x05"
                                                 "extra",
                                                 11));
  EXPECT_EQ(cd.annotations[1]->class_name(), "java.util.CollSer");
}

TEST(JavaSerializationJdkTest, FlinkLikeObjectWithEveryKindOfField) {
  const std::string name = "flink_like";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  const JavaValue& root = JavaRootOf(s);
  EXPECT_EQ(root.class_desc->serial_version_uid, -2837468371818471926);
  EXPECT_EQ(root.Field("z")->integer, 1);
  EXPECT_EQ(root.Field("b")->integer, -2);
  EXPECT_EQ(root.Field("c")->integer, 0xE9);
  EXPECT_EQ(root.Field("s")->integer, -300);
  EXPECT_EQ(root.Field("i")->integer, 123456);
  EXPECT_EQ(root.Field("j")->integer, -9876543210);
  EXPECT_EQ(root.Field("f")->real, 1.5);
  EXPECT_EQ(root.Field("d")->real, -0.25);
  EXPECT_EQ(root.Field("unit")->text, "SECONDS");
  EXPECT_EQ(root.Field("unit")->class_name(), "java.util.concurrent.TimeUnit");
  const JavaValue* ttl = root.Field("ttl");
  EXPECT_EQ(ttl->class_name(), "java.time.Ser");  // Duration.writeReplace
  EXPECT_TRUE(ttl->class_desc->has_flag(kJavaScExternalizable));
  EXPECT_EQ(ttl->class_data.at(0).annotations.at(0)->text.size(), 13u);
  EXPECT_EQ(root.Field("ints")->integers, (std::vector<int64_t>{1, -1, 2147483647}));
  EXPECT_TRUE(std::isnan(root.Field("doubles")->reals.at(1)));
  EXPECT_EQ(root.Field("bytes")->text, std::string("\0\x01\xFF", 3));
  EXPECT_EQ(root.Field("grid")->elements.at(0)->elements.at(1)->text, "b");
  EXPECT_EQ(root.Field("counts")->class_name(), "java.util.TreeMap");
  EXPECT_EQ(root.Field("type")->kind, Kind::kClass);
  EXPECT_EQ(root.Field("type")->class_name(), "java.lang.String");
  EXPECT_EQ(root.Field("self"), &root);
  const std::string text = FormatJavaValue(root);
  EXPECT_NE(text.find("    self = -> @0x7e000b Gen$FlinkLike\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    doubles = [D @0x7e001c (serialVersionUID 4514449696888150558) length 2 "
                      "{0.5, NaN}\n"),
            std::string::npos)
      << text;
  EXPECT_NE(JavaValueToJson(root).find("\"unit\":{\"enum\":\"java.util.concurrent.TimeUnit\","
                                       "\"constant\":\"SECONDS\"}"),
            std::string::npos);
}

TEST(JavaSerializationJdkTest, StringArrayWithModifiedUtf8) {
  const std::string name = "string_array";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  const JavaValue& a = JavaRootOf(s);
  EXPECT_EQ(a.class_name(), "[Ljava.lang.String;");
  ASSERT_EQ(a.elements.size(), 4u);
  EXPECT_EQ(a.elements[0], a.elements[2]);
  EXPECT_EQ(a.elements[1]->kind, Kind::kNull);
  EXPECT_EQ(a.elements[3]->text, std::string("\0\xC3\xA9\xF0\x9F\x98\x80", 7));
}

TEST(JavaSerializationJdkTest, CycleResolvesToTheSameNodes) {
  const std::string name = "cycle";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  const JavaValue& a = JavaRootOf(s);
  const JavaValue* b = a.Field("next");
  EXPECT_EQ(a.Field("name")->text, "a");
  EXPECT_EQ(b->Field("name")->text, "b");
  EXPECT_EQ(b->Field("next"), &a);
  EXPECT_EQ(a.Field("id")->integer, 99);  // from the superclass Gen$Base
  EXPECT_EQ(a.class_data.at(0).desc->name, "Gen$Base");
}

TEST(JavaSerializationJdkTest, ProxyInstance) {
  const std::string name = "proxy";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  EXPECT_EQ(JavaRootOf(s).class_name(), "$Proxy(Gen$Greeter, java.io.Serializable)");
  EXPECT_EQ(JavaRootOf(s).Field("h")->Field("word")->text, "hi");
}

TEST(JavaSerializationJdkTest, AbortedWriteKeepsThePartialObjectAndTheException) {
  const std::string name = "exception";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  ASSERT_NE(s.aborted_by(), nullptr);
  EXPECT_EQ(JavaRootOf(s).class_name(), "Gen$HoldsUnserializable");
  const JavaValue* thrown = s.aborted_by()->exception;
  EXPECT_EQ(thrown->class_name(), "java.io.NotSerializableException");
  EXPECT_EQ(thrown->Field("detailMessage")->text, "java.lang.Object");
  EXPECT_EQ(thrown->Field("cause"), thrown);
}

TEST(JavaSerializationJdkTest, BlockDataResetAndObjectsAtTopLevel) {
  const std::string name = "several";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JdkDecode(name, JdkSerBytes(name)));
  ASSERT_EQ(s.contents().size(), 4u);
  EXPECT_EQ(s.contents()[0]->text, std::string("\0\0\0\x05", 4));
  EXPECT_EQ(s.contents()[1]->text, "first");
  EXPECT_NE(s.contents()[1], s.contents()[2]);  // written again after reset()
  EXPECT_EQ(s.contents()[2]->handle, kJavaBaseWireHandle);
  EXPECT_EQ(s.contents()[3]->class_name(), "java.util.Date");
}

TEST(JavaSerializationJdkTest, FlinkCheckpointPropertiesTrailer) {
  const std::string trailer = FlinkTrailerBytes();
  ASSERT_OK_AND_ASSIGN(JavaStream s, ReadJavaStream(trailer, "_metadata", 13780));
  const JavaValue& props = JavaRootOf(s);
  EXPECT_EQ(props.class_name(), "org.apache.flink.runtime.checkpoint.CheckpointProperties");
  EXPECT_EQ(props.offset, 13784u);
  EXPECT_EQ(props.Field("forced")->integer, 1);
  const JavaValue* type = props.Field("checkpointType");
  EXPECT_EQ(type->class_name(), "org.apache.flink.runtime.checkpoint.SavepointType");
  EXPECT_EQ(type->Field("name")->text, "Savepoint");
  EXPECT_EQ(type->Field("formatType")->text, "CANONICAL");
  EXPECT_EQ(type->Field("postCheckpointAction")->text, "NONE");
}

struct JdkSample {
  std::string name;
  std::string bytes;
};

std::vector<JdkSample> JdkSamples() {
  std::vector<JdkSample> out;
  for (const char* name : {"hashmap", "arraylist", "enum", "write_object", "flink_like",
                           "string_array", "cycle", "proxy", "exception", "several"}) {
    out.push_back({name, JdkSerBytes(name)});
  }
  out.push_back({"trailer", FlinkTrailerBytes()});
  return out;
}

// Every cut of a stream holding one object: ReadJavaObject fails with "truncated", naming the
// file and offset.
TEST(JavaSerializationJdkTest, EveryTruncationIsAnErrorNamingTheOffset) {
  for (const JdkSample& sample : JdkSamples()) {
    if (sample.name == "several") continue;  // its first content is 6 bytes of block data
    SCOPED_TRACE(sample.name);
    // The aborted write is 1.6 KB of stack trace: every 7th cut of it is enough.
    const size_t step = sample.name == "exception" ? 7 : 1;
    for (size_t cut = 0; cut < sample.bytes.size(); cut += step) {
      DataInput in(std::string_view(sample.bytes).substr(0, cut), "cut/" + sample.name);
      auto s = ReadJavaObject(in);
      ASSERT_FALSE(s.ok()) << "cut at " << cut;
      EXPECT_EQ(s.status().code(), base::StatusCode::kCorruption) << s.status().ToString();
      EXPECT_EQ(s.status().message().rfind("cut/" + sample.name + ": at byte ", 0), 0u)
          << s.status().message();
      // Callers tell a cut file from a damaged one by this word (validate's CKPT-M004).
      EXPECT_NE(s.status().message().find("truncated"), std::string::npos) << s.status().message();
    }
  }
}

// A flipped bit in every byte (which bit varies with the offset; all 8 in the header and first
// type codes): an error naming the file and offset, or a stream both renderings handle. The
// aborted write is left out (its stack trace makes it slow and adds no construct).
TEST(JavaSerializationJdkTest, EveryFlippedByteIsAnErrorOrRenders) {
  size_t decoded = 0;
  for (const JdkSample& sample : JdkSamples()) {
    if (sample.name == "exception") continue;
    SCOPED_TRACE(sample.name);
    for (size_t at = 0; at < sample.bytes.size(); ++at) {
      for (int bit = 0; bit < 8; ++bit) {
        if (at >= 8 && bit != static_cast<int>((at * 3) % 8)) continue;
        std::string bytes = sample.bytes;
        bytes[at] = static_cast<char>(bytes[at] ^ (1 << bit));
        auto s = ReadJavaStream(bytes, "flip/" + sample.name);
        if (s.ok()) {
          ++decoded;
          EXPECT_FALSE(FormatJavaStream(*s).empty() && !s->contents().empty());
          EXPECT_EQ(JavaStreamToJson(*s).rfind("{\"contents\":[", 0), 0u);
          continue;
        }
        EXPECT_TRUE(s.status().code() == base::StatusCode::kCorruption ||
                    s.status().code() == base::StatusCode::kUnimplemented)
            << s.status().ToString();
        EXPECT_EQ(s.status().message().rfind("flip/" + sample.name + ": at byte ", 0), 0u)
            << s.status().message();
      }
    }
  }
  EXPECT_GT(decoded, 0u);  // flips inside values (ints, string bytes) still decode
}

}  // namespace
}  // namespace ckpt::flink
