// JSON rendering of encoded values, straight from the bytes.
#include "ckpt/format/value_json.h"

#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::format {
namespace {

std::string Json(const pb::TypeDescriptor& t, const Value& v) {
  auto bytes = EncodeValue(t, v);
  EXPECT_OK(bytes);
  auto json = ValueBytesToJson(t, bytes.ok() ? *bytes : "");
  EXPECT_OK(json);
  return json.ok() ? *json : "<error>";
}

TEST(ValueJsonTest, ScalarsRenderAsDocumented) {
  EXPECT_EQ(Json(types::Int64(), int64_t{-42}), "-42");
  EXPECT_EQ(Json(types::Int64(), std::numeric_limits<int64_t>::max()), "9223372036854775807");
  EXPECT_EQ(Json(types::Double(), 0.1), "0.1");
  EXPECT_EQ(Json(types::Double(), std::numeric_limits<double>::quiet_NaN()), "\"NaN\"");
  EXPECT_EQ(Json(types::Double(), -std::numeric_limits<double>::infinity()), "\"-Infinity\"");
  EXPECT_EQ(Json(types::Bool(), false), "false");
  EXPECT_EQ(Json(types::String(), "a\"b\\c\n\x01"), R"("a\"b\\c\n\u0001")");
  EXPECT_EQ(Json(types::Bytes(), Bytes{"hello"}), "\"aGVsbG8=\"");
  EXPECT_EQ(Json(types::Bytes(), Bytes{"hi"}), "\"aGk=\"");
  EXPECT_EQ(Json(types::Void(), Void{}), "null");
}

TEST(ValueJsonTest, CompositesRenderAsDocumented) {
  EXPECT_EQ(Json(types::Tuple({types::String(), types::Int64()}), Tuple{{"a", int64_t{1}}}),
            R"(["a",1])");
  EXPECT_EQ(Json(types::Tuple({types::String(), types::Int64()}, {"name", "count"}),
                 Tuple{{"a", int64_t{1}}}),
            R"({"name":"a","count":1})");
  // Partly named tuples stay arrays.
  EXPECT_EQ(Json(types::Tuple({types::String(), types::Int64()}, {"name", ""}),
                 Tuple{{"a", int64_t{1}}}),
            R"(["a",1])");
  EXPECT_EQ(Json(types::List(types::Bool()), List{{true, false}}), "[true,false]");
  EXPECT_EQ(Json(types::Map(types::Int64(), types::String()),
                 Map{{{int64_t{2}, "two"}, {int64_t{1}, "one"}}}),
            R"([[2,"two"],[1,"one"]])");
  EXPECT_EQ(Json(types::List(types::Int64()), List{}), "[]");
}

TEST(ValueJsonTest, ProtoMessagesUseProtobufsJsonMapping) {
  google::protobuf::FileDescriptorSet set;
  pb::TypeDescriptor::descriptor()->file()->CopyTo(set.add_file());
  auto type = types::Proto("ckpt.format.v1.TypeDescriptor", set.SerializeAsString());
  ASSERT_OK(ValidateType(type));
  pb::TypeDescriptor message = types::Tuple({types::Int64()}, {"n"});
  Value v = ProtoMessage{message.SerializeAsString()};
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeValue(type, v));
  ASSERT_OK_AND_ASSIGN(std::string json, ValueBytesToJson(type, bytes));
  EXPECT_EQ(json, R"({"kind":"TUPLE","elements":[{"kind":"INT64"}],"fieldNames":["n"]})");
  // Rendering again hits the per-thread cache and gives the same text.
  ASSERT_OK_AND_ASSIGN(std::string again, ValueBytesToJson(type, bytes));
  EXPECT_EQ(again, json);
  ASSERT_STATUS(ValueBytesToJson(type, "\x02\xff\xff"), kCorruption, "do not parse");
  ASSERT_STATUS(ValueBytesToJson(types::Proto("no.Such", set.SerializeAsString()),
                                 std::string(1, '\0')),
                kCorruption, "no message no.Such");
}

TEST(ValueJsonTest, MalformedBytesAreCorruption) {
  ASSERT_STATUS(ValueBytesToJson(types::List(types::Int64()), "\x09\x00"), kCorruption,
                "count larger");
  ASSERT_STATUS(ValueBytesToJson(types::Int64(), "\x01\x02"), kCorruption, "trailing");
  ASSERT_STATUS(ValueBytesToJson(types::Double(), "\x01\x02"), kCorruption, "truncated");
}

TEST(ValueJsonTest, InMemoryValuesRenderWithoutTypes) {
  Value v = Tuple{{int64_t{1}, List{{"x"}}, Map{{{Bytes{"k"}, Void{}}}}, ProtoMessage{"\x08\x01"}}};
  EXPECT_EQ(ValueToJson(v), R"([1,["x"],[["aw==",null]],"CAE="])");
}

}  // namespace
}  // namespace ckpt::format

namespace ckpt::format {
namespace {

// The spellings docs/values.md promises (issue 9, defect 14).
TEST(ValueJsonSpellingTest, DoublesWholeNumbersExponentsAndNegativeZero) {
  auto json = [](double v) {
    auto bytes = EncodeValue(types::Double(), Value(v));
    return ValueBytesToJson(types::Double(), bytes.ok() ? *bytes : "").ValueOr("<error>");
  };
  EXPECT_EQ(json(84.0), "84");
  EXPECT_EQ(json(100000.0), "1e+05");
  EXPECT_EQ(json(1e308), "1e+308");
  EXPECT_EQ(json(1.5e-7), "1.5e-07");
  EXPECT_EQ(json(-0.0), "-0");
}

TEST(ValueJsonSpellingTest, ControlCharactersUseLowercaseHex) {
  auto bytes = EncodeValue(types::String(), Value(std::string("\x1b\x7f")));
  ASSERT_OK(bytes);
  EXPECT_EQ(ValueBytesToJson(types::String(), *bytes).ValueOr(""), R"("\u001b\u007f")");
}

TEST(ValueJsonSpellingTest, DuplicateTupleFieldNamesRenderAsAnArray) {
  const pb::TypeDescriptor t = types::Tuple({types::Int64(), types::Int64()}, {"x", "x"});
  auto bytes = EncodeValue(t, Value(Tuple{{int64_t{1}, int64_t{2}}}));
  ASSERT_OK(bytes);
  EXPECT_EQ(ValueBytesToJson(t, *bytes).ValueOr(""), "[1,2]");
  const pb::TypeDescriptor empty = types::Tuple(std::vector<pb::TypeDescriptor>{});
  auto none = EncodeValue(empty, Value(Tuple{}));
  ASSERT_OK(none);
  EXPECT_EQ(ValueBytesToJson(empty, *none).ValueOr(""), "[]");
}

}  // namespace
}  // namespace ckpt::format
