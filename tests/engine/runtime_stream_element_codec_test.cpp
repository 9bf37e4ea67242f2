#include "runtime/stream_element_codec.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::engine::runtime {
namespace {

TEST(StreamElementCodecTest, RecordsAndWatermarksRoundTrip) {
  std::vector<Record> records = {
      Record(format::Value(int64_t{-5}), format::Value(std::string("hello")), 1234),
      Record(format::Value(std::string("k")),
             format::Value(format::Tuple{{format::Value(int64_t{1}), format::Value(2.5),
                                          format::Value(true), format::Value()}})),
      Record(format::Value(format::Bytes{"\x01\x02"}),
             format::Value(format::Map{{{format::Value("a"), format::Value(
                                            format::List{{format::Value(int64_t{7})}})}}}),
             kNoTimestamp),
  };
  std::string buf;
  for (const Record& r : records) AppendRecordElement(r, &buf);
  AppendWatermarkElement(99, &buf);
  std::string_view in(buf);
  Record scratch;
  int64_t wm = 0;
  for (const Record& r : records) {
    ASSERT_OK_AND_ASSIGN(uint8_t tag, DecodeElement(&in, &scratch, &wm));
    EXPECT_EQ(tag, kRecordTag);
    EXPECT_EQ(scratch, r);
  }
  ASSERT_OK_AND_ASSIGN(uint8_t tag, DecodeElement(&in, &scratch, &wm));
  EXPECT_EQ(tag, kWatermarkTag);
  EXPECT_EQ(wm, 99);
  EXPECT_TRUE(in.empty());
}

TEST(StreamElementCodecTest, Int64RecordsTakeTheFastPathWithTheFormatsBytes) {
  const int64_t values[] = {0, 1, -1, 63, -64, 64, 127, 128, 300, -300, INT64_MAX, INT64_MIN,
                            INT64_MIN + 1, int64_t{1} << 40};
  const int64_t timestamps[] = {kNoTimestamp, 0, -7, 1700000000000, INT64_MAX};
  for (int64_t k : values) {
    for (int64_t v : values) {
      for (int64_t ts : timestamps) {
        Record r(format::Value(k), format::Value(v), ts);
        std::string fast, reference;
        AppendRecordElement(r, &fast);
        format::AppendRecordElement(r.key, r.value, r.timestamp, &reference);
        ASSERT_EQ(fast, reference) << k << " " << v << " " << ts;
        // Decoded into a record that held other types before (a string key, a tuple value).
        Record scratch(format::Value(std::string("old")),
                       format::Value(format::Tuple{{format::Value(true)}}), 5);
        std::string_view in(fast);
        int64_t wm = 0;
        ASSERT_OK_AND_ASSIGN(uint8_t tag, DecodeElement(&in, &scratch, &wm));
        EXPECT_EQ(tag, kRecordTag);
        EXPECT_EQ(scratch, r);
        EXPECT_TRUE(in.empty());
      }
    }
  }
}

TEST(StreamElementCodecTest, TruncatedInt64RecordIsAnErrorNotACrash) {
  std::string buf;
  AppendRecordElement(Record(format::Value(INT64_MIN), format::Value(INT64_MAX), INT64_MAX), &buf);
  for (size_t cut = 0; cut < buf.size(); ++cut) {
    std::string_view in(buf.data(), cut);
    Record r;
    int64_t wm = 0;
    EXPECT_FALSE(DecodeElement(&in, &r, &wm).ok()) << "cut at " << cut;
  }
}

TEST(StreamElementCodecTest, TruncatedElementIsAnErrorNotACrash) {
  std::string buf;
  AppendRecordElement(Record(format::Value("key"), format::Value(std::string(100, 'x'))), &buf);
  for (size_t cut = 0; cut < buf.size(); ++cut) {
    std::string_view in(buf.data(), cut);
    Record r;
    int64_t wm = 0;
    EXPECT_FALSE(DecodeElement(&in, &r, &wm).ok()) << "cut at " << cut;
  }
}

}  // namespace
}  // namespace ckpt::engine::runtime
