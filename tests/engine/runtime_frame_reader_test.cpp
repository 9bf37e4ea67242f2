#include "runtime/frame_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/record_writer.h"

namespace ckpt::engine::runtime {
namespace {

// Element i: `sizes[i % n]` bytes, every byte naming the element, so that a frame rejoined from
// the wrong pieces cannot compare equal.
std::vector<std::string> FrameReaderTestElements(size_t count) {
  static constexpr size_t kSizes[] = {1, 2, 3, 4, 5, 7, 60, 255, 256, 257, 3, 430, 1, 41, 600};
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    std::string e(kSizes[i % std::size(kSizes)], static_cast<char>('A' + i % 26));
    e[0] = static_cast<char>(i & 0xff);
    out.push_back(std::move(e));
  }
  return out;
}

std::string FrameReaderTestStream(const std::vector<std::string>& elements) {
  std::string s;
  for (const std::string& e : elements) {
    const uint32_t len = static_cast<uint32_t>(e.size());
    for (size_t i = 0; i < kFrameHeaderBytes; ++i) s.push_back(static_cast<char>(len >> (8 * i)));
    s += e;
  }
  return s;
}

// `stream` cut into pieces whose sizes cycle through `sizes` (buffer debloating changes the
// size from one buffer to the next).
std::vector<std::string> FrameReaderTestCut(std::string_view stream,
                                            const std::vector<size_t>& sizes) {
  std::vector<std::string> out;
  for (size_t i = 0; !stream.empty(); ++i) {
    const size_t n = std::min(stream.size(), sizes[i % sizes.size()]);
    out.emplace_back(stream.substr(0, n));
    stream.remove_prefix(n);
  }
  return out;
}

// Feeds `buffers` from `*next` on and reads up to `max` elements (all when max is SIZE_MAX);
// stops early, between two elements, once `max` are read.
void FrameReaderTestRead(FrameReader& reader, const std::vector<std::string>& buffers,
                         size_t* next, size_t max, std::vector<std::string>* out) {
  std::string_view element;
  while (out->size() < max) {
    if (!reader.has_buffer()) {
      if (*next == buffers.size()) return;
      reader.SetBuffer(NewUnpooledBuffer(buffers[(*next)++]));
    }
    if (reader.Next(&element)) out->emplace_back(element);
  }
}

TEST(FrameReaderTest, FramesSplitAtEveryOffsetOfTwoBuffersAreRejoined) {
  const std::vector<std::string> elements = FrameReaderTestElements(12);
  const std::string stream = FrameReaderTestStream(elements);
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    FrameReader reader;
    const std::vector<std::string> buffers = {stream.substr(0, cut), stream.substr(cut)};
    size_t next = 0;
    std::vector<std::string> got;
    FrameReaderTestRead(reader, buffers, &next, SIZE_MAX, &got);
    ASSERT_EQ(got, elements) << "cut at byte " << cut;
    EXPECT_TRUE(reader.UnconsumedBytes().empty()) << "cut at byte " << cut;
  }
}

TEST(FrameReaderTest, FramesSpanningBuffersOfChangingSizesAreRejoined) {
  const std::vector<std::string> elements = FrameReaderTestElements(45);
  const std::string stream = FrameReaderTestStream(elements);
  const std::vector<std::vector<size_t>> patterns = {
      {1}, {2}, {3}, {5}, {256}, {4096}, {256, 1, 3, 64, 7}, {13, 256, 2, 100, 4, 5, 6}};
  for (const auto& sizes : patterns) {
    FrameReader reader;
    size_t next = 0;
    std::vector<std::string> got;
    FrameReaderTestRead(reader, FrameReaderTestCut(stream, sizes), &next, SIZE_MAX, &got);
    ASSERT_EQ(got, elements) << "first buffer size " << sizes.front();
  }
}

