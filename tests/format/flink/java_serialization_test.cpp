// ReadJavaStream / ReadJavaObject over streams built byte by byte from the grammar of the Java
// Object Serialization Specification: one test per construct, and one per way a stream can be
// malformed or hostile (each a Corruption naming the offset and what was expected).
#include "ckpt/flink/java_serialization.h"

#include <gtest/gtest.h>

#include "ckpt/flink/data_input.h"
#include "ckpt/testing/gtest_util.h"
#include "java_stream_bytes.h"

namespace ckpt::flink {
namespace {

using namespace java_stream_bytes;  // NOLINT: the grammar's vocabulary
using java_bytes::I16;
using java_bytes::I32;
using java_bytes::I64;
using java_bytes::Utf;
using Kind = JavaValue::Kind;

const char kJavaTestFile[] = "/snap/value.ser";

base::Result<JavaStream> JavaDecode(const std::string& body, const JavaStreamLimits& limits = {}) {
  return ReadJavaStream(StreamHeader() + body, kJavaTestFile, 0, limits);
}

TEST(JavaSerializationTest, ReadsEveryPrimitiveField) {
  const std::string desc = ClassDesc(
      "p.Prims", 7, kJavaScSerializable,
      {PrimField('B', "b"), PrimField('C', "c"), PrimField('D', "d"), PrimField('F', "f"),
       PrimField('I', "i"), PrimField('J', "j"), PrimField('S', "s"), PrimField('Z', "z")});
  const std::string data = Byte(0xFE) + I16(0x00E9) + I64(0x3FD0000000000000) /* 0.25 */ +
                           I32(0x3FC00000) /* 1.5f */ + I32(-5) + I64(-9876543210) + I16(-300) +
                           Byte(1);
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Object(desc, data)));
  ASSERT_EQ(s.contents().size(), 1u);
  const JavaValue& root = JavaRootOf(s);
  EXPECT_EQ(root.kind, Kind::kObject);
  EXPECT_EQ(root.class_name(), "p.Prims");
  EXPECT_EQ(root.class_desc->serial_version_uid, 7);
  EXPECT_EQ(root.class_desc->handle, kJavaBaseWireHandle);
  EXPECT_EQ(root.handle, kJavaBaseWireHandle + 1);
  EXPECT_EQ(root.offset, 4u);
  EXPECT_EQ(root.Field("b")->integer, -2);
  EXPECT_EQ(root.Field("c")->integer, 0xE9);
  EXPECT_EQ(root.Field("d")->real, 0.25);
  EXPECT_EQ(root.Field("f")->real, 1.5);
  EXPECT_EQ(root.Field("i")->integer, -5);
  EXPECT_EQ(root.Field("j")->integer, -9876543210);
  EXPECT_EQ(root.Field("s")->integer, -300);
  EXPECT_EQ(root.Field("z")->integer, 1);
  EXPECT_EQ(root.Field("z")->type_code, 'Z');
  EXPECT_EQ(root.Field("missing"), nullptr);
  EXPECT_EQ(JavaValueToJson(root),
            "{\"class\":\"p.Prims\",\"serialVersionUID\":7,\"handle\":\"0x7e0001\",\"fields\":"
            "{\"b\":-2,\"c\":\"\xC3\xA9\",\"d\":0.25,\"f\":1.5,\"i\":-5,\"j\":-9876543210,"
            "\"s\":-300,\"z\":true}}");
}

// Handles: 0 the descriptor, 1 and 2 the signature strings, 3 the object, 4 "x".
TEST(JavaSerializationTest, ObjectFieldsNameTheirTypeAndShareBackReferences) {
  const std::string desc = ClassDesc("p.Refs", 1, kJavaScSerializable,
                                     {ObjField("a", Str("Ljava/lang/String;")),
                                      ObjField("b", Ref(1)), ObjField("c", Str("[I"), '[')});
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Object(desc, Str("x") + Ref(4) + Null())));
  const JavaValue& root = JavaRootOf(s);
  EXPECT_EQ(root.class_desc->fields[0].signature, "Ljava/lang/String;");
  EXPECT_EQ(root.class_desc->fields[1].signature, "Ljava/lang/String;");
  EXPECT_EQ(root.class_desc->fields[2].signature, "[I");
  EXPECT_EQ(root.Field("a")->text, "x");
  EXPECT_EQ(root.Field("a"), root.Field("b"));
  EXPECT_EQ(root.Field("a")->handle, kJavaBaseWireHandle + 4);
  EXPECT_EQ(root.Field("c")->kind, Kind::kNull);
}

