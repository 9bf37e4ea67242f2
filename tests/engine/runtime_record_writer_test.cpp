#include "runtime/record_writer.h"

#include <gtest/gtest.h>

#include "ckpt/format/key_groups.h"
#include "ckpt/testing/gtest_util.h"
#include "runtime/frame_reader.h"
#include "runtime/stream_element_codec.h"

namespace ckpt::engine::runtime {
namespace {

// Drains every buffer of `inbox` through one FrameReader per channel and returns the records.
std::vector<std::vector<Record>> Drain(TaskInbox& inbox, size_t* buffers = nullptr) {
  std::vector<std::vector<Record>> out(inbox.num_channels());
  std::vector<FrameReader> readers(inbox.num_channels());
  while (true) {
    TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
    if (p.what != TaskInbox::Polled::What::kEvent) break;
    if (p.event.kind != StreamEvent::Kind::kBuffer) continue;
    if (buffers != nullptr) ++*buffers;
    FrameReader& r = readers[p.channel];
    r.SetBuffer(p.event.buffer);
    std::string_view element;
    while (r.Next(&element)) {
      Record rec;
      int64_t wm = 0;
      base::Result<uint8_t> tag = DecodeElement(&element, &rec, &wm);
      EXPECT_OK(tag.status());
      if (!tag.ok()) break;
      EXPECT_TRUE(element.empty());
      if (*tag == kRecordTag) out[p.channel].push_back(rec);
      if (!r.has_buffer()) break;
    }
  }
  return out;
}

base::Status WriteRecord(RecordWriter& w, const Record& r) {
  std::string element;
  AppendRecordElement(r, &element);
  return w.Write(r, element);
}

TEST(RecordWriterTest, KeyGroupOfEncodedKeyIsTheFormatsKeyGroup) {
  // The engine's key group (a mask for power-of-two max parallelism) must be the format's.
  for (uint32_t max_p : {1u, 2u, 3u, 7u, 128u, 4096u, 32768u}) {
    for (int64_t k = -2000; k < 2000; k += 3) {
      std::string encoded;
      ASSERT_OK(EncodeRecordKey(format::Value(k * 7919), &encoded));
      ASSERT_EQ(KeyGroupOfEncodedKey(encoded, max_p), format::KeyGroupForKey(encoded, max_p))
          << "key " << k * 7919 << ", max parallelism " << max_p;
    }
    std::string s;
    ASSERT_OK(EncodeRecordKey(format::Value(std::string("a string key")), &s));
    ASSERT_EQ(KeyGroupOfEncodedKey(s, max_p), format::KeyGroupForKey(s, max_p));
  }
}

TEST(RecordWriterTest, HashRoutesEveryKeyToTheSubtaskOwningItsKeyGroup) {
  TaskInbox inbox({0, 0, 0}, 64);
  BufferPool pool(16, 4096);
  RecordWriter w(pb::HASH, {{&inbox, 0}, {&inbox, 1}, {&inbox, 2}}, &pool, 0, 1, 128);
  for (int64_t k = 0; k < 200; ++k) ASSERT_OK(WriteRecord(w, Record(format::Value(k), format::Value(k))));
  w.Flush();
  auto per_channel = Drain(inbox);
  size_t total = 0;
  for (uint32_t c = 0; c < 3; ++c) {
    for (const Record& r : per_channel[c]) {
      std::string enc;
      ASSERT_OK(EncodeRecordKey(r.key, &enc));
      EXPECT_EQ(format::SubtaskForKeyGroup(128, 3, KeyGroupOfEncodedKey(enc, 128)), c);
    }
    total += per_channel[c].size();
  }
  EXPECT_EQ(total, 200u);
}

TEST(RecordWriterTest, RebalanceDealsRoundRobinAndBroadcastCopiesToAll) {
  TaskInbox inbox({0, 0}, 64);
  BufferPool pool(16, 4096);
  RecordWriter rebalance(pb::REBALANCE, {{&inbox, 0}, {&inbox, 1}}, &pool, 0, 1, 128);
  for (int64_t i = 0; i < 10; ++i) ASSERT_OK(WriteRecord(rebalance, Record(format::Value(i))));
  rebalance.Flush();
  auto rr = Drain(inbox);
  EXPECT_EQ(rr[0].size(), 5u);
  EXPECT_EQ(rr[1].size(), 5u);
  RecordWriter broadcast(pb::BROADCAST, {{&inbox, 0}, {&inbox, 1}}, &pool, 0, 1, 128);
  for (int64_t i = 0; i < 10; ++i) ASSERT_OK(WriteRecord(broadcast, Record(format::Value(i))));
  broadcast.Flush();
  auto bc = Drain(inbox);
  EXPECT_EQ(bc[0].size(), 10u);
  EXPECT_EQ(bc[1].size(), 10u);
}

TEST(RecordWriterTest, RecordLargerThanABufferSpansBuffers) {
  TaskInbox inbox({0}, 64);
  BufferPool pool(64, 64);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, &pool, 0, 1, 128);
  const std::string big(1000, 'x');
  ASSERT_OK(WriteRecord(w, Record(format::Value(int64_t{1}))));
  ASSERT_OK(WriteRecord(w, Record(format::Value(big))));
  ASSERT_OK(WriteRecord(w, Record(format::Value(int64_t{2}))));
  w.Flush();
  size_t buffers = 0;
  auto out = Drain(inbox, &buffers);
  ASSERT_EQ(out[0].size(), 3u);
  EXPECT_EQ(std::get<std::string>(out[0][1].value.v), big);
  EXPECT_EQ(std::get<int64_t>(out[0][2].value.v), 2);
  EXPECT_GE(buffers, 1000u / 64);
}

// A backpressured task's partly filled buffer may hold the end of a record its consumer has
// begun: the subpartition tells the producer when its queue drains, and FlushIdle sends it then.
TEST(RecordWriterTest, DrainedQueueIsReportedAndItsPartlyFilledBufferGoesOut) {
  TaskInbox inbox({0}, /*credits_per_channel=*/1);
  BufferPool pool(8, 64);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, &pool, 0, 1, 128);
  int drained = 0;
  w.SetDrainedListener([&drained] { ++drained; });
  const std::string big(150, 'x');  // two full buffers and the start of a third
  ASSERT_OK(WriteRecord(w, Record(format::Value(big))));
  EXPECT_EQ(w.subpartition(0)->queued_buffers(), 1u);  // the first took the only credit
  EXPECT_EQ(drained, 1);  // the first went straight on, leaving the queue empty for a moment
  EXPECT_FALSE(w.HasIdlePartialBuffer());
  w.FlushIdle();  // behind a queued buffer the third keeps filling
  EXPECT_EQ(w.subpartition(0)->queued_buffers(), 1u);

