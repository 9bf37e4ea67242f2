// S3Fs locks are leases (format/s3/src/s3_lease.h) against a real local S3 server: one holder
// at a time, renewed while held, deleted when dropped, taken over once expired, and a lock file
// that is not a lease is never taken silently.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "ckpt/s3/s3_fs.h"
#include "ckpt/testing/wait_until.h"
#include "s3_test_server.h"

namespace ckpt::s3 {
namespace {

class S3LeaseE2eTest : public ::testing::Test {
 protected:
  void Open(int64_t ttl_ms) {
    ASSERT_TRUE(testing::S3TestServerConfig(config_));
    config_.lease_ttl_ms = ttl_ms;
    auto client = S3Client::Create(config_);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    fs_ = std::make_unique<S3Fs>(std::move(client).value());
    bucket_ = testing::S3TestBucket("lease");
    ASSERT_TRUE(fs_->client().CreateBucket(bucket_).ok());
    lock_ = "s3://" + bucket_ + "/ckpt/job/_job.lock";
    key_ = "ckpt/job/_job.lock";
  }
  // The expiry the lease object names (its "expires_ms=" line), -1 when absent.
  int64_t Expiry() {
    base::Result<std::string> body = fs_->client().Get(bucket_, key_);
    if (!body.ok()) return -1;
    const size_t at = body->find("expires_ms=");
    return at == std::string::npos ? -1 : std::stoll(body->substr(at + 11));
  }
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  S3Config config_;
  std::unique_ptr<S3Fs> fs_;
  std::string bucket_, lock_, key_;
};

TEST_F(S3LeaseE2eTest, OneHolderAtATimeAndDroppingDeletesTheLease) {
  ASSERT_NO_FATAL_FAILURE(Open(30'000));
  EXPECT_TRUE(fs_->SupportsLocks());
  auto first = fs_->TryLockFile(lock_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ((*first)->path(), lock_);
  EXPECT_GT(Expiry(), NowMs());
  auto second = fs_->TryLockFile(lock_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), base::StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find("is locked by another process: leased by "),
            std::string::npos)
      << second.status().ToString();
  first->reset();
  EXPECT_TRUE(fs_->client().Head(bucket_, key_).status().IsNotFound());
  auto again = fs_->TryLockFile(lock_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
}

// With a short time to live the holder renews: the expiry moves forward twice, and a contender
// is still refused after the first expiry it saw has passed.
TEST_F(S3LeaseE2eTest, TheHolderRenewsItsLease) {
  ASSERT_NO_FATAL_FAILURE(Open(600));
  auto held = fs_->TryLockFile(lock_);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  const int64_t first = Expiry();
  ASSERT_GT(first, 0);
  int64_t renewed = 0;
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return (renewed = Expiry()) > first; }));
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return Expiry() > renewed && NowMs() > first; }));
  auto contender = fs_->TryLockFile(lock_);
  ASSERT_FALSE(contender.ok());
  EXPECT_EQ(contender.status().code(), base::StatusCode::kFailedPrecondition);
}

TEST_F(S3LeaseE2eTest, AnExpiredLeaseIsTakenOverAndAnEmptyLockFileIsFree) {
  ASSERT_NO_FATAL_FAILURE(Open(30'000));
  const std::string dead = "owner=dead-host:1:0123456789abcdef\nexpires_ms=" +
                           std::to_string(NowMs() - 60'000) + "\n";
  ASSERT_TRUE(fs_->client().Put(bucket_, key_, dead).ok());
  auto taken = fs_->TryLockFile(lock_);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  base::Result<std::string> body = fs_->client().Get(bucket_, key_);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->find("dead-host"), std::string::npos) << *body;
  taken->reset();

  // A job directory copied from a POSIX disk carries the empty file flock(2) left.
  ASSERT_TRUE(fs_->client().Put(bucket_, key_, "").ok());
  auto over_empty = fs_->TryLockFile(lock_);
  ASSERT_TRUE(over_empty.ok()) << over_empty.status().ToString();
}

TEST_F(S3LeaseE2eTest, AnObjectThatIsNotALeaseIsRefusedNamingIt) {
  ASSERT_NO_FATAL_FAILURE(Open(30'000));
  ASSERT_TRUE(fs_->client().Put(bucket_, key_, "locked by ops\n").ok());
  auto lock = fs_->TryLockFile(lock_);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), base::StatusCode::kFailedPrecondition);
  EXPECT_NE(lock.status().message().find(lock_ + ": not a lease"), std::string::npos)
      << lock.status().ToString();
  base::Result<std::string> body = fs_->client().Get(bucket_, key_);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(*body, "locked by ops\n");  // left as it was
}

}  // namespace
}  // namespace ckpt::s3
