// A logical channel's in-flight byte stream (format/channel_stream.h): a frame split between the
// consumer's input part and the producer's output part is visited once, by the part it begins
// in, wherever the cut falls (inside the header included); a stream that ends inside a frame is
// Corruption located at that frame.
#include "ckpt/format/channel_stream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/format/stream_element.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::format {
namespace {

std::string RecordFrame(int64_t key, const std::string& value) {
  std::string element;
  AppendRecordElement(Value(key), Value(value), kNoElementTimestamp, &element);
  std::string f;
  const uint32_t n = static_cast<uint32_t>(element.size());
  for (int i = 0; i < 4; ++i) f.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return f + element;
}

// The keys of the frames of `stream` that begin in [begin, end), with their offsets.
base::Status VisitKeys(const std::string& stream, size_t begin, size_t end,
                       std::vector<std::pair<size_t, int64_t>>* out, size_t* failed_at = nullptr) {
  return ForEachStreamFrame(
      stream, begin, end,
      [out](const StreamFrameAt& f) -> base::Status {
        std::string_view element = f.element;
        Value key, value;
        int64_t ts = 0, wm = 0;
        CKPT_ASSIGN_OR_RETURN(uint8_t tag, DecodeStreamElement(&element, &key, &value, &ts, &wm));
        EXPECT_EQ(tag, kRecordTag);
        EXPECT_TRUE(element.empty());
        out->emplace_back(f.offset, std::get<int64_t>(key.v));
        return base::Status::OK();
      },
      failed_at);
}

TEST(ChannelStreamTest, FrameSplitBetweenInputAndOutputPartsIsVisitedOnceWhereverTheCutFalls) {
  const std::string f1 = RecordFrame(1, "first");
  const std::string f2 = RecordFrame(2, std::string(300, 'x'));  // spans network buffers
  const std::string f3 = RecordFrame(3, "third");
  const std::string stream = f1 + f2 + f3;
  // Every cut from f2's first header byte to its last byte: input part [0, cut), output part
  // [cut, end).
  for (size_t cut = f1.size() + 1; cut < f1.size() + f2.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    std::vector<std::pair<size_t, int64_t>> input, output;
    ASSERT_OK(VisitKeys(stream, 0, cut, &input));
    ASSERT_OK(VisitKeys(stream, cut, stream.size(), &output));
    ASSERT_EQ(input.size(), 2u);
    EXPECT_EQ(input[0], std::make_pair(size_t{0}, int64_t{1}));
    EXPECT_EQ(input[1], std::make_pair(f1.size(), int64_t{2}));  // the split frame, whole
    ASSERT_EQ(output.size(), 1u);
    EXPECT_EQ(output[0], std::make_pair(f1.size() + f2.size(), int64_t{3}));
  }
}

TEST(ChannelStreamTest, CutOnAFrameBoundaryNeedsNoRejoining) {
  const std::string f1 = RecordFrame(1, "a"), f2 = RecordFrame(2, "b");
  std::vector<std::pair<size_t, int64_t>> input, output;
  ASSERT_OK(VisitKeys(f1 + f2, 0, f1.size(), &input));
  ASSERT_OK(VisitKeys(f1 + f2, f1.size(), f1.size() + f2.size(), &output));
  ASSERT_EQ(input.size(), 1u);
  ASSERT_EQ(output.size(), 1u);
  EXPECT_EQ(output[0].second, 2);
}

TEST(ChannelStreamTest, StreamEndingInsideAFrameIsCorruptionAtThatFrame) {
  const std::string f1 = RecordFrame(1, "first");
  const std::string f2 = RecordFrame(2, std::string(300, 'x'));
  // The input part ends inside f2 and no output part continues it.
  const std::string truncated = f1 + f2.substr(0, 100);
  std::vector<std::pair<size_t, int64_t>> seen;
  size_t failed_at = 0;
  base::Status st = VisitKeys(truncated, 0, truncated.size(), &seen, &failed_at);
  EXPECT_EQ(st.code(), base::StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("end inside a frame"), std::string::npos) << st.ToString();
  EXPECT_EQ(failed_at, f1.size());
  EXPECT_EQ(seen.size(), 1u);  // the whole frame before it was visited
  // Inside the header too.
  const std::string header_cut = f1 + f2.substr(0, 2);
  st = VisitKeys(header_cut, 0, header_cut.size(), &seen, &failed_at);
  EXPECT_EQ(st.code(), base::StatusCode::kCorruption) << st.ToString();
  EXPECT_EQ(failed_at, f1.size());
  // A reader of the output part alone meets the same truncated frame before its first byte.
  st = VisitKeys(truncated, truncated.size(), truncated.size(), &seen, &failed_at);
  EXPECT_EQ(st.code(), base::StatusCode::kCorruption) << st.ToString();
  EXPECT_EQ(failed_at, f1.size());
}

}  // namespace
}  // namespace ckpt::format
