// DataOutput (format/flink/src/data_output.cpp): Java DataOutputStream bytes, checked against
// DataInput and against the bytes Java's writeUTF produces.
#include <gtest/gtest.h>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/data_output.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::flink {
namespace {

TEST(FlinkDataOutputTest, IntegersAreBigEndian) {
  DataOutput out;
  out.WriteI32(0x4960672D);
  out.WriteI64(-2);
  out.WriteU16(0xBEEF);
  out.WriteBool(true);
  EXPECT_EQ(out.bytes(), std::string("\x49\x60\x67\x2D\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFE\xBE\xEF\x01", 15));
  DataInput in(out.bytes(), "buf");
  ASSERT_OK_AND_ASSIGN(int32_t magic, in.ReadI32());
  EXPECT_EQ(magic, 0x4960672D);
  ASSERT_OK_AND_ASSIGN(int64_t v, in.ReadI64());
  EXPECT_EQ(v, -2);
}

TEST(FlinkDataOutputTest, WriteUtfWritesJavaModifiedUtf8) {
  DataOutput out;
  // NUL -> C0 80; U+00E9 -> C3 A9; U+20AC -> E2 82 AC; U+1F600 -> surrogates ED A0 BD ED B8 80.
  ASSERT_OK(out.WriteUtf(std::string("a\0\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 11), "s"));
  EXPECT_EQ(out.bytes(), std::string("\x00\x0E" "a\xC0\x80\xC3\xA9\xE2\x82\xAC\xED\xA0\xBD\xED\xB8\x80", 16));
  DataInput in(out.bytes(), "buf");
  ASSERT_OK_AND_ASSIGN(std::string back, in.ReadUtf());
  EXPECT_EQ(back, std::string("a\0\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80", 11));
}

TEST(FlinkDataOutputTest, RefusesWhatWriteUtfCannotTake) {
  DataOutput out;
  ASSERT_OK(out.WriteUtf(std::string(65535, 'x'), "max"));
  ASSERT_STATUS(out.WriteUtf(std::string(65536, 'x'), "the uid"), kInvalidArgument, "the uid");
  // 21846 three-byte characters: 65538 encoded bytes.
  std::string euros;
  for (int i = 0; i < 21846; ++i) euros += "\xE2\x82\xAC";
  ASSERT_STATUS(out.WriteUtf(euros, "name"), kInvalidArgument, "65538");
  for (const char* bad : {"\xC3", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF"}) {
    ASSERT_STATUS(out.WriteUtf(bad, "name"), kInvalidArgument, "not valid UTF-8");
  }
}

}  // namespace
}  // namespace ckpt::flink
