#include "runtime/record_writer.h"

#include <gtest/gtest.h>

#include "ckpt/format/key_groups.h"
#include "ckpt/testing/gtest_util.h"
#include "runtime/stream_element_codec.h"

namespace ckpt::engine::runtime {
namespace {

// Drains every buffer of `inbox` and returns the records per channel.
std::vector<std::vector<Record>> Drain(TaskInbox& inbox) {
  std::vector<std::vector<Record>> out(inbox.num_channels());
  while (true) {
    TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
    if (p.what != TaskInbox::Polled::What::kEvent) break;
    if (p.event.kind != StreamEvent::Kind::kBuffer) continue;
    std::string_view in(p.event.buffer->data.get(), p.event.buffer->size);
    while (!in.empty()) {
      Record r;
      int64_t wm = 0;
      base::Result<uint8_t> tag = DecodeElement(&in, &r, &wm);
      EXPECT_OK(tag.status());
      if (!tag.ok()) break;
      if (*tag == kRecordTag) out[p.channel].push_back(r);
    }
    p.event.buffer->pool->Recycle(p.event.buffer);
  }
  return out;
}

base::Status WriteRecord(RecordWriter& w, const Record& r) {
  std::string element;
  AppendRecordElement(r, &element);
  return w.Write(r, element);
}

TEST(RecordWriterTest, HashRoutesEveryKeyToTheSubtaskOwningItsKeyGroup) {
  TaskInbox inbox({0, 0, 0}, 64);
  BufferPool pool(16, 4096);
  RecordWriter w(pb::HASH, {{&inbox, 0}, {&inbox, 1}, {&inbox, 2}}, &pool, 0, 1, 128);
  for (int64_t k = 0; k < 200; ++k) ASSERT_OK(WriteRecord(w, Record(format::Value(k), format::Value(k))));
  ASSERT_OK(w.Flush());
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
  ASSERT_OK(rebalance.Flush());
  auto rr = Drain(inbox);
  EXPECT_EQ(rr[0].size(), 5u);
  EXPECT_EQ(rr[1].size(), 5u);
  RecordWriter broadcast(pb::BROADCAST, {{&inbox, 0}, {&inbox, 1}}, &pool, 0, 1, 128);
  for (int64_t i = 0; i < 10; ++i) ASSERT_OK(WriteRecord(broadcast, Record(format::Value(i))));
  ASSERT_OK(broadcast.Flush());
  auto bc = Drain(inbox);
  EXPECT_EQ(bc[0].size(), 10u);
  EXPECT_EQ(bc[1].size(), 10u);
}

TEST(RecordWriterTest, RecordLargerThanABufferIsRejected) {
  TaskInbox inbox({0}, 4);
  BufferPool pool(4, 64);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, &pool, 0, 1, 128);
  ASSERT_STATUS(WriteRecord(w, Record(format::Value(std::string(100, 'x')))), kInvalidArgument,
                "does not fit a network buffer");
}

TEST(RecordWriterTest, EventsFollowTheDataWrittenBeforeThem) {
  TaskInbox inbox({0}, 8);
  BufferPool pool(4, 4096);
  RecordWriter w(pb::FORWARD, {{&inbox, 0}}, &pool, 0, 1, 128);
  ASSERT_OK(WriteRecord(w, Record(format::Value(int64_t{1}))));
  StreamEvent e;
  e.kind = StreamEvent::Kind::kEndOfData;
  ASSERT_OK(w.BroadcastEvent(e));
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