TEST(JavaSerializationTest, SuperclassDataComesFirstAndSubclassFieldsShadow) {
  const std::string base = ClassDesc("p.Base", 1, kJavaScSerializable, {PrimField('I', "v")});
  const std::string sub = ClassDesc("p.Sub", 2, kJavaScSerializable, {PrimField('I', "v")}, base);
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Object(sub, I32(1) + I32(2))));
  const JavaValue& root = JavaRootOf(s);
  ASSERT_EQ(root.class_data.size(), 2u);
  EXPECT_EQ(root.class_data[0].desc->name, "p.Base");
  EXPECT_EQ(root.class_data[1].desc->name, "p.Sub");
  EXPECT_EQ(root.Field("v")->integer, 2);
  EXPECT_EQ(root.DataOf("p.Base")->fields[0].second->integer, 1);
  EXPECT_EQ(root.class_desc->super->name, "p.Base");
  EXPECT_NE(JavaValueToJson(root).find("\"fields\":{\"p.Base.v\":1,\"v\":2}"), std::string::npos);
}

TEST(JavaSerializationTest, WriteObjectDataFollowsTheDefaultFields) {
  const std::string desc =
      ClassDesc("p.Custom", 3, kJavaScSerializable | kJavaScWriteMethod, {PrimField('I', "n")});
  const std::string data =
      I32(9) + BlockData("\x01\x02") + Str("tail") + BlockDataLong("abc") + EndBlock();
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Object(desc, data)));
  const JavaClassData& cd = JavaRootOf(s).class_data.at(0);
  EXPECT_EQ(cd.fields.at(0).second->integer, 9);
  ASSERT_TRUE(cd.has_annotations);
  ASSERT_EQ(cd.annotations.size(), 3u);
  EXPECT_EQ(cd.annotations[0]->kind, Kind::kBlockData);
  EXPECT_EQ(cd.annotations[0]->text, "\x01\x02");
  EXPECT_EQ(cd.annotations[1]->text, "tail");
  EXPECT_EQ(cd.annotations[2]->text, "abc");
  EXPECT_NE(
      FormatJavaValue(JavaRootOf(s)).find("writeObject data:\n      blockdata (2 bytes) 01 02\n"),
      std::string::npos)
      << FormatJavaValue(JavaRootOf(s));
}

TEST(JavaSerializationTest, ExternalizableContentsAreKeptAsBlockDataAndObjects) {
  const std::string desc = ClassDesc("p.Ext", 4, kJavaScExternalizable | kJavaScBlockData, {});
  ASSERT_OK_AND_ASSIGN(JavaStream s,
                       JavaDecode(Object(desc, BlockData("xyz") + Null() + EndBlock())));
  const JavaClassData& cd = JavaRootOf(s).class_data.at(0);
  EXPECT_TRUE(cd.has_annotations);
  ASSERT_EQ(cd.annotations.size(), 2u);
  EXPECT_EQ(cd.annotations[0]->text, "xyz");
  EXPECT_NE(FormatJavaValue(JavaRootOf(s)).find("writeExternal data:"), std::string::npos);
}

TEST(JavaSerializationTest, ExternalizableOfProtocolVersionOneIsUnimplemented) {
  const std::string desc = ClassDesc("p.Old", 4, kJavaScExternalizable, {});
  ASSERT_STATUS(JavaDecode(Object(desc, "raw")).status(), kUnimplemented,
                std::string(kJavaTestFile) +
                    ": at byte 26: class p.Old is externalizable and was "
                    "written with stream protocol version 1");
}

