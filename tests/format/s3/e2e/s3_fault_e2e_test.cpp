// The S3 client and Fs against the local S3 server behind a fault-injecting HTTP proxy
// (fault_proxy.h): every retry class (reset, timeout, 500, 503, 429, truncated body, altered
// ETag) on the wire, the bounded give-up, non-idempotent requests, and aborted uploads.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/s3/crypto.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "fault_proxy.h"
#include "s3_test_server.h"

namespace ckpt::s3 {
namespace {

using testing::FaultAction;
using testing::FaultProxy;
using testing::FaultRule;
using testing::S3TestBucket;
using testing::S3TestServerConfig;

constexpr int kFaultTestAttempts = 4;

std::string FaultTestBody(size_t n) {
  std::string body(n, '\0');
  for (size_t i = 0; i < n; ++i) body[i] = static_cast<char>(i * 131 % 251);
  return body;
}

FaultRule FaultTestRule(std::string method, std::string target, FaultAction action,
                        int times = 1) {
  FaultRule rule;
  rule.method = std::move(method);
  rule.target_contains = std::move(target);
  rule.action = action;
  rule.times = times;
  return rule;
}

class S3FaultE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(S3TestServerConfig(config_));
    ASSERT_OK_AND_ASSIGN(direct_, S3Client::Create(config_));
    bucket_ = S3TestBucket("fault");
    ASSERT_OK(direct_->CreateBucket(bucket_));
    ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start(config_.endpoint));
    ASSERT_OK_AND_ASSIGN(client_, S3Client::Create(ProxiedConfig()));
  }

  // The client configuration through the proxy: few attempts, millisecond backoff. The stall
  // timeout stays long (a loaded machine must not turn slow answers into timeouts) except where
  // a test holds answers on purpose.
  S3Config ProxiedConfig(int64_t stall_timeout_ms = 30'000) const {
    S3Config config = config_;
    config.endpoint = proxy_->endpoint();
    config.retry.max_attempts = kFaultTestAttempts;
    config.retry.base_delay_ms = 1;
    config.retry.max_delay_ms = 5;
    config.stall_timeout_ms = stall_timeout_ms;
    return config;
  }

  // "/bucket/key" as the request target starts.
  std::string Target(const std::string& key) const { return "/" + bucket_ + "/" + key; }

  // No object at `key` and no upload under it left pending (checked without the proxy).
  void ExpectNothingLeft(const std::string& key) {
    EXPECT_TRUE(direct_->Head(bucket_, key).status().IsNotFound());
    auto pending = direct_->ListMultipartUploads(bucket_, key);
    ASSERT_OK(pending);
    EXPECT_TRUE(pending->empty()) << pending->size() << " uploads of " << key << " pending";
  }

  S3Config config_;
  std::unique_ptr<S3Client> direct_;
  std::string bucket_;
  std::unique_ptr<FaultProxy> proxy_;
  std::unique_ptr<S3Client> client_;  // destroyed before the proxy
};

TEST_F(S3FaultE2eTest, ForwardsSignedRequestsUntouched) {
  ASSERT_OK(client_->Put(bucket_, "plain", "through the proxy"));
  ASSERT_OK_AND_ASSIGN(const std::string got, client_->Get(bucket_, "plain"));
  EXPECT_EQ(got, "through the proxy");
  ASSERT_OK_AND_ASSIGN(const ObjectInfo info, client_->Head(bucket_, "plain"));
  EXPECT_EQ(info.size_bytes, 17u);
  EXPECT_EQ(proxy_->Requests(), 3);
}

TEST_F(S3FaultE2eTest, ConnectionResetOnGetIsRetried) {
  ASSERT_OK(direct_->Put(bucket_, "reset-obj", "payload"));
  const int rule = proxy_->AddRule(
      FaultTestRule("GET", Target("reset-obj"), FaultAction::kReset, /*times=*/2));
  ASSERT_OK_AND_ASSIGN(const std::string got, client_->Get(bucket_, "reset-obj"));
  EXPECT_EQ(got, "payload");
  EXPECT_EQ(proxy_->Faulted(rule), 2);
  EXPECT_EQ(proxy_->Matched(rule), 3);
}

