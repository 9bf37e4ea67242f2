#include "runtime/task_inbox.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine::runtime {
namespace {

auto Now() { return std::chrono::steady_clock::now(); }

TEST(TaskInboxTest, MailsComeBeforeData) {
  TaskInbox inbox({0}, 2);
  BufferPool pool(2, 64);
  ASSERT_OK(inbox.SendBuffer(0, pool.TryRequest()));
  bool ran = false;
  inbox.PostMail([&] {
    ran = true;
    return base::Status::OK();
  });
  TaskInbox::Polled p = inbox.Poll(Now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kMail);
  ASSERT_OK(p.mail());
  EXPECT_TRUE(ran);
  p = inbox.Poll(Now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
  pool.Recycle(p.event.buffer);
}

TEST(TaskInboxTest, BlockedChannelIsSkippedUntilUnblocked) {
  TaskInbox inbox({0, 0}, 2);
  BufferPool pool(4, 64);
  ASSERT_OK(inbox.SendBuffer(0, pool.TryRequest()));
  inbox.SetBlocked(0, true);
  EXPECT_EQ(inbox.Poll(Now()).what, TaskInbox::Polled::What::kTimeout);
  ASSERT_OK(inbox.SendBuffer(1, pool.TryRequest()));
  TaskInbox::Polled p = inbox.Poll(Now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
  EXPECT_EQ(p.channel, 1u);
  pool.Recycle(p.event.buffer);
  inbox.SetBlocked(0, false);
  p = inbox.Poll(Now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
  EXPECT_EQ(p.channel, 0u);
  pool.Recycle(p.event.buffer);
}

TEST(TaskInboxTest, SenderWaitsForCreditAndResumesWhenTheTaskTakesABuffer) {
  TaskInbox inbox({0}, 2);
  BufferPool pool(3, 64);
  ASSERT_OK(inbox.SendBuffer(0, pool.TryRequest()));
  ASSERT_OK(inbox.SendBuffer(0, pool.TryRequest()));
  std::atomic<bool> sent{false};
  std::thread sender([&] {
    EXPECT_OK(inbox.SendBuffer(0, pool.TryRequest()));
    sent = true;
  });
  // Without a credit the third buffer cannot be queued: the sender is inside SendBuffer, and
  // stays there (nothing was queued) until the task takes a buffer.
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return inbox.waiting_senders() == 1; }));
  EXPECT_FALSE(sent.load());
  TaskInbox::Polled p = inbox.Poll(Now());
  ASSERT_EQ(p.what, TaskInbox::Polled::What::kEvent);
  sender.join();
  EXPECT_TRUE(sent.load());
  pool.Recycle(p.event.buffer);
}

TEST(TaskInboxTest, CancelWakesAWaitingSender) {
  TaskInbox inbox({0}, 1);
  BufferPool pool(2, 64);
  ASSERT_OK(inbox.SendBuffer(0, pool.TryRequest()));
  base::Status result;
  std::thread sender([&] { result = inbox.SendBuffer(0, pool.TryRequest()); });
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return inbox.waiting_senders() == 1; }));
  inbox.Cancel();
  sender.join();
  EXPECT_EQ(result.code(), base::StatusCode::kCancelled);
  EXPECT_EQ(inbox.Poll(Now()).what, TaskInbox::Polled::What::kCancelled);
  EXPECT_EQ(pool.NumAvailable(), 2u);
}

TEST(BufferPoolTest, RequestWaitsForARecycledBuffer) {
  BufferPool pool(1, 64);
  ASSERT_OK_AND_ASSIGN(NetworkBuffer * b, pool.Request());
  EXPECT_EQ(pool.TryRequest(), nullptr);
  std::thread t([&] {
    // Recycled only once the requester waits, so Request() must have blocked for it.
    EXPECT_TRUE(ckpt::testing::WaitUntil([&] { return pool.NumWaiting() == 1; }));
    pool.Recycle(b);
  });
  ASSERT_OK_AND_ASSIGN(NetworkBuffer * again, pool.Request());
  EXPECT_EQ(again, b);
  t.join();
  pool.Cancel();
  base::Status st = pool.Request().status();
  ASSERT_STATUS(st, kCancelled, "cancelled");
}

}  // namespace
}  // namespace ckpt::engine::runtime
