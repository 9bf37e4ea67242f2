// TaskMetricsGroup (what a sample reads from the task slots: counts, the time split, watermarks,
// running) and the wait time TaskInbox::Poll reports for task metrics.
#include "runtime/task_metrics.h"

#include <chrono>

#include <gtest/gtest.h>

#include "runtime/task_inbox.h"

namespace ckpt::engine::runtime {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

TEST(TaskMetricsGroupTest, SampleReadsEverySlotAndSplitsTheTaskTime) {
  TaskMetricsGroup group(/*attempt=*/3);
  TaskMetrics* a = group.Add("aa", "src", 0, 0);
  TaskMetrics* b = group.Add("bb", "join", 1, 2);
  a->hot.records_out.store(1000, kRelaxed);
  a->hot.bytes_out.store(12000, kRelaxed);
  // Ended: ran 5 s, of which 1 s idle and 2 s back-pressured.
  a->hot.start_ns.store(1'000'000'000, kRelaxed);
  a->hot.end_ns.store(6'000'000'000, kRelaxed);
  a->hot.idle_ns.store(1'000'000'000, kRelaxed);
  a->hot.backpressured_ns.store(2'000'000'000, kRelaxed);
  a->cold.output_watermark.store(kMaxWatermark, kRelaxed);
  b->hot.records_in.store(1000, kRelaxed);
  b->hot.bytes_in.store(12000, kRelaxed);
  b->cold.input_watermark.store(40, kRelaxed);
  b->cold.input_watermarks[0].store(40, kRelaxed);
  b->cold.input_watermarks[1].store(70, kRelaxed);
  b->cold.checkpoint_id.store(7, kRelaxed);
  b->cold.checkpoint_start_delay_ns.store(3'000'000, kRelaxed);

  const std::vector<SubtaskTaskMetrics> s = group.Sample();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].vertex_id, "aa");
  EXPECT_EQ(s[0].vertex_name, "src");
  EXPECT_EQ(s[0].attempt, 3u);
  EXPECT_FALSE(s[0].running);  // ended
  EXPECT_EQ(s[0].records_out, 1000u);
  EXPECT_EQ(s[0].bytes_out, 12000u);
  EXPECT_EQ(s[0].busy_ms, 2000);
  EXPECT_EQ(s[0].idle_ms, 1000);
  EXPECT_EQ(s[0].backpressured_ms, 2000);
  EXPECT_EQ(s[0].output_watermark, kMaxWatermark);
  EXPECT_EQ(s[0].input_watermark, kNoTimestamp);
  EXPECT_TRUE(s[0].input_watermarks.empty());  // a source has no input
  EXPECT_EQ(s[0].checkpoint_id, -1);

  EXPECT_EQ(s[1].subtask, 1u);
  EXPECT_FALSE(s[1].running);  // not started
  EXPECT_EQ(s[1].busy_ms, 0);
  EXPECT_EQ(s[1].records_in, 1000u);
  EXPECT_EQ(s[1].input_watermark, 40);
  EXPECT_EQ(s[1].input_watermarks, (std::vector<int64_t>{40, 70}));
  EXPECT_EQ(s[1].checkpoint_id, 7);
  EXPECT_EQ(s[1].checkpoint_start_delay_ns, 3'000'000);
  // The rates cover one interval for every task: the same records give the same rate.
  EXPECT_EQ(s[0].records_out_per_s, s[1].records_in_per_s);
  EXPECT_GE(s[0].records_out_per_s, 0.0);
  EXPECT_EQ(s[1].records_out_per_s, 0.0);
  // Time shares are per mille of a second and never exceed it.
  EXPECT_LE(s[0].busy_ms_per_s, 1000.0);
  EXPECT_LE(s[0].idle_ms_per_s, 1000.0);
  EXPECT_LE(s[0].backpressured_ms_per_s, 1000.0);
}

TEST(TaskMetricsGroupTest, ARunningTaskIsBusyUpToNow) {
  TaskMetricsGroup group(0);
  TaskMetrics* t = group.Add("cc", "sum", 0, 1);
  t->hot.start_ns.store(TaskMetricsGroup::NowNs(), kRelaxed);
  const std::vector<SubtaskTaskMetrics> s = group.Sample();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_TRUE(s[0].running);
  EXPECT_GE(s[0].busy_ms, 0);
  EXPECT_EQ(s[0].input_watermarks.size(), 1u);
}

TEST(TaskInboxMeteringTest, PollAddsTheTimeItBlockedAndNothingWithoutWaiting) {
  TaskInbox inbox({0}, 2);
  int64_t blocked_ns = 0;
  // A deadline already past (the poll between two elements) does not wait.
  TaskInbox::Polled p = inbox.Poll(std::chrono::steady_clock::time_point{}, {}, &blocked_ns);
  EXPECT_EQ(p.what, TaskInbox::Polled::What::kTimeout);
  EXPECT_EQ(blocked_ns, 0);
  // Nothing arrives: the poll waits until its deadline, and says so.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
  p = inbox.Poll(deadline, {}, &blocked_ns);
  EXPECT_EQ(p.what, TaskInbox::Polled::What::kTimeout);
  EXPECT_GT(blocked_ns, 0);
  EXPECT_GE(std::chrono::steady_clock::now(), deadline);
  // A mail waiting: no wait, nothing added.
  const int64_t before = blocked_ns;
  inbox.PostMail([] { return base::Status::OK(); });
  p = inbox.Poll(std::chrono::steady_clock::now() + std::chrono::seconds(60), {}, &blocked_ns);
  EXPECT_EQ(p.what, TaskInbox::Polled::What::kMail);
  EXPECT_EQ(blocked_ns, before);
}

}  // namespace
}  // namespace ckpt::engine::runtime
