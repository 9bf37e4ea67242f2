// S3Client against a real local S3 server (s3proxy with SigV4 checking on).
#include "ckpt/s3/s3_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>

#include "ckpt/testing/gtest_util.h"
#include "s3_test_server.h"

namespace ckpt::s3 {
namespace {

using testing::S3TestBucket;
using testing::S3TestServerConfig;

class S3ClientE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(S3TestServerConfig(config_));
    auto client = S3Client::Create(config_);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    bucket_ = S3TestBucket("client");
    const base::Status created = client_->CreateBucket(bucket_);
    ASSERT_TRUE(created.ok()) << created.ToString();
  }
  S3Config config_;
  std::unique_ptr<S3Client> client_;
  std::string bucket_;
};

TEST_F(S3ClientE2eTest, PutHeadGetRangeAndDelete) {
  ASSERT_TRUE(client_->Put(bucket_, "dir/a b+c$.txt", "0123456789").ok());
  auto info = client_->Head(bucket_, "dir/a b+c$.txt");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->size_bytes, 10u);
  EXPECT_GT(info->mtime_ms, 0);
  auto range = client_->GetRange(bucket_, "dir/a b+c$.txt", 3, 4);
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  EXPECT_EQ(*range, "3456");
  auto tail = client_->GetRange(bucket_, "dir/a b+c$.txt", 8, 100);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(*tail, "89");
  auto past = client_->GetRange(bucket_, "dir/a b+c$.txt", 10, 5);
  ASSERT_TRUE(past.ok()) << past.status().ToString();
  EXPECT_EQ(*past, "");
  ASSERT_TRUE(client_->Delete(bucket_, "dir/a b+c$.txt").ok());
  auto gone = client_->Head(bucket_, "dir/a b+c$.txt");
  EXPECT_TRUE(gone.status().IsNotFound()) << gone.status().ToString();
  EXPECT_NE(gone.status().message().find("s3://" + bucket_ + "/dir/a b+c$.txt"),
            std::string::npos);
  EXPECT_NE(gone.status().message().find("HTTP 404"), std::string::npos);
}

TEST_F(S3ClientE2eTest, MissingObjectErrorNamesBucketKeyStatusAndCode) {
  auto got = client_->Get(bucket_, "nope");
  ASSERT_TRUE(got.status().IsNotFound());
  EXPECT_NE(got.status().message().find("s3://" + bucket_ + "/nope"), std::string::npos);
  EXPECT_NE(got.status().message().find("HTTP 404 NoSuchKey"), std::string::npos)
      << got.status().message();
}

TEST_F(S3ClientE2eTest, ListsWithPaginationAndDelimiter) {
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(client_->Put(bucket_, "p/f" + std::to_string(i), "x").ok());
  }
  ASSERT_TRUE(client_->Put(bucket_, "p/sub/g", "y").ok());
  ASSERT_TRUE(client_->Put(bucket_, "q", "z").ok());
  auto page = client_->ListPageOf(bucket_, "p/", "/", "", 3);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->objects.size() + page->common_prefixes.size(), 3u);
  auto all = client_->ListAll(bucket_, "p/", "/");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->objects.size(), 7u);
  ASSERT_EQ(all->common_prefixes.size(), 1u);
  EXPECT_EQ(all->common_prefixes[0], "p/sub/");
  auto flat = client_->ListAll(bucket_, "", "");
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(flat->objects.size(), 9u);
}

TEST_F(S3ClientE2eTest, BatchDeleteRemovesEveryKey) {
  std::vector<std::string> keys;
  for (int i = 0; i < 5; ++i) {
    keys.push_back("d/<&'k" + std::to_string(i));
    ASSERT_TRUE(client_->Put(bucket_, keys.back(), "x").ok());
  }
  ASSERT_TRUE(client_->DeleteMany(bucket_, keys).ok());
  auto left = client_->ListAll(bucket_, "d/", "");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->objects.empty());
}

TEST_F(S3ClientE2eTest, MultipartUploadInParallelParts) {
  std::string body(12 << 20, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>(i * 131 % 251);
  ASSERT_TRUE(client_->PutMultipart(bucket_, "big", body).ok());
  auto got = client_->Get(bucket_, "big");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(*got == body);
}

TEST_F(S3ClientE2eTest, FailedPartAbortsTheUploadAndLeavesNoObject) {
  std::atomic<int> part_attempts{0};
  client_->SetFaultInjector([&](const S3RequestView& r) -> std::optional<long> {
    for (const auto& [k, v] : r.query) {
      if (k == "partNumber" && v == "2") {
        ++part_attempts;
        return 500;
      }
    }
    return std::nullopt;
  });
  const std::string body(11 << 20, 'x');
  const base::Status st = client_->PutMultipart(bucket_, "aborted", body);
  client_->SetFaultInjector(nullptr);
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("HTTP 500 InternalError"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/aborted"), std::string::npos);
  EXPECT_EQ(part_attempts.load(), config_.retry.max_attempts);  // retried, then gave up
  EXPECT_TRUE(client_->Head(bucket_, "aborted").status().IsNotFound());
  auto pending = client_->ListMultipartUploads(bucket_, "");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_TRUE(pending->empty());
}

TEST_F(S3ClientE2eTest, ListsUploadsNeitherCompletedNorAborted) {
  auto id = client_->CreateMultipartUpload(bucket_, "pending/a");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto pending = client_->ListMultipartUploads(bucket_, "pending/");
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].key, "pending/a");
  EXPECT_EQ((*pending)[0].upload_id, *id);
  ASSERT_TRUE(client_->AbortMultipartUpload(bucket_, "pending/a", *id).ok());
  pending = client_->ListMultipartUploads(bucket_, "pending/");
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
}

TEST_F(S3ClientE2eTest, ConditionalCreateRefusesAnExistingObject) {
  ASSERT_TRUE(client_->Put(bucket_, "once", "1", /*if_none_match=*/true).ok());
  const base::Status again = client_->Put(bucket_, "once", "2", /*if_none_match=*/true);
  EXPECT_EQ(again.code(), base::StatusCode::kAlreadyExists) << again.ToString();
  EXPECT_EQ(*client_->Get(bucket_, "once"), "1");
}

TEST_F(S3ClientE2eTest, WrongSecretIsOneClearErrorWithoutRetries) {
  S3Config bad = config_;
  bad.credentials.secret_access_key = "not-the-secret-at-all-0000000000000000";
  auto client = S3Client::Create(bad);
  ASSERT_TRUE(client.ok());
  std::atomic<int> attempts{0};
  (*client)->SetFaultInjector([&](const S3RequestView&) -> std::optional<long> {
    ++attempts;
    return std::nullopt;
  });
  auto got = (*client)->Get(bucket_, "x");
  ASSERT_FALSE(got.ok());
  const std::string& m = got.status().message();
  EXPECT_NE(m.find("credentials refused"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_EQ(m.find("not-the-secret"), std::string::npos);
  EXPECT_EQ(attempts.load(), 1);
}

TEST_F(S3ClientE2eTest, TransientServerErrorsAreRetried) {
  std::atomic<int> attempts{0};
  client_->SetFaultInjector([&](const S3RequestView& r) -> std::optional<long> {
    if (r.method == "GET" && ++attempts < 3) return 503;
    return std::nullopt;
  });
  ASSERT_TRUE(client_->Put(bucket_, "r", "ok").ok());
  auto got = client_->Get(bucket_, "r");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, "ok");
  EXPECT_EQ(attempts.load(), 3);
}

}  // namespace
}  // namespace ckpt::s3