// Handles: 0 p.Color, 1 java.lang.Enum, 2 the constant, 3 "RED".
TEST(JavaSerializationTest, EnumConstantsAreSharedByReference) {
  const std::string enum_desc =
      ClassDesc("java.lang.Enum", 0, kJavaScSerializable | kJavaScEnum, {});
  const std::string desc =
      ClassDesc("p.Color", 0, kJavaScSerializable | kJavaScEnum, {}, enum_desc);
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Byte(0x7E) + desc + Str("RED") + Ref(2)));
  ASSERT_EQ(s.contents().size(), 2u);
  EXPECT_EQ(s.contents()[0], s.contents()[1]);
  EXPECT_EQ(JavaRootOf(s).kind, Kind::kEnum);
  EXPECT_EQ(JavaRootOf(s).class_name(), "p.Color");
  EXPECT_EQ(JavaRootOf(s).text, "RED");
  EXPECT_EQ(FormatJavaValue(JavaRootOf(s)), "p.Color.RED\n");
  EXPECT_EQ(JavaValueToJson(JavaRootOf(s)), "{\"enum\":\"p.Color\",\"constant\":\"RED\"}");
}

TEST(JavaSerializationTest, EnumOfANonEnumClassIsRejected) {
  const std::string desc = ClassDesc("p.NotEnum", 0, kJavaScSerializable, {});
  ASSERT_STATUS(JavaDecode(Byte(0x7E) + desc + Str("RED")).status(), kCorruption,
                "at byte 4: TC_ENUM of class p.NotEnum, whose descriptor lacks SC_ENUM");
}

TEST(JavaSerializationTest, PrimitiveArraysOfEveryType) {
  std::string body;
  body += Array(ClassDesc("[Z", 1, kJavaScSerializable, {}), 2, Byte(1) + Byte(0));
  body += Array(ClassDesc("[B", 2, kJavaScSerializable, {}), 3, std::string("\x00\x7F\xFF", 3));
  body += Array(ClassDesc("[C", 3, kJavaScSerializable, {}), 1, I16(0x41));
  body += Array(ClassDesc("[S", 4, kJavaScSerializable, {}), 1, I16(-2));
  body += Array(ClassDesc("[I", 5, kJavaScSerializable, {}), 2, I32(7) + I32(-7));
  body += Array(ClassDesc("[J", 6, kJavaScSerializable, {}), 1, I64(1LL << 40));
  body += Array(ClassDesc("[F", 7, kJavaScSerializable, {}), 1, I32(0x3FC00000));
  body += Array(ClassDesc("[D", 8, kJavaScSerializable, {}), 1, I64(0x3FD0000000000000));
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(body));
  ASSERT_EQ(s.contents().size(), 8u);
  const auto& c = s.contents();
  EXPECT_EQ(c[0]->integers, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(c[1]->text, std::string("\x00\x7F\xFF", 3));
  EXPECT_EQ(c[1]->array_length(), 3u);
  EXPECT_EQ(c[2]->integers, (std::vector<int64_t>{0x41}));
  EXPECT_EQ(c[3]->integers, (std::vector<int64_t>{-2}));
  EXPECT_EQ(c[4]->integers, (std::vector<int64_t>{7, -7}));
  EXPECT_EQ(c[5]->integers, (std::vector<int64_t>{1LL << 40}));
  EXPECT_EQ(c[6]->reals, (std::vector<double>{1.5}));
  EXPECT_EQ(c[7]->reals, (std::vector<double>{0.25}));
  EXPECT_EQ(c[4]->type_code, 'I');
  EXPECT_EQ(JavaValueToJson(*c[1]),
            "{\"class\":\"[B\",\"handle\":\"0x7e0003\",\"elements\":\"0x007fff\"}");
  EXPECT_EQ(JavaValueToJson(*c[2]),
            "{\"class\":\"[C\",\"handle\":\"0x7e0005\",\"elements\":[\"A\"]}");
  EXPECT_EQ(FormatJavaValue(*c[4]), "[I @0x7e0009 (serialVersionUID 5) length 2 {7, -7}\n");
}

// Handles: 0 [Ljava.lang.Object;, 1 the array (which holds itself), 2 [[I, 3 the outer array,
// 4 [I, 5 the inner array.
TEST(JavaSerializationTest, ObjectArraysHoldNullsReferencesAndNestedArrays) {
  const std::string objects = ClassDesc("[Ljava.lang.Object;", 1, kJavaScSerializable, {});
  const std::string nested =
      Array(ClassDesc("[[I", 2, kJavaScSerializable, {}), 2,
            Array(ClassDesc("[I", 3, kJavaScSerializable, {}), 1, I32(5)) + Null());
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Array(objects, 2, Ref(1) + Null()) + nested));
  const JavaValue& self = *s.contents().at(0);
  ASSERT_EQ(self.elements.size(), 2u);
  EXPECT_EQ(self.elements[0], &self);
  EXPECT_EQ(self.elements[1]->kind, Kind::kNull);
  const JavaValue& grid = *s.contents().at(1);
  EXPECT_EQ(grid.type_code, '[');
  EXPECT_EQ(grid.elements.at(0)->integers, (std::vector<int64_t>{5}));
  EXPECT_EQ(FormatJavaValue(self),
            "[Ljava.lang.Object; @0x7e0001 (serialVersionUID 1) length 2 {\n"
            "  [0] -> @0x7e0001 [Ljava.lang.Object;\n"
            "  [1] null\n"
            "}\n");
}

