// Record layouts of the state-file kinds: encode -> decode, and malformed bytes fail cleanly.
#include "ckpt/format/records.h"

#include <gtest/gtest.h>

#include <string>

namespace ckpt::format {
namespace {

TEST(RecordsTest, KeyedRecordRoundTripsWithExactBytes) {
  KeyedRecord in{3, "key", "", "uk", "value"};
  std::string bytes;
  EncodeKeyedRecord(in, &bytes);
  // varint 3 | 03 "key" | 00 | 02 "uk" | 05 "value"
  EXPECT_EQ(bytes, std::string("\x03\x03key\x00\x02uk\x05value", 15));
  KeyedRecord out;
  ASSERT_TRUE(DecodeKeyedRecord(bytes, &out));
  EXPECT_EQ(out.state_index, 3u);
  EXPECT_EQ(out.key, "key");
  EXPECT_EQ(out.ns, "");
  EXPECT_EQ(out.user_key, "uk");
  EXPECT_EQ(out.value, "value");
}

TEST(RecordsTest, KeyedRecordRejectsEveryTruncationAndTrailingBytes) {
  std::string bytes;
  EncodeKeyedRecord({70000, "k", "n", "", "v"}, &bytes);
  KeyedRecord out;
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeKeyedRecord(std::string_view(bytes).substr(0, n), &out)) << n;
  }
  EXPECT_FALSE(DecodeKeyedRecord(bytes + "x", &out));
  // A state index beyond 32 bits and a length past the end are malformed.
  EXPECT_FALSE(DecodeKeyedRecord(std::string("\xff\xff\xff\xff\x7f\x00\x00\x00\x00", 9), &out));
  EXPECT_FALSE(DecodeKeyedRecord(std::string("\x01\x7f", 2), &out));
}

TEST(RecordsTest, OperatorRecordRoundTrips) {
  std::string bytes;
  EncodeOperatorRecord({"", "offset=42"}, &bytes);
  OperatorRecord out;
  ASSERT_TRUE(DecodeOperatorRecord(bytes, &out));
  EXPECT_EQ(out.key, "");
  EXPECT_EQ(out.value, "offset=42");
  EXPECT_FALSE(DecodeOperatorRecord(bytes.substr(0, bytes.size() - 1), &out));
  EXPECT_FALSE(DecodeOperatorRecord(bytes + "z", &out));
}

TEST(RecordsTest, ChangelogRecordRoundTrips) {
  ChangelogRecord in;
  in.sequence = 123456789;
  in.op = ChangeOp::kAppend;
  in.key_group = 77;
  in.change = {1, "k", "", "", "v"};
  std::string bytes;
  EncodeChangelogRecord(in, &bytes);
  ChangelogRecord out;
  ASSERT_TRUE(DecodeChangelogRecord(bytes, &out));
  EXPECT_EQ(out.sequence, in.sequence);
  EXPECT_EQ(out.op, ChangeOp::kAppend);
  EXPECT_EQ(out.key_group, 77u);
  EXPECT_EQ(out.change.state_index, 1u);
  EXPECT_EQ(out.change.key, "k");
  EXPECT_EQ(out.change.value, "v");
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeChangelogRecord(std::string_view(bytes).substr(0, n), &out)) << n;
  }
}

TEST(RecordsTest, ChangelogRecordRejectsUnknownOps) {
  for (uint8_t op : {0, 5, 255}) {
    std::string bytes;
    ChangelogRecord in;
    EncodeChangelogRecord(in, &bytes);
    bytes[1] = static_cast<char>(op);  // sequence 0 is one byte
    ChangelogRecord out;
    EXPECT_FALSE(DecodeChangelogRecord(bytes, &out)) << int{op};
  }
}

}  // namespace
}  // namespace ckpt::format
