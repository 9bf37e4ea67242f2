// The in-flight data of one logical channel as an unaligned checkpoint captures it: the
// consumer's unconsumed bytes (FrameReader), the buffers its inbox captured before the barrier,
// then the producer's buffers the barrier overtook in the subpartition. Replayed in that order
// they must be exactly the frames the consumer had not processed at its snapshot — wherever the
// frames were split across buffers, however far the consumer had read into a buffer, and
// whichever way the checkpoint went unaligned (a priority barrier jumping buffers on both sides,
// an aligned barrier promoted ahead of them on the output-side timeout, the consumer switching
// before the barrier reached it).
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/testing/gtest_util.h"
#include "runtime/frame_reader.h"
#include "runtime/record_writer.h"
#include "runtime/stream_element_codec.h"
#include "runtime/task_inbox.h"
#include "runtime_test_events.h"

namespace ckpt::engine::runtime {
namespace {

// Record elements whose frames (4 + 6 + value bytes) spread over 64-byte buffers in every way.
std::vector<std::string> ChannelCaptureTestElements(size_t from, size_t count) {
  static constexpr size_t kValueBytes[] = {5, 50, 1, 120, 53, 2, 200, 54, 55, 9, 64, 3};
  std::vector<std::string> out;
  for (size_t i = from; i < from + count; ++i) {
    Record r(format::Value(static_cast<int64_t>(i % 7)),
             format::Value(std::string(kValueBytes[i % std::size(kValueBytes)],
                                       static_cast<char>('a' + i % 26))));
    std::string e;
    AppendRecordElement(r, &e);
    out.push_back(std::move(e));
  }
  return out;
}

enum class BarrierPath {
  kPriority,         // the producer's unaligned barrier jumps its queue and the consumer's
  kPromoted,         // an aligned barrier moved ahead of the buffers on the output timeout
  kSwitchedEarlier,  // the consumer switched first (timer); the priority barrier comes later
  kPromotedAfterSwitch,
};

struct ChannelCaptureCase {
  BarrierPath path;
  uint32_t credits;
};

class ChannelCaptureTest : public ::testing::TestWithParam<ChannelCaptureCase> {};

// For every number of elements the consumer processed before its snapshot.
TEST_P(ChannelCaptureTest, CapturedBytesReplayExactlyTheUnprocessedFrames) {
  const ChannelCaptureCase param = GetParam();
  const std::vector<std::string> before = ChannelCaptureTestElements(0, 24);
  const std::vector<std::string> after = ChannelCaptureTestElements(24, 6);
  size_t promotions = 0;
  for (size_t processed = 0; processed <= before.size(); ++processed) {
    SCOPED_TRACE("processed " + std::to_string(processed));
    TaskInbox inbox({0}, param.credits);
    BufferPool pool(256, 64);
    RecordWriter w(pb::FORWARD, {{&inbox, 0}}, &pool, 0, 1, 128);
    for (const std::string& e : before) ASSERT_OK(w.Write(Record(), e));
    w.Flush();  // the buffer timeout: the last one goes out partly filled
    if (param.path == BarrierPath::kPromoted || param.path == BarrierPath::kPromotedAfterSwitch) {
      w.BroadcastEvent(TestBarrierEvent(7));
    }

    // The consumer processes `processed` elements; it may stop mid-buffer or with a frame's head.
    FrameReader reader;
    std::vector<std::string> got;
    std::string_view element;
    while (got.size() < processed) {
      if (!reader.has_buffer()) {
        TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
        ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
        ASSERT_EQ(p.event.kind, StreamEvent::Kind::kBuffer);
        reader.SetBuffer(p.event.buffer);
      }
      if (reader.Next(&element)) got.emplace_back(element);
    }

    std::string leftover;
    std::vector<CapturedBuffer> input;
    std::vector<CapturedBuffer> output;
    const bool switched_first = param.path == BarrierPath::kSwitchedEarlier ||
                                param.path == BarrierPath::kPromotedAfterSwitch;
    if (switched_first) {
      leftover = reader.UnconsumedBytes();
      ASSERT_TRUE(inbox.StartCapture(0, 7));
    }
    if (param.path == BarrierPath::kPriority || param.path == BarrierPath::kSwitchedEarlier) {
      output = std::move(w.BroadcastPriorityEvent(TestBarrierEvent(7))[0]);
    } else {
      std::optional<std::vector<CapturedBuffer>> promoted = w.subpartition(0)->PromoteBarrier(7);
      if (!promoted) {
        // The consumer has read so far that the barrier left the queue: no timeout applies.
        ASSERT_GT(processed, before.size() / 2);
        continue;
      }
      ++promotions;
      output = std::move(*promoted);
    }
    for (const std::string& e : after) ASSERT_OK(w.Write(Record(), e));
    w.Flush();

    // The priority barrier is next for the consumer, whatever its channel holds.
    TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::now());
    ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
    ASSERT_EQ(p.event.kind, StreamEvent::Kind::kBarrier);
    ASSERT_TRUE(p.event.priority);
    if (switched_first) {
      ASSERT_TRUE(inbox.TakeCapture(0, &input));
    } else {
      leftover = reader.UnconsumedBytes();
      ASSERT_TRUE(inbox.CaptureFront(0, p.event.overtaken_buffers, &input));
    }

    // Replay: the leftover, the captured input, then the producer's output state.
    std::vector<std::string> replay;
    if (!leftover.empty()) replay.push_back(leftover);
    for (const CapturedBuffer& b : input) replay.emplace_back(b.bytes());
    for (const CapturedBuffer& b : output) replay.emplace_back(b.bytes());
    FrameReader restored;
    std::vector<std::string> replayed;
    for (const std::string& b : replay) {
      restored.SetBuffer(NewUnpooledBuffer(b));
      while (restored.Next(&element)) {
        replayed.emplace_back(element);
        if (!restored.has_buffer()) break;
      }
    }
    EXPECT_TRUE(restored.UnconsumedBytes().empty()) << "the replay ends inside a frame";
    const std::vector<std::string> want(before.begin() + static_cast<std::ptrdiff_t>(processed),
                                        before.end());
    ASSERT_EQ(replayed, want);

    // After the barrier the consumer reads on where it stopped: the rest of `before` (it did
    // not process it before its snapshot), then `after`.
    std::vector<std::string> live;
    while (true) {
      if (reader.Next(&element)) {
        live.emplace_back(element);
        continue;
      }
      TaskInbox::Polled q = inbox.Poll(std::chrono::steady_clock::now());
      if (q.what != TaskInbox::Polled::What::kEvent) break;
      if (q.event.kind != StreamEvent::Kind::kBuffer) continue;
      reader.SetBuffer(q.event.buffer);
    }
    std::vector<std::string> live_want = want;
    live_want.insert(live_want.end(), after.begin(), after.end());
    EXPECT_EQ(live, live_want);
  }
  if (param.path == BarrierPath::kPromoted || param.path == BarrierPath::kPromotedAfterSwitch) {
    EXPECT_GT(promotions, before.size() / 2);
  }
}

std::string ChannelCaptureTestName(const ::testing::TestParamInfo<ChannelCaptureCase>& param_info) {
  static constexpr const char* kNames[] = {"priority", "promoted", "switched_earlier",
                                           "promoted_after_switch"};
  return std::string(kNames[static_cast<int>(param_info.param.path)]) + "_credits" +
         std::to_string(param_info.param.credits);
}

INSTANTIATE_TEST_SUITE_P(
    Paths, ChannelCaptureTest,
    ::testing::Values(ChannelCaptureCase{BarrierPath::kPriority, 1},
                      ChannelCaptureCase{BarrierPath::kPriority, 3},
                      ChannelCaptureCase{BarrierPath::kPromoted, 1},
                      ChannelCaptureCase{BarrierPath::kPromoted, 3},
                      ChannelCaptureCase{BarrierPath::kSwitchedEarlier, 1},
                      ChannelCaptureCase{BarrierPath::kSwitchedEarlier, 2},
                      ChannelCaptureCase{BarrierPath::kPromotedAfterSwitch, 1},
                      ChannelCaptureCase{BarrierPath::kPromotedAfterSwitch, 2}),
    ChannelCaptureTestName);

}  // namespace
}  // namespace ckpt::engine::runtime
