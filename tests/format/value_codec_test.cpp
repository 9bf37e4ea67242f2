// The binary value encoding: exact bytes per kind, round trips, hostile input.
#include "ckpt/format/value_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::format {
namespace {

std::string Hex(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string Enc(const pb::TypeDescriptor& t, const Value& v) {
  auto r = EncodeValue(t, v);
  EXPECT_OK(r);
  return r.ok() ? *r : "";
}

TEST(ValueCodecTest, ScalarsEncodeAsDocumented) {
  EXPECT_EQ(Hex(Enc(types::Int64(), int64_t{0})), "00");
  EXPECT_EQ(Hex(Enc(types::Int64(), int64_t{-1})), "01");
  EXPECT_EQ(Hex(Enc(types::Int64(), int64_t{1})), "02");
  EXPECT_EQ(Hex(Enc(types::Int64(), int64_t{300})), "d804");
  EXPECT_EQ(Hex(Enc(types::Int64(), std::numeric_limits<int64_t>::min())),
            "ffffffffffffffffff01");
  EXPECT_EQ(Hex(Enc(types::Double(), 1.0)), "000000000000f03f");
  EXPECT_EQ(Hex(Enc(types::Bool(), true)), "01");
  EXPECT_EQ(Hex(Enc(types::String(), "hi")), "026869");
  EXPECT_EQ(Hex(Enc(types::Bytes(), Bytes{std::string("\x00\xff", 2)})), "0200ff");
  EXPECT_EQ(Hex(Enc(types::Void(), Void{})), "");
  EXPECT_EQ(Hex(Enc(types::Proto("x.M", ""), ProtoMessage{"\x08\x01"})), "020801");
}

TEST(ValueCodecTest, CompositesEncodeAsDocumented) {
  auto tuple = types::Tuple({types::String(), types::Int64()}, {"name", "n"});
  EXPECT_EQ(Hex(Enc(tuple, Tuple{{"a", int64_t{2}}})), "016104");
  auto list = types::List(types::Int64());
  EXPECT_EQ(Hex(Enc(list, List{{int64_t{1}, int64_t{2}, int64_t{3}}})), "03020406");
  auto map = types::Map(types::String(), types::Bool());
  EXPECT_EQ(Hex(Enc(map, Map{{{"x", true}, {"y", false}}})), "0201780101790" "0");
}

TEST(ValueCodecTest, NestedValuesRoundTrip) {
  auto type = types::Map(types::Tuple({types::Int64(), types::String()}),
                         types::List(types::Tuple({types::Double(), types::Bytes(),
                                                   types::Void(), types::Bool()})));
  ASSERT_OK(ValidateType(type));
  Map m;
  for (int i = 0; i < 5; ++i) {
    List l;
    for (int j = 0; j < i; ++j) {
      l.elements.push_back(Tuple{{j * 0.5, Bytes{std::string(j, 'b')}, Void{}, j % 2 == 0}});
    }
    m.entries.emplace_back(Tuple{{int64_t{-i}, std::string(i, 's')}}, std::move(l));
  }
  Value v = m;
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeValue(type, v));
  ASSERT_OK_AND_ASSIGN(Value back, DecodeValueExact(type, bytes));
  EXPECT_EQ(back, v);
  std::string_view in = bytes;
  ASSERT_OK(SkipValue(type, &in));
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(TypeName(type),
            "map<tuple<int64, string>, list<tuple<double, bytes, void, bool>>>");
}

TEST(ValueCodecTest, DoubleSpecialValuesRoundTrip) {
  for (double d : {0.0, -0.0, 1e308, std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::denorm_min()}) {
    ASSERT_OK_AND_ASSIGN(Value back, DecodeValueExact(types::Double(), Enc(types::Double(), d)));
    EXPECT_EQ(std::get<double>(back.v), d);
  }
  ASSERT_OK_AND_ASSIGN(
      Value nan, DecodeValueExact(types::Double(),
                                  Enc(types::Double(), std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(std::get<double>(nan.v)));
}

TEST(ValueCodecTest, EncodeRejectsValuesOfTheWrongType) {
  ASSERT_STATUS(EncodeValue(types::Int64(), "text"), kInvalidArgument, "expected int64");
  ASSERT_STATUS(EncodeValue(types::Tuple({types::Int64()}), Tuple{}), kInvalidArgument,
                "tuple fields");
  ASSERT_STATUS(EncodeValue(types::List(types::Void()), List{{Void{}}}), kInvalidArgument,
                "zero bytes");
  pb::TypeDescriptor bad_list = types::List(types::Int64());
  bad_list.add_elements()->set_kind(pb::TypeDescriptor::INT64);
  ASSERT_STATUS(EncodeValue(bad_list, List{}), kInvalidArgument, "exactly one");
}

TEST(ValueCodecTest, DecodeRejectsTruncatedBytesOfEveryKind) {
  auto type = types::Tuple({types::Int64(), types::Double(), types::String(),
                            types::List(types::Bool()), types::Map(types::Int64(), types::Bytes())});
  Value v = Tuple{{int64_t{1000}, 2.5, "str", List{{true, false}},
                   Map{{{int64_t{1}, Bytes{"b"}}}}}};
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeValue(type, v));
  for (size_t n = 0; n < bytes.size(); ++n) {
    ASSERT_STATUS(DecodeValueExact(type, std::string_view(bytes).substr(0, n)), kCorruption,
                  "malformed");
  }
  ASSERT_STATUS(DecodeValueExact(type, bytes + "x"), kCorruption, "trailing");
  ASSERT_STATUS(DecodeValueExact(types::Bool(), "\x02"), kCorruption, "not 0 or 1");
}

TEST(ValueCodecTest, DecodeRefusesHostileCounts) {
  // A list claiming 2^62 elements in three bytes must fail before allocating anything.
  std::string hostile;
  hostile.append("\x80\x80\x80\x80\x80\x80\x80\x80\x40", 9);
  ASSERT_STATUS(DecodeValueExact(types::List(types::Int64()), hostile), kCorruption,
                "count larger than the bytes left");
  ASSERT_STATUS(DecodeValueExact(types::Map(types::Int64(), types::Int64()), "\x05\x00\x00"),
                kCorruption, "count larger");
  ASSERT_STATUS(DecodeValueExact(types::String(), "\x7f"), kCorruption, "past the end");
}

TEST(ValueCodecTest, NestingDeeperThan32IsRefused) {
  pb::TypeDescriptor t = types::Int64();
  for (int i = 0; i < 31; ++i) t = types::List(t);  // depth 32: fine
  ASSERT_OK(ValidateType(t));
  std::string ok_bytes(31, '\x01');
  ok_bytes.push_back('\x00');
  ASSERT_OK(DecodeValueExact(t, ok_bytes));
  pb::TypeDescriptor deeper = types::List(t);  // depth 33
  ASSERT_STATUS(ValidateType(deeper), kInvalidArgument, "deeper than 32");
  ASSERT_STATUS(DecodeValueExact(deeper, std::string(40, '\x01')), kCorruption, "deeper than 32");
}

TEST(ValueCodecTest, ValidateTypeNamesTheProblem) {
  ASSERT_OK(ValidateType(types::Tuple({})));
  pb::TypeDescriptor unknown;
  ASSERT_STATUS(ValidateType(unknown), kInvalidArgument, "unknown type kind");
  ASSERT_STATUS(ValidateType(types::Tuple({types::Int64()}, {"a", "b"})), kInvalidArgument,
                "names");
  ASSERT_STATUS(ValidateType(types::Map(types::Void(), types::Void())), kInvalidArgument,
                "zero bytes");
  ASSERT_OK(ValidateType(types::Map(types::Void(), types::Int64())));
  ASSERT_STATUS(ValidateType(types::Proto("a.B", "garbage\xff")), kInvalidArgument,
                "does not parse");
}

}  // namespace
}  // namespace ckpt::format