TEST(JavaSerializationTest, ArrayLengthIsCheckedBeforeAnythingIsAllocated) {
  const std::string longs = ClassDesc("[J", 1, kJavaScSerializable, {});
  ASSERT_STATUS(
      JavaDecode(Array(longs, 0x7FFFFFFF, "")).status(), kCorruption,
      "at byte 23: truncated: array length 2147483647 needs at least 17179869176 bytes, 0 left");
  ASSERT_STATUS(JavaDecode(Array(longs, -1, "")).status(), kCorruption, "negative array length -1");
  ASSERT_STATUS(JavaDecode(Array(longs, 2, I64(1))).status(), kCorruption,
                "truncated: array length 2 needs at least 16 bytes, 8 left");
}

TEST(JavaSerializationTest, ArrayOfANonArrayClassIsRejected) {
  ASSERT_STATUS(JavaDecode(Array(ClassDesc("p.NotArray", 1, 2, {}), 0, "")).status(), kCorruption,
                "at byte 4: TC_ARRAY of class \"p.NotArray\", expected an array class");
  ASSERT_STATUS(JavaDecode(Array(ClassDesc("[Q", 1, 2, {}), 0, "")).status(), kCorruption,
                "TC_ARRAY of class \"[Q\"");
  ASSERT_STATUS(JavaDecode(Array(Null(), 0, "")).status(), kCorruption,
                "TC_ARRAY with a null class descriptor");
}

TEST(JavaSerializationTest, StringsAreModifiedUtf8) {
  const std::string modified("\xC0\x80\xED\xA0\xBD\xED\xB8\x80", 8);  // NUL, U+1F600
  const std::string long_string = Byte(0x7C) + I64(3) + "abc";
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Byte(0x74) + Utf(modified) + long_string));
  EXPECT_EQ(s.contents().at(0)->text, std::string("\0\xF0\x9F\x98\x80", 5));
  EXPECT_EQ(s.contents().at(1)->text, "abc");
  EXPECT_EQ(s.contents().at(1)->handle, kJavaBaseWireHandle + 1);
  EXPECT_EQ(FormatJavaValue(*s.contents().at(0)), "\"\\x00\xF0\x9F\x98\x80\"\n");
  ASSERT_STATUS(JavaDecode(Byte(0x74) + Utf("\xFF")).status(), kCorruption,
                "at byte 5: string is not valid modified UTF-8");
  ASSERT_STATUS(JavaDecode(Byte(0x7C) + I64(1000) + "abc").status(), kCorruption,
                "at byte 5: truncated: TC_LONGSTRING of 1000 bytes, 3 left");
  ASSERT_STATUS(JavaDecode(Byte(0x7C) + I64(1) + "\xFF").status(), kCorruption,
                "at byte 13: TC_LONGSTRING is not valid modified UTF-8");
}

// Handles: 0 p.Thing, 1 the class, 2 (the descriptor written as a value) p.Desc.
TEST(JavaSerializationTest, ClassesAndDescriptorsAsValues) {
  const std::string body = Byte(0x76) + ClassDesc("p.Thing", 5, kJavaScSerializable, {}) +
                           ClassDesc("p.Desc", 6, kJavaScSerializable, {PrimField('I', "x")}) +
                           Ref(2);
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(body));
  ASSERT_EQ(s.contents().size(), 3u);
  EXPECT_EQ(s.contents()[0]->kind, Kind::kClass);
  EXPECT_EQ(s.contents()[0]->class_name(), "p.Thing");
  EXPECT_EQ(s.contents()[1]->kind, Kind::kClassDesc);
  EXPECT_EQ(s.contents()[1], s.contents()[2]);
  EXPECT_EQ(FormatJavaValue(*s.contents()[0]), "class p.Thing @0x7e0001\n");
  EXPECT_EQ(FormatJavaValue(*s.contents()[1]),
            "classdesc p.Desc @0x7e0002 (serialVersionUID 6, flags 0x2, 1 fields)\n");
}

