// The reference engine's stream-element frames (FORMAT.md "Channel state written by
// ckpt-engine"): the documented example byte for byte, a round trip of every value type, and
// the corruption a reader of a damaged channel-state buffer must report.
#include "ckpt/format/stream_element.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"

namespace ckpt::format {
namespace {

std::string Framed(const std::string& element) {
  std::string f;
  const uint32_t n = static_cast<uint32_t>(element.size());
  for (int i = 0; i < 4; ++i) f.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return f + element;
}

TEST(StreamElementTest, DocumentedExampleFrame) {
  std::string element;
  AppendRecordElement(Value(int64_t{7}), Value("ab"), kNoElementTimestamp, &element);
  EXPECT_EQ(Framed(element), std::string("\x08\x00\x00\x00\x01\x00\x01\x0e\x04\x02" "ab", 12));
}

TEST(StreamElementTest, RoundTripsEveryValueTypeAndWatermarks) {
  Map m;
  m.entries.push_back({Value("k"), Value(2.5)});
  const Value values[] = {Value(),
                          Value(int64_t{-3}),
                          Value(1.25),
                          Value(true),
                          Value("text"),
                          Value(Bytes{std::string("\x00\xff", 2)}),
                          Value(Tuple{{Value(int64_t{1}), Value("a")}}),
                          Value(List{{Value(int64_t{4}), Value(int64_t{5})}}),
                          Value(std::move(m)),
                          Value(ProtoMessage{"\x08\x01"})};
  std::string run;
  for (const Value& v : values) {
    std::string e;
    AppendRecordElement(Value("key"), v, 1234, &e);
    run += Framed(e);
  }
  std::string wm;
  AppendWatermarkElement(-5, &wm);
  run += Framed(wm);

  std::string_view rest = run;
  Value key, value;
  int64_t ts = 0, watermark = 0;
  for (const Value& v : values) {
    std::string_view element;
    ASSERT_OK_AND_ASSIGN(bool more, NextStreamFrame(&rest, &element));
    ASSERT_TRUE(more);
    ASSERT_OK_AND_ASSIGN(uint8_t tag, DecodeStreamElement(&element, &key, &value, &ts, &watermark));
    EXPECT_EQ(tag, kRecordTag);
    EXPECT_TRUE(element.empty());
    EXPECT_EQ(key, Value("key"));
    EXPECT_EQ(value, v);
    EXPECT_EQ(ts, 1234);
  }
  std::string_view element;
  ASSERT_OK_AND_ASSIGN(bool more, NextStreamFrame(&rest, &element));
  ASSERT_TRUE(more);
  ASSERT_OK_AND_ASSIGN(uint8_t tag, DecodeStreamElement(&element, &key, &value, &ts, &watermark));
  EXPECT_EQ(tag, kWatermarkTag);
  EXPECT_EQ(watermark, -5);
  ASSERT_OK_AND_ASSIGN(more, NextStreamFrame(&rest, &element));
  EXPECT_FALSE(more);
}

TEST(StreamElementTest, TruncatedOrMalformedBytesAreCorruption) {
  std::string e;
  AppendRecordElement(Value("key"), Value(std::string(50, 'x')), kNoElementTimestamp, &e);
  const std::string frame = Framed(e);
  for (size_t cut = 1; cut < frame.size(); ++cut) {
    std::string_view run(frame.data(), cut);
    std::string_view element;
    base::Result<bool> more = NextStreamFrame(&run, &element);
    ASSERT_FALSE(more.ok()) << "cut at " << cut;
    EXPECT_EQ(more.status().code(), base::StatusCode::kCorruption);
  }
  Value key, value;
  int64_t ts = 0, wm = 0;
  for (size_t cut = 0; cut < e.size(); ++cut) {
    std::string_view in(e.data(), cut);
    base::Result<uint8_t> tag = DecodeStreamElement(&in, &key, &value, &ts, &wm);
    ASSERT_FALSE(tag.ok()) << "cut at " << cut;
    EXPECT_EQ(tag.status().code(), base::StatusCode::kCorruption);
  }
  std::string_view bad_tag("\x07\x00", 2);
  EXPECT_FALSE(DecodeStreamElement(&bad_tag, &key, &value, &ts, &wm).ok());
  // A hostile list length is refused before anything is allocated for it.
  std::string_view huge("\x01\x00\x00\x07\xff\xff\xff\xff\x0f", 9);
  EXPECT_FALSE(DecodeStreamElement(&huge, &key, &value, &ts, &wm).ok());
}

}  // namespace
}  // namespace ckpt::format