  FrameReader reader;
  std::string_view element;
  auto take_next = [&] {
    TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
    EXPECT_EQ(p.what, TaskInbox::Polled::What::kEvent);
    if (p.what != TaskInbox::Polled::What::kEvent) return false;
    reader.SetBuffer(p.event.buffer);
    return reader.Next(&element);
  };
  EXPECT_FALSE(take_next());  // the record is not complete
  EXPECT_EQ(drained, 2);      // taking the first pulled the second: the queue is empty
  EXPECT_TRUE(w.HasIdlePartialBuffer());
  EXPECT_FALSE(take_next());
  w.FlushIdle();
  EXPECT_FALSE(w.HasIdlePartialBuffer());
  ASSERT_TRUE(take_next());  // the third completes it
  Record rec;
  int64_t wm = 0;
  ASSERT_OK_AND_ASSIGN(uint8_t tag, DecodeElement(&element, &rec, &wm));
  EXPECT_EQ(tag, kRecordTag);
  EXPECT_EQ(std::get<std::string>(rec.value.v), big);
  EXPECT_EQ(drained, 3);  // the third went straight on too
}

TEST(RecordWriterTest, RecordNeedingMoreBuffersThanFreeUsesOverdraft) {
  TaskInbox inbox({0}, 1);
  auto pool = std::make_shared<BufferPool>(2, 64, /*max_overdraft=*/5);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, pool.get(), 0, 1, 128);
  // ~4 buffers for one record with 2 in the pool: the writer borrows instead of waiting.
  ASSERT_OK(WriteRecord(w, Record(format::Value(std::string(230, 'y')))));
  EXPECT_GT(pool->NumOverdraftInUse(), 0u);
  EXPECT_FALSE(pool->IsAvailable());
  w.Flush();
  auto out = Drain(inbox);
  ASSERT_EQ(out[0].size(), 1u);
  EXPECT_EQ(pool->NumOverdraftInUse(), 0u);
  EXPECT_TRUE(pool->IsAvailable());
}

TEST(RecordWriterTest, UnalignedBarrierOvertakesQueuedOutputAndReturnsIt) {
  TaskInbox inbox({0}, 1);
  auto pool = std::make_shared<BufferPool>(8, 64);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, pool.get(), 0, 1, 128);
  for (int64_t i = 0; i < 20; ++i) ASSERT_OK(WriteRecord(w, Record(format::Value(i))));
  StreamEvent barrier;
  barrier.kind = StreamEvent::Kind::kBarrier;
  barrier.barrier = std::make_shared<CheckpointOptions>();
  auto captured = w.BroadcastPriorityEvent(barrier);
  ASSERT_EQ(captured.size(), 1u);
  EXPECT_FALSE(captured[0].empty());
  TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
  // One buffer had moved to the consumer before; the barrier jumps it there too.
  EXPECT_EQ(p.event.kind, StreamEvent::Kind::kBarrier);
  EXPECT_EQ(p.event.overtaken_buffers, 1u);
  auto out = Drain(inbox);
  EXPECT_EQ(out[0].size(), 20u);
}

TEST(RecordWriterTest, EventsFollowTheDataWrittenBeforeThem) {
  TaskInbox inbox({0}, 8);
  BufferPool pool(4, 4096);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, &pool, 0, 1, 128);
  ASSERT_OK(WriteRecord(w, Record(format::Value(int64_t{1}))));
  StreamEvent e;
  e.kind = StreamEvent::Kind::kEndOfData;
  w.BroadcastEvent(e);
  TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
  EXPECT_EQ(p.event.kind, StreamEvent::Kind::kBuffer);
  pool.Recycle(p.event.buffer);
  p = inbox.Poll(std::chrono::steady_clock::now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
  EXPECT_EQ(p.event.kind, StreamEvent::Kind::kEndOfData);
}

}  // namespace
}  // namespace ckpt::engine::runtime