// Handles: 0 the proxy descriptor, 1 java.lang.reflect.Proxy, 2 its field's signature, 3 the
// proxy, 4 p.Handler, 5 the handler.
TEST(JavaSerializationTest, ProxyObjectsCarryTheirInterfaces) {
  const std::string proxy_base =
      ClassDesc("java.lang.reflect.Proxy", -2222568056686623797, kJavaScSerializable,
                {ObjField("h", Str("Ljava/lang/reflect/InvocationHandler;"))});
  const std::string proxy_desc = Byte(0x7D) + I32(2) + Utf("p.Greeter") +
                                 Utf("java.io.Serializable") + EndBlock() + proxy_base;
  const std::string handler = Object(ClassDesc("p.Handler", 5, kJavaScSerializable, {}), "");
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Object(proxy_desc, handler)));
  const JavaValue& root = JavaRootOf(s);
  ASSERT_NE(root.class_desc, nullptr);
  EXPECT_TRUE(root.class_desc->is_proxy);
  EXPECT_EQ(root.class_name(), "$Proxy(p.Greeter, java.io.Serializable)");
  EXPECT_EQ(root.class_desc->proxy_interfaces,
            (std::vector<std::string>{"p.Greeter", "java.io.Serializable"}));
  EXPECT_EQ(root.handle, kJavaBaseWireHandle + 3);
  EXPECT_EQ(root.Field("h")->class_name(), "p.Handler");
}

TEST(JavaSerializationTest, BlockDataIsContentButNotAFieldValue) {
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(BlockData("\x00\x05") + Str("after")));
  EXPECT_EQ(s.contents().at(0)->kind, Kind::kBlockData);
  EXPECT_EQ(s.contents().at(1)->text, "after");
  const std::string desc =
      ClassDesc("p.C", 1, kJavaScSerializable, {ObjField("x", Str("Ljava/lang/Object;"))});
  ASSERT_STATUS(JavaDecode(Object(desc, BlockData("z"))).status(), kCorruption,
                "at byte 49: expected the value of field x of p.C (an object), found "
                "TC_BLOCKDATA (0x77)");
}

TEST(JavaSerializationTest, ResetForgetsTheHandles) {
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Str("a") + Reset() + Str("b")));
  ASSERT_EQ(s.contents().size(), 2u);
  EXPECT_EQ(s.contents()[1]->handle, kJavaBaseWireHandle);
  ASSERT_STATUS(JavaDecode(Str("a") + Reset() + Ref(0)).status(), kCorruption,
                "at byte 9: TC_REFERENCE to handle 0x7e0000, expected one of the 0 handle(s)");
  const std::string desc = ClassDesc("p.W", 1, kJavaScSerializable | kJavaScWriteMethod, {});
  ASSERT_STATUS(JavaDecode(Object(desc, Reset() + EndBlock())).status(), kCorruption,
                "TC_RESET (0x79) inside an object");
}

// Handles: 0 p.C, 1 its field's signature, 2 the object; reset; 0 java.io.IOException, 1 the
// exception; reset; 0 "next" (written after the caller caught the exception).
TEST(JavaSerializationTest, ExceptionAbortsTheObjectBeingWritten) {
  const std::string desc =
      ClassDesc("p.C", 1, kJavaScSerializable, {ObjField("x", Str("Ljava/lang/Object;"))});
  const std::string thrown =
      Object(ClassDesc("java.io.IOException", 9, kJavaScSerializable, {}), "");
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Object(desc, Byte(0x7B) + thrown + Str("next"))));
  ASSERT_NE(s.aborted_by(), nullptr);
  ASSERT_EQ(s.contents().size(), 3u);
  EXPECT_EQ(s.contents()[0]->class_name(), "p.C");
  EXPECT_EQ(s.contents()[1], s.aborted_by());
  EXPECT_EQ(s.aborted_by()->exception->class_name(), "java.io.IOException");
  EXPECT_EQ(s.contents()[2]->handle, kJavaBaseWireHandle);
  EXPECT_NE(FormatJavaStream(s).find("exception the writer aborted with: java.io.IOException"),
            std::string::npos);
  EXPECT_NE(JavaStreamToJson(s).find(",\"aborted\":true}"), std::string::npos);
}

