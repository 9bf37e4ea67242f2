// Buffer debloating: the debloater sizes buffers to about target x throughput over the buffers
// in flight, clamped and announced only on a real change; the announcement reaches the upstream
// subpartitions through the consumer's inbox, and the upstream writer then sends buffers of the
// announced size (records still arrive whole and in order).
#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "runtime/buffer_debloater.h"
#include "runtime/frame_reader.h"
#include "runtime/record_writer.h"
#include "runtime/stream_element_codec.h"

namespace ckpt::engine::runtime {
namespace {

NetworkOptions Options() {
  NetworkOptions o;
  o.buffer_bytes = 32 * 1024;
  o.min_buffer_bytes = 256;
  o.debloat_target_ms = 1000;
  o.debloat_samples = 1;  // no smoothing: each sample decides
  o.debloat_threshold_percent = 25;
  return o;
}

TEST(BufferDebloaterTest, SizesBuffersToTheTargetOfTheMeasuredThroughput) {
  // 4 buffers in flight; 40 KiB/s for 1 s of target is 10 KiB per buffer.
  BufferDebloater d(Options(), 4);
  EXPECT_EQ(d.buffer_size(), 32u * 1024);
  std::optional<size_t> size = d.Recalculate(8 * 1024, 200);  // 40 KiB/s
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(*size, 10u * 1024);
  EXPECT_EQ(d.buffer_size(), 10u * 1024);
}

TEST(BufferDebloaterTest, ClampsToTheMinimumAndTheBufferSize) {
  BufferDebloater d(Options(), 4);
  std::optional<size_t> size = d.Recalculate(10, 200);  // a nearly stalled consumer
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(*size, 256u);
  size = d.Recalculate(100 * 1024 * 1024, 200);  // far more than buffers can hold
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(*size, 32u * 1024);
}

TEST(BufferDebloaterTest, AnnouncesOnlyChangesAboveTheThreshold) {
  BufferDebloater d(Options(), 4);
  ASSERT_TRUE(d.Recalculate(8 * 1024, 200).has_value());  // 10 KiB
  EXPECT_FALSE(d.Recalculate(9 * 1024, 200).has_value());  // 11.25 KiB: +12.5%
  EXPECT_EQ(d.buffer_size(), 10u * 1024);
  EXPECT_TRUE(d.Recalculate(4 * 1024, 200).has_value());  // 5 KiB: -50%
  EXPECT_EQ(d.buffer_size(), 5u * 1024);
}

TEST(BufferDebloaterTest, SmoothsTheThroughputOverSamples) {
  NetworkOptions o = Options();
  o.debloat_samples = 3;  // alpha = 0.5
  BufferDebloater d(o, 1);
  d.Recalculate(1000, 1000);
  d.Recalculate(3000, 1000);
  EXPECT_DOUBLE_EQ(d.throughput(), 2000.0);
}

TEST(BufferDebloatTest, UpstreamSendsBuffersOfTheAnnouncedSize) {
  TaskInbox inbox({0}, 1 << 16);
  BufferPool pool(64, 4096);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, &pool, 0, 1, 128);
  inbox.AnnounceBufferSize(300);
  EXPECT_EQ(w.subpartition(0)->buffer_size(), 300u);
  constexpr int kRecords = 200;
  for (int64_t i = 0; i < kRecords; ++i) {
    Record r(format::Value(), format::Value(std::string(static_cast<size_t>(i % 50), 'x')));
    std::string element;
    AppendRecordElement(r, &element);
    ASSERT_OK(w.Write(r, element));
  }
  w.Flush();
  FrameReader reader;
  int64_t next = 0;
  size_t buffers = 0;
  while (true) {
    TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
    if (p.what != TaskInbox::Polled::What::kEvent) break;
    ASSERT_EQ(p.event.kind, StreamEvent::Kind::kBuffer);
    ++buffers;
    EXPECT_LE(p.event.buffer->size, 300u) << "buffer " << buffers;
    reader.SetBuffer(p.event.buffer);
    std::string_view element;
    while (reader.Next(&element)) {
      Record rec;
      int64_t wm = 0;
      ASSERT_OK(DecodeElement(&element, &rec, &wm).status());
      EXPECT_EQ(std::get<std::string>(rec.value.v).size(), static_cast<size_t>(next % 50));
      ++next;
      if (!reader.has_buffer()) break;
    }
  }
  EXPECT_EQ(next, kRecords);
  // About 5.1 KB of frames in buffers of at most 300 bytes (4096 without debloating: 2).
  EXPECT_GE(buffers, 17u);
}

}  // namespace
}  // namespace ckpt::engine::runtime