TEST_F(S3FaultE2eTest, HeldAnswerTimesOutAndIsRetried) {
  ASSERT_OK(direct_->Put(bucket_, "slow-obj", "eventually"));
  // A 2 s stall timeout against an answer held for 30 s.
  ASSERT_OK_AND_ASSIGN(auto impatient, S3Client::Create(ProxiedConfig(/*stall_timeout_ms=*/2'000)));
  const int rule = proxy_->AddRule(FaultTestRule("GET", Target("slow-obj"), FaultAction::kDelay));
  ASSERT_OK_AND_ASSIGN(const std::string got, impatient->Get(bucket_, "slow-obj"));
  EXPECT_EQ(got, "eventually");
  EXPECT_EQ(proxy_->Faulted(rule), 1);
  EXPECT_GE(proxy_->Matched(rule), 2);  // one more if a slow machine let a real answer stall
}

TEST_F(S3FaultE2eTest, ServerErrorsAreRetriedUntilTheySucceed) {
  const struct {
    FaultAction action;
    const char* key;
  } cases[] = {{FaultAction::kInternalError, "e500"},
               {FaultAction::kSlowDown, "e503"},
               {FaultAction::kTooManyRequests, "e429"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.key);
    const int put_rule =
        proxy_->AddRule(FaultTestRule("PUT", Target(c.key), c.action, /*times=*/2));
    ASSERT_OK(client_->Put(bucket_, c.key, c.key));
    EXPECT_EQ(proxy_->Faulted(put_rule), 2);
    EXPECT_EQ(proxy_->Matched(put_rule), 3);
    const int get_rule = proxy_->AddRule(
        FaultTestRule("GET", Target(c.key), c.action, /*times=*/kFaultTestAttempts - 1));
    ASSERT_OK_AND_ASSIGN(const std::string got, client_->Get(bucket_, c.key));
    EXPECT_EQ(got, c.key);
    EXPECT_EQ(proxy_->Faulted(get_rule), kFaultTestAttempts - 1);
    EXPECT_EQ(proxy_->Matched(get_rule), kFaultTestAttempts);
  }
}

TEST_F(S3FaultE2eTest, PersistentSlowDownGivesUpNamingBucketKeyStatusAndCode) {
  ASSERT_OK(direct_->Put(bucket_, "throttled", "x"));
  const int rule = proxy_->AddRule(
      FaultTestRule("GET", Target("throttled"), FaultAction::kSlowDown, /*times=*/-1));
  auto got = client_->Get(bucket_, "throttled");
  ASSERT_EQ(got.status().code(), base::StatusCode::kIOError) << got.status().ToString();
  const std::string& m = got.status().message();
  EXPECT_NE(m.find("s3://" + bucket_ + "/throttled"), std::string::npos) << m;
  EXPECT_NE(m.find("HTTP 503 SlowDown"), std::string::npos) << m;
  EXPECT_NE(m.find("after " + std::to_string(kFaultTestAttempts) + " attempts"),
            std::string::npos)
      << m;
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
}

TEST_F(S3FaultE2eTest, TruncatedBodyIsRetriedAndNeverReturnedShort) {
  const std::string body = FaultTestBody(200 << 10);
  ASSERT_OK(direct_->Put(bucket_, "cut", body));
  const int rule = proxy_->AddRule(
      FaultTestRule("GET", Target("cut"), FaultAction::kTruncateBody, /*times=*/2));
  ASSERT_OK_AND_ASSIGN(const std::string whole, client_->Get(bucket_, "cut"));
  EXPECT_TRUE(whole == body) << whole.size() << " of " << body.size() << " bytes";
  ASSERT_OK_AND_ASSIGN(const std::string range, client_->GetRange(bucket_, "cut", 1000, 50'000));
  EXPECT_TRUE(range == body.substr(1000, 50'000)) << range.size() << " bytes";
  EXPECT_EQ(proxy_->Faulted(rule), 2);
  EXPECT_EQ(proxy_->Matched(rule), 4);
}

TEST_F(S3FaultE2eTest, RangedAnswerCutWithoutALengthIsRetried) {
  // No Content-Length: HTTP cannot tell the cut; the Content-Range of the 206 answer can.
  const std::string body = FaultTestBody(100'000);
  ASSERT_OK(direct_->Put(bucket_, "unframed", body));
  const int rule = proxy_->AddRule(
      FaultTestRule("GET", Target("unframed"), FaultAction::kCutUnframed, /*times=*/2));
  ASSERT_OK_AND_ASSIGN(const std::string range,
                       client_->GetRange(bucket_, "unframed", 10, 60'000));
  EXPECT_TRUE(range == body.substr(10, 60'000)) << range.size() << " bytes";
  EXPECT_EQ(proxy_->Faulted(rule), 2);
  EXPECT_EQ(proxy_->Matched(rule), 3);

  const int always = proxy_->AddRule(
      FaultTestRule("GET", Target("unframed"), FaultAction::kCutUnframed, /*times=*/-1));
  auto cut = client_->GetRange(bucket_, "unframed", 0, 50'000);
  ASSERT_EQ(cut.status().code(), base::StatusCode::kCorruption) << cut.status().ToString();
  EXPECT_NE(cut.status().message().find("s3://" + bucket_ + "/unframed"), std::string::npos);
  EXPECT_NE(cut.status().message().find("Content-Range"), std::string::npos)
      << cut.status().message();
  EXPECT_EQ(proxy_->Matched(always), kFaultTestAttempts);
}

TEST_F(S3FaultE2eTest, TruncatedListingAndResetHeadAreRetried) {
  for (int i = 0; i < 30; ++i) {
    ASSERT_OK(direct_->Put(bucket_, "listed/object-with-a-long-name-" + std::to_string(i), "x"));
  }
  const int list_rule = proxy_->AddRule(
      FaultTestRule("GET", "/" + bucket_ + "?list-type=2", FaultAction::kTruncateBody));
  ASSERT_OK_AND_ASSIGN(const ListPage all, client_->ListAll(bucket_, "listed/", ""));
  EXPECT_EQ(all.objects.size(), 30u);
  EXPECT_EQ(proxy_->Faulted(list_rule), 1);
  EXPECT_EQ(proxy_->Matched(list_rule), 2);
  const int head_rule = proxy_->AddRule(
      FaultTestRule("HEAD", Target("listed/object-with-a-long-name-7"), FaultAction::kReset));
  ASSERT_OK_AND_ASSIGN(const ObjectInfo info,
                       client_->Head(bucket_, "listed/object-with-a-long-name-7"));
  EXPECT_EQ(info.size_bytes, 1u);
  EXPECT_EQ(proxy_->Matched(head_rule), 2);
}

TEST_F(S3FaultE2eTest, PersistentlyTruncatedBodyIsAnErrorNotAShortObject) {
  ASSERT_OK(direct_->Put(bucket_, "always-cut", FaultTestBody(10'000)));
  const int rule = proxy_->AddRule(
      FaultTestRule("GET", Target("always-cut"), FaultAction::kTruncateBody, /*times=*/-1));
  auto got = client_->Get(bucket_, "always-cut");
  ASSERT_EQ(got.status().code(), base::StatusCode::kIOError) << got.status().ToString();
  EXPECT_NE(got.status().message().find("s3://" + bucket_ + "/always-cut"), std::string::npos);
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
}

TEST_F(S3FaultE2eTest, AlteredETagOnPutIsDetectedAndRetried) {
  const int rule =
      proxy_->AddRule(FaultTestRule("PUT", Target("etag-put"), FaultAction::kAlterETag));
  ASSERT_OK(client_->Put(bucket_, "etag-put", "stored bytes"));
  EXPECT_EQ(proxy_->Faulted(rule), 1);
  EXPECT_EQ(proxy_->Matched(rule), 2);
  ASSERT_OK_AND_ASSIGN(const std::string got, direct_->Get(bucket_, "etag-put"));
  EXPECT_EQ(got, "stored bytes");
}

TEST_F(S3FaultE2eTest, PersistentlyWrongETagOnPutIsCorruption) {
  const int rule = proxy_->AddRule(
      FaultTestRule("PUT", Target("etag-bad"), FaultAction::kAlterETag, /*times=*/-1));
  const base::Status st = client_->Put(bucket_, "etag-bad", "stored bytes");
  ASSERT_EQ(st.code(), base::StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/etag-bad"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("HTTP 200 with ETag"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("not the MD5"), std::string::npos) << st.message();
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
}

TEST_F(S3FaultE2eTest, AlteredETagOnPartIsDetectedAndThePartResent) {
  const std::string body = FaultTestBody(11 << 20);
  const int rule = proxy_->AddRule(
      FaultTestRule("PUT", Target("etag-mp?partNumber=2&"), FaultAction::kAlterETag));
  ASSERT_OK(client_->PutMultipart(bucket_, "etag-mp", body));
  EXPECT_EQ(proxy_->Faulted(rule), 1);
  EXPECT_EQ(proxy_->Matched(rule), 2);
  ASSERT_OK_AND_ASSIGN(const std::string got, direct_->Get(bucket_, "etag-mp"));
  EXPECT_TRUE(got == body);
}

TEST_F(S3FaultE2eTest, PersistentlyWrongPartETagAbortsTheUpload) {
  const int rule = proxy_->AddRule(FaultTestRule("PUT", Target("etag-mp-bad?partNumber=3&"),
                                                 FaultAction::kAlterETag, /*times=*/-1));
  const base::Status st = client_->PutMultipart(bucket_, "etag-mp-bad", FaultTestBody(11 << 20));
  ASSERT_EQ(st.code(), base::StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/etag-mp-bad"), std::string::npos);
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
  ExpectNothingLeft("etag-mp-bad");
}

TEST_F(S3FaultE2eTest, CompleteMultipartUploadIsRetriedAfterA503) {
  const std::string body = FaultTestBody(6 << 20);
  const int rule = proxy_->AddRule(
      FaultTestRule("POST", Target("complete-503?uploadId="), FaultAction::kSlowDown));
  ASSERT_OK(client_->PutMultipart(bucket_, "complete-503", body));
  EXPECT_EQ(proxy_->Faulted(rule), 1);
  EXPECT_EQ(proxy_->Matched(rule), 2);
  ASSERT_OK_AND_ASSIGN(const std::string got, direct_->Get(bucket_, "complete-503"));
  EXPECT_TRUE(got == body);
}

TEST_F(S3FaultE2eTest, PersistentlyFailingCompleteGivesUpNamingTheUploadAndAborts) {
  const int rule = proxy_->AddRule(FaultTestRule("POST", Target("complete-fails?uploadId="),
                                                 FaultAction::kSlowDown, /*times=*/-1));
  const base::Status st = client_->PutMultipart(bucket_, "complete-fails", FaultTestBody(6 << 20));
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("HTTP 503 SlowDown"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/complete-fails"), std::string::npos);
  EXPECT_NE(st.message().find("upload id "), std::string::npos) << st.message();
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
  ExpectNothingLeft("complete-fails");
}

TEST_F(S3FaultE2eTest, CompleteWhoseAnswerIsLostIsAcceptedByTheObjectsMultipartETag) {
  // The server completes the upload, the answer never arrives; the retry finds the upload gone
  // (s3proxy answers InvalidPart, other stores NoSuchUpload) and the object's ETag settles it.
  const std::string body = FaultTestBody((5 << 20) + 777);
  const int rule = proxy_->AddRule(
      FaultTestRule("POST", Target("complete-lost?uploadId="), FaultAction::kDropAnswer));
  ASSERT_OK(client_->PutMultipart(bucket_, "complete-lost", body));
  EXPECT_EQ(proxy_->Faulted(rule), 1);
  EXPECT_EQ(proxy_->Matched(rule), 2);
  ASSERT_OK_AND_ASSIGN(const std::string got, direct_->Get(bucket_, "complete-lost"));
  EXPECT_TRUE(got == body);
  ASSERT_OK_AND_ASSIGN(const ObjectInfo info, direct_->Head(bucket_, "complete-lost"));
  EXPECT_TRUE(info.etag.ends_with("-2")) << info.etag;
}

TEST_F(S3FaultE2eTest, FsWriteWhoseCompleteAnswerIsLostStillSucceeds) {
  ASSERT_OK_AND_ASSIGN(auto proxied, S3Client::Create(ProxiedConfig()));
  S3Fs fs(std::move(proxied));
  const std::string body = FaultTestBody(11 << 20);
  const int rule = proxy_->AddRule(
      FaultTestRule("POST", Target("fs-complete-lost?uploadId="), FaultAction::kDropAnswer));
  ASSERT_OK_AND_ASSIGN(auto w, fs.OpenWrite("s3://" + bucket_ + "/fs-complete-lost"));
  ASSERT_OK(w->Append(body));
  ASSERT_OK(w->Close());
  EXPECT_EQ(proxy_->Faulted(rule), 1);
  ASSERT_OK_AND_ASSIGN(const std::string got, direct_->Get(bucket_, "fs-complete-lost"));
  EXPECT_TRUE(got == body);
}

TEST_F(S3FaultE2eTest, LostCompleteAnswerWithAnotherObjectETagFailsNamingTheUpload) {
  // The HEAD after the retry shows another ETag than the parts give: not provably ours.
  const int complete = proxy_->AddRule(
      FaultTestRule("POST", Target("complete-other?uploadId="), FaultAction::kDropAnswer));
  const int head = proxy_->AddRule(
      FaultTestRule("HEAD", Target("complete-other"), FaultAction::kAlterETag, /*times=*/-1));
  ASSERT_OK_AND_ASSIGN(const std::string upload_id,
                       client_->CreateMultipartUpload(bucket_, "complete-other"));
  ASSERT_OK_AND_ASSIGN(const std::string etag,
                       client_->UploadPart(bucket_, "complete-other", upload_id, 1, "one part"));
  const base::Status st =
      client_->CompleteMultipartUpload(bucket_, "complete-other", upload_id, {etag});
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/complete-other"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("upload id " + upload_id), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("not \"" + MultipartETag({etag}) + "\""), std::string::npos)
      << st.message();
  EXPECT_EQ(proxy_->Matched(complete), 2);
  EXPECT_EQ(proxy_->Matched(head), 1);
}

TEST_F(S3FaultE2eTest, CompleteAnswered200WithATransientErrorIsRetried) {
  const std::string body = FaultTestBody(6 << 20);
  const int rule = proxy_->AddRule(
      FaultTestRule("POST", Target("complete-200?uploadId="), FaultAction::kErrorIn200));
  ASSERT_OK(client_->PutMultipart(bucket_, "complete-200", body));
  EXPECT_EQ(proxy_->Faulted(rule), 1);
  EXPECT_EQ(proxy_->Matched(rule), 2);
  ASSERT_OK_AND_ASSIGN(const std::string got, direct_->Get(bucket_, "complete-200"));
  EXPECT_TRUE(got == body);
}

TEST_F(S3FaultE2eTest, CompleteAnswered200WithAnotherErrorFailsAndAborts) {
  FaultRule rule_spec =
      FaultTestRule("POST", Target("complete-200-final?uploadId="), FaultAction::kErrorIn200);
  rule_spec.error_code = "AccessDenied";
  const int rule = proxy_->AddRule(rule_spec);
  const base::Status st =
      client_->PutMultipart(bucket_, "complete-200-final", FaultTestBody(6 << 20));
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("HTTP 200 AccessDenied"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/complete-200-final"), std::string::npos);
  EXPECT_EQ(proxy_->Matched(rule), 1);
  ExpectNothingLeft("complete-200-final");
}

TEST_F(S3FaultE2eTest, CreateMultipartUploadIsNotRetriedAfterAReset) {
  const int rule = proxy_->AddRule(
      FaultTestRule("POST", Target("no-retry-create?uploads"), FaultAction::kReset, -1));
  auto id = client_->CreateMultipartUpload(bucket_, "no-retry-create");
  ASSERT_EQ(id.status().code(), base::StatusCode::kIOError) << id.status().ToString();
  EXPECT_NE(id.status().message().find("connection reset"), std::string::npos)
      << id.status().message();
  EXPECT_EQ(proxy_->Matched(rule), 1);
}

TEST_F(S3FaultE2eTest, PersistentPartFailureAbortsTheUploadAndLeavesNothing) {
  const int rule = proxy_->AddRule(FaultTestRule("PUT", Target("part-fails?partNumber=2&"),
                                                 FaultAction::kReset, /*times=*/-1));
  const base::Status st = client_->PutMultipart(bucket_, "part-fails", FaultTestBody(11 << 20));
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/part-fails"), std::string::npos);
  EXPECT_NE(st.message().find("connection reset"), std::string::npos) << st.message();
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
  ExpectNothingLeft("part-fails");
}

TEST_F(S3FaultE2eTest, FsWriteWhosePartFailsIsAbortedOnClose) {
  ASSERT_OK_AND_ASSIGN(auto proxied, S3Client::Create(ProxiedConfig()));
  S3Fs fs(std::move(proxied));
  const int rule = proxy_->AddRule(FaultTestRule("PUT", Target("fs-part-fails?partNumber=1&"),
                                                 FaultAction::kInternalError, /*times=*/-1));
  ASSERT_OK_AND_ASSIGN(auto w, fs.OpenWrite("s3://" + bucket_ + "/fs-part-fails"));
  const std::string body = FaultTestBody(11 << 20);
  const base::Status appended = w->Append(body);  // may already see the failed part
  const base::Status closed = w->Close();
  EXPECT_FALSE(appended.ok() && closed.ok());
  const base::Status& st = closed.ok() ? appended : closed;
  EXPECT_NE(st.message().find("HTTP 500 InternalError"), std::string::npos) << st.ToString();
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
  ExpectNothingLeft("fs-part-fails");
}

TEST_F(S3FaultE2eTest, FsReadWithTheConnectionDroppedMidBodyGetsTheRightBytes) {
  // Three read-ahead blocks (8 MiB each, s3_files.cpp) for the small reads below.
  const std::string body = FaultTestBody((17 << 20) + 12345);
  ASSERT_OK(direct_->Put(bucket_, "fs-read", body));
  ASSERT_OK_AND_ASSIGN(auto proxied, S3Client::Create(ProxiedConfig()));
  S3Fs fs(std::move(proxied));
  // The first read's GET and, further on, one of the small reads' read-ahead GETs are cut.
  const int first = proxy_->AddRule(
      FaultTestRule("GET", Target("fs-read"), FaultAction::kTruncateBody, /*times=*/1));
  ASSERT_OK_AND_ASSIGN(const std::string whole,
                       base::ReadFileToString(fs, "s3://" + bucket_ + "/fs-read"));
  EXPECT_TRUE(whole == body) << whole.size() << " of " << body.size() << " bytes";
  EXPECT_EQ(proxy_->Faulted(first), 1);

  ASSERT_OK_AND_ASSIGN(auto r, fs.OpenRead("s3://" + bucket_ + "/fs-read"));
  FaultRule later = FaultTestRule("GET", Target("fs-read"), FaultAction::kTruncateBody);
  later.skip = 1;
  const int second = proxy_->AddRule(later);
  std::string back;
  char buf[64 << 10];
  for (uint64_t off = 0; off < body.size(); off += sizeof buf) {
    ASSERT_OK_AND_ASSIGN(const size_t n, r->ReadAt(off, sizeof buf, buf));
    back.append(buf, n);
  }
  EXPECT_TRUE(back == body) << back.size() << " of " << body.size() << " bytes";
  EXPECT_EQ(proxy_->Faulted(second), 1);
}

TEST_F(S3FaultE2eTest, FsFallsBackToOneDeletePerKeyWhenBatchDeleteIsNotImplemented) {
  for (const char* rel : {"a", "sub/b", "_metadata"}) {
    ASSERT_OK(direct_->Put(bucket_, std::string("pub.tmp/") + rel, rel));
  }
  ASSERT_OK_AND_ASSIGN(auto proxied, S3Client::Create(ProxiedConfig()));
  S3Fs fs(std::move(proxied));
  const int batch = proxy_->AddRule(FaultTestRule("POST", "/" + bucket_ + "?delete",
                                                  FaultAction::kNotImplemented, /*times=*/-1));
  FaultRule count_deletes = FaultTestRule("DELETE", Target(""), FaultAction::kReset);
  count_deletes.times = 0;  // counts, never faults
  const int deletes = proxy_->AddRule(count_deletes);
  const std::string root = "s3://" + bucket_ + "/";
  ASSERT_OK(fs.PublishDir(root + "pub.tmp", root + "pub"));
  EXPECT_TRUE(fs.client().BatchDeleteRefused());
  EXPECT_EQ(proxy_->Matched(batch), 1);
  EXPECT_EQ(proxy_->Matched(deletes), 3);
  ASSERT_OK_AND_ASSIGN(const ListPage left, direct_->ListAll(bucket_, "pub.tmp/", ""));
  EXPECT_TRUE(left.objects.empty()) << left.objects.size() << " objects left under pub.tmp/";
  ASSERT_OK_AND_ASSIGN(const ListPage published, direct_->ListAll(bucket_, "pub/", ""));
  EXPECT_EQ(published.objects.size(), 3u);

  // The refusal is remembered: the next move deletes key by key without asking again.
  ASSERT_OK(fs.Rename(root + "pub", root + "moved"));
  EXPECT_EQ(proxy_->Matched(batch), 1);
  EXPECT_EQ(proxy_->Matched(deletes), 6);
  ASSERT_OK_AND_ASSIGN(const ListPage moved_from, direct_->ListAll(bucket_, "pub/", ""));
  EXPECT_TRUE(moved_from.objects.empty());
  ASSERT_OK_AND_ASSIGN(const std::string meta, direct_->Get(bucket_, "moved/_metadata"));
  EXPECT_EQ(meta, "_metadata");
}

TEST_F(S3FaultE2eTest, PerKeyDeleteFailuresAreReportedLikeTheBatchOnes) {
  for (const char* key : {"gone/a", "gone/b", "gone/c"}) ASSERT_OK(direct_->Put(bucket_, key, key));
  proxy_->AddRule(FaultTestRule("POST", "/" + bucket_ + "?delete", FaultAction::kNotImplemented,
                                /*times=*/-1));
  const int stuck = proxy_->AddRule(
      FaultTestRule("DELETE", Target("gone/b"), FaultAction::kInternalError, /*times=*/-1));
  const base::Status st = client_->DeleteMany(bucket_, {"gone/a", "gone/b", "gone/c"});
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("1 of 3 keys not deleted: gone/b (HTTP 500 InternalError"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("s3://" + bucket_ + "/"), std::string::npos) << st.message();
  EXPECT_EQ(proxy_->Matched(stuck), kFaultTestAttempts);
  EXPECT_TRUE(direct_->Head(bucket_, "gone/a").status().IsNotFound());
  EXPECT_OK(direct_->Head(bucket_, "gone/b").status());
  EXPECT_TRUE(direct_->Head(bucket_, "gone/c").status().IsNotFound());
}

TEST_F(S3FaultE2eTest, BatchDeleteThatFailsOtherwiseIsNotTakenForARefusal) {
  ASSERT_OK(direct_->Put(bucket_, "kept", "x"));
  const int rule = proxy_->AddRule(FaultTestRule("POST", "/" + bucket_ + "?delete",
                                                 FaultAction::kSlowDown, /*times=*/-1));
  const base::Status st = client_->DeleteMany(bucket_, {"kept"});
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("HTTP 503 SlowDown"), std::string::npos) << st.message();
  EXPECT_FALSE(client_->BatchDeleteRefused());
  EXPECT_EQ(proxy_->Matched(rule), kFaultTestAttempts);
  EXPECT_OK(direct_->Head(bucket_, "kept").status());
}

}  // namespace
}  // namespace ckpt::s3