TEST(JavaSerializationTest, SelfReferenceIsTheSameNodeAndRenderingsEnd) {
  const std::string desc =
      ClassDesc("p.Loop", 1, kJavaScSerializable, {ObjField("self", Str("Lp/Loop;"))});
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(Object(desc, Ref(2))));
  const JavaValue& root = JavaRootOf(s);
  EXPECT_EQ(root.Field("self"), &root);
  EXPECT_EQ(FormatJavaValue(root),
            "p.Loop @0x7e0002 (serialVersionUID 1) {\n"
            "  p.Loop:\n"
            "    self = -> @0x7e0002 p.Loop\n"
            "}\n");
  EXPECT_EQ(JavaValueToJson(root),
            "{\"class\":\"p.Loop\",\"serialVersionUID\":1,\"handle\":\"0x7e0002\",\"fields\":"
            "{\"self\":{\"ref\":\"0x7e0002\",\"class\":\"p.Loop\"}}}");
}

// Arrays nested `n` deep, each holding the next.
std::string JavaNestedArrays(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += Byte(0x75) +
           (i == 0 ? ClassDesc("[Ljava.lang.Object;", 1, kJavaScSerializable, {}) : Ref(0)) +
           I32(1);
  }
  return out + Null();
}

TEST(JavaSerializationTest, NestingDeeperThanTheLimitIsRejected) {
  ASSERT_STATUS(JavaDecode(JavaNestedArrays(100)).status(), kCorruption,
                "nested deeper than 64 levels");
  JavaStreamLimits deep;
  deep.max_depth = 200;
  ASSERT_OK_AND_ASSIGN(JavaStream s, JavaDecode(JavaNestedArrays(100), deep));
  JavaRenderOptions shallow;
  shallow.max_depth = 3;
  EXPECT_NE(FormatJavaValue(JavaRootOf(s), shallow).find("(not expanded: nested deeper than 3)"),
            std::string::npos);
  EXPECT_NE(JavaValueToJson(JavaRootOf(s), shallow).find("{\"ref\":\"0x7e0004\""),
            std::string::npos);
}

TEST(JavaSerializationTest, NodeAndHandleBudgetsAreEnforced) {
  JavaStreamLimits few_nodes;
  few_nodes.max_nodes = 5;
  const std::string objects = ClassDesc("[Ljava.lang.Object;", 1, kJavaScSerializable, {});
  ASSERT_STATUS(JavaDecode(Array(objects, 10, std::string(10, '\x70')), few_nodes).status(),
                kCorruption, "holds more than 5 values");
  JavaStreamLimits few_handles;
  few_handles.max_handles = 2;
  ASSERT_STATUS(JavaDecode(Str("a") + Str("b") + Str("c"), few_handles).status(), kCorruption,
                "at byte 12: Java serialization stream assigns more than 2 handles");
}

// 70 descriptors, each extending the previous one by reference.
TEST(JavaSerializationTest, SuperclassChainsThroughReferencesAreBounded) {
  std::string body = ClassDesc("p.C0", 1, kJavaScSerializable, {});
  for (uint32_t i = 1; i < 70; ++i) {
    body += ClassDesc("p.C" + std::to_string(i), 1, kJavaScSerializable, {}, Ref(i - 1));
  }
  ASSERT_STATUS(JavaDecode(body).status(), kCorruption, "superclass chain longer than 64");
}