// An unaligned checkpoint taken between any two elements persists UnconsumedBytes() and then
// the buffers the reader has not taken; replaying them into a new reader yields exactly the
// elements not processed yet, whatever the buffer sizes and wherever the frames were split.
TEST(FrameReaderTest, UnconsumedBytesThenLaterBuffersReplayExactlyTheUnprocessedElements) {
  const std::vector<std::string> elements = FrameReaderTestElements(30);
  const std::string stream = FrameReaderTestStream(elements);
  const std::vector<std::vector<size_t>> patterns = {
      {1}, {3}, {4}, {5}, {256}, {256, 1, 3, 64, 7}, {13, 256, 2, 100, 4, 5, 6}};
  for (const auto& sizes : patterns) {
    const std::vector<std::string> buffers = FrameReaderTestCut(stream, sizes);
    for (size_t processed = 0; processed <= elements.size(); ++processed) {
      FrameReader reader;
      size_t next = 0;
      std::vector<std::string> got;
      FrameReaderTestRead(reader, buffers, &next, processed, &got);
      ASSERT_EQ(got.size(), processed);
      // The capture, and a replay of it followed by the rest of the channel.
      std::vector<std::string> replay = {reader.UnconsumedBytes()};
      replay.insert(replay.end(), buffers.begin() + static_cast<std::ptrdiff_t>(next),
                    buffers.end());
      FrameReader restored;
      size_t replay_next = 0;
      std::vector<std::string> rest;
      FrameReaderTestRead(restored, replay, &replay_next, SIZE_MAX, &rest);
      const std::vector<std::string> want(elements.begin() + static_cast<std::ptrdiff_t>(processed),
                                          elements.end());
      ASSERT_EQ(rest, want) << "after " << processed << " elements, first buffer size "
                            << sizes.front();
    }
  }
}

// Between two elements the reader may have used up its buffer with a frame's head only (the
// next buffer is not taken yet): that head is unconsumed, and nothing else is.
TEST(FrameReaderTest, HeadOfAFrameWhoseBufferIsUsedUpIsUnconsumed) {
  const std::vector<std::string> elements = FrameReaderTestElements(3);
  const std::string stream = FrameReaderTestStream(elements);
  const size_t second = kFrameHeaderBytes + elements[0].size();
  for (size_t head = 1; head < kFrameHeaderBytes + elements[1].size(); ++head) {
    FrameReader reader;
    reader.SetBuffer(NewUnpooledBuffer(stream.substr(0, second + head)));
    std::string_view element;
    ASSERT_TRUE(reader.Next(&element));
    EXPECT_EQ(element, elements[0]);
    EXPECT_FALSE(reader.Next(&element)) << head;
    EXPECT_FALSE(reader.has_buffer());
    EXPECT_EQ(reader.UnconsumedBytes(), stream.substr(second, head));
  }
}

// The error of a damaged frame names where it began and what it spanned.
TEST(FrameReaderTest, DescribesWhereTheLastFrameCameFrom) {
  const std::vector<std::string> elements = FrameReaderTestElements(3);  // 1, 2, 3 bytes
  const std::string stream = FrameReaderTestStream(elements);
  BufferPool pool(2, 64);
  FrameReader reader;
  NetworkBuffer* first = pool.TryRequest();
  const size_t cut = 5 + 6 + 2;  // two bytes into the third frame
  std::memcpy(first->data.get(), stream.data(), cut);
  first->size = cut;
  reader.SetBuffer(first);
  std::string_view element;
  ASSERT_TRUE(reader.Next(&element));
  EXPECT_EQ(reader.DescribeLastFrame(), "frame began at byte 0 of a 13-byte buffer and spanned 1 buffer(s)");
  ASSERT_TRUE(reader.Next(&element));
  EXPECT_EQ(reader.DescribeLastFrame(), "frame began at byte 5 of a 13-byte buffer and spanned 1 buffer(s)");
  EXPECT_FALSE(reader.Next(&element));
  reader.SetBuffer(NewUnpooledBuffer(stream.substr(cut)));
  ASSERT_TRUE(reader.Next(&element));
  EXPECT_EQ(element, elements[2]);
  EXPECT_EQ(reader.DescribeLastFrame(),
            "frame began at byte 11 of a 13-byte buffer and spanned 2 buffer(s), replayed channel "
            "state among them");
}

}  // namespace
}  // namespace ckpt::engine::runtime