TEST(JavaSerializationTest, MalformedDescriptorsSayWhatWasExpected) {
  const int s = kJavaScSerializable;
  ASSERT_STATUS(
      JavaDecode(Object(ClassDesc("p.C", 1, s, {PrimField('X', "x")}), "")).status(), kCorruption,
      "at byte 22: field x of class p.C: type code 0x58, expected one of B C D F I J S Z L [");
  ASSERT_STATUS(
      JavaDecode(Object(ClassDesc("p.C", 1, s,
                                  {ObjField("o", Str("Ljava/lang/Object;")), PrimField('I', "i")}),
                        ""))
          .status(),
      kCorruption, "field i of class p.C: a primitive field after an object field");
  ASSERT_STATUS(JavaDecode(Object(ClassDesc("p.C", 1, s, {ObjField("o", Str("I"))}), "")).status(),
                kCorruption, "field o of class p.C: type signature \"I\", expected an object");
  ASSERT_STATUS(JavaDecode(Byte(0x72) + Utf("p.C") + I64(1) + Byte(2) + I16(-1)).status(),
                kCorruption, "at byte 19: class p.C: negative field count -1");
  ASSERT_STATUS(
      JavaDecode(Object(ClassDesc("p.C", 1, kJavaScSerializable | kJavaScExternalizable, {}), ""))
          .status(),
      kCorruption, "at byte 19: class p.C: flags set both SC_SERIALIZABLE and SC_EXTERNALIZABLE");
  ASSERT_STATUS(JavaDecode(ClassDesc("p.C", 1, s, {}, Null(), Ref(0))).status(), kCorruption,
                "TC_REFERENCE to class descriptor p.C while it is still being read");
  ASSERT_STATUS(
      JavaDecode(Str("x") + Object(Ref(0), "")).status(), kCorruption,
      "at byte 9: expected the class descriptor of a TC_OBJECT, found a TC_REFERENCE to a "
      "string handle");
  ASSERT_STATUS(JavaDecode(Object(Null(), "")).status(), kCorruption,
                "at byte 4: TC_OBJECT with a null class descriptor");
  ASSERT_STATUS(JavaDecode(Object(Str("p.C"), "")).status(), kCorruption,
                "at byte 5: expected the class descriptor of a TC_OBJECT (TC_CLASSDESC, "
                "TC_PROXYCLASSDESC, TC_REFERENCE or TC_NULL), found TC_STRING (0x74)");
  ASSERT_STATUS(JavaDecode(Byte(0x01)).status(), kCorruption,
                "at byte 4: expected a stream content, found type code 0x01");
  ASSERT_STATUS(JavaDecode(EndBlock()).status(), kCorruption,
                "expected a stream content, found TC_ENDBLOCKDATA (0x78)");
  ASSERT_STATUS(JavaDecode(Ref(0x12345)).status(), kCorruption,
                "at byte 4: TC_REFERENCE to handle 0x7f2345");
}

TEST(JavaSerializationTest, HeaderErrorsNameTheFileAndOffset) {
  ASSERT_STATUS(
      ReadJavaStream(std::string("\xAC\xED\x00\x04", 4), kJavaTestFile).status(), kCorruption,
      std::string(kJavaTestFile) + ": at byte 2: Java serialization stream version 4, expected 5");
  ASSERT_STATUS(ReadJavaStream(std::string("\xAB\xED\x00\x05", 4), kJavaTestFile).status(),
                kCorruption,
                "at byte 0: not a Java serialization stream: expected magic AC ED, found 0xabed");
  ASSERT_STATUS(ReadJavaStream("\xAC\xED", kJavaTestFile, 100).status(), kCorruption,
                "at byte 100: truncated: expected the Java serialization header AC ED 00 05");
  ASSERT_OK_AND_ASSIGN(JavaStream empty, ReadJavaStream(StreamHeader(), kJavaTestFile));
  EXPECT_EQ(empty.root(), nullptr);
  ASSERT_STATUS(
      ReadJavaStream(StreamHeader() + Byte(0x74) + I16(5) + "ab", kJavaTestFile, 1000).status(),
      kCorruption, "at byte 1005: truncated: string of 5 bytes, 2 left");
}

TEST(JavaSerializationTest, ReadJavaObjectStopsAfterOneContent) {
  const std::string bytes = StreamHeader() + Reset() + Str("one") + Str("two");
  DataInput in(bytes, kJavaTestFile);
  ASSERT_OK_AND_ASSIGN(JavaStream s, ReadJavaObject(in));
  ASSERT_EQ(s.contents().size(), 1u);
  EXPECT_EQ(JavaRootOf(s).text, "one");
  EXPECT_EQ(in.remaining(), 6u);
  const std::string header_only = StreamHeader();  // DataInput reads it in place: keep it alive
  DataInput empty(header_only, kJavaTestFile);
  ASSERT_STATUS(ReadJavaObject(empty).status(), kCorruption,
                "at byte 4: truncated: expected a stream content");
}

}  // namespace
}  // namespace ckpt::flink
