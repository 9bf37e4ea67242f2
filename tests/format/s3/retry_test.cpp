// Which S3 failures are retried, and the backoff bounds.
#include "ckpt/s3/retry.h"

#include <gtest/gtest.h>

namespace ckpt::s3 {
namespace {

TEST(RetryTest, TransientFailuresOfIdempotentRequestsAreRetried) {
  using T = TransportFailure;
  EXPECT_EQ(ClassifyFailure(T::kNone, 500, "InternalError", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kNone, 503, "SlowDown", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kNone, 503, "", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kNone, 429, "", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kNone, 400, "RequestTimeout", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kTimeout, 0, "", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kConnectionReset, 0, "", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kConnectFailed, 0, "", true), FailureClass::kRetryable);
}

TEST(RetryTest, NonIdempotentRequestsAreNeverRetried) {
  using T = TransportFailure;
  EXPECT_EQ(ClassifyFailure(T::kNone, 500, "InternalError", false), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kNone, 503, "SlowDown", false), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kConnectionReset, 0, "", false), FailureClass::kFinal);
}

TEST(RetryTest, NotImplementedIsFinalUnlikeOtherServerErrors) {
  using T = TransportFailure;
  EXPECT_EQ(ClassifyFailure(T::kNone, 501, "NotImplemented", true), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kNone, 501, "", true), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kNone, 502, "", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kNone, 504, "", true), FailureClass::kRetryable);
}

TEST(RetryTest, AnErrorBodyInA200AnswerIsClassifiedByItsCode) {
  using T = TransportFailure;
  EXPECT_EQ(ClassifyFailure(T::kNone, 200, "InternalError", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kNone, 200, "SlowDown", true), FailureClass::kRetryable);
  EXPECT_EQ(ClassifyFailure(T::kNone, 200, "AccessDenied", true), FailureClass::kFinal);
}

TEST(RetryTest, ClientErrorsAndTlsAreFinal) {
  using T = TransportFailure;
  EXPECT_EQ(ClassifyFailure(T::kNone, 404, "NoSuchKey", true), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kNone, 403, "AccessDenied", true), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kNone, 412, "PreconditionFailed", true), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kNone, 400, "InvalidArgument", true), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kTls, 0, "", true), FailureClass::kFinal);
  EXPECT_EQ(ClassifyFailure(T::kOther, 0, "", true), FailureClass::kFinal);
}

TEST(RetryTest, RefusedCredentialsAreTheirOwnClass) {
  using T = TransportFailure;
  for (const char* code : {"InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken",
                           "InvalidToken"}) {
    EXPECT_EQ(ClassifyFailure(T::kNone, 403, code, true), FailureClass::kCredentials) << code;
    EXPECT_EQ(ClassifyFailure(T::kNone, 400, code, false), FailureClass::kCredentials) << code;
  }
}

TEST(RetryTest, BackoffIsJitteredWithinAnExponentialCap) {
  RetryPolicy p;
  p.base_delay_ms = 100;
  p.max_delay_ms = 1000;
  EXPECT_EQ(BackoffDelayMs(p, 1, 0), 0);
  EXPECT_EQ(BackoffDelayMs(p, 1, 100), 100);
  EXPECT_EQ(BackoffDelayMs(p, 1, 101), 0);
  EXPECT_EQ(BackoffDelayMs(p, 2, 200), 200);
  EXPECT_EQ(BackoffDelayMs(p, 3, 400), 400);
  EXPECT_EQ(BackoffDelayMs(p, 10, 1000), 1000);
  EXPECT_EQ(BackoffDelayMs(p, 60, 1000), 1000);
  for (uint64_t r = 0; r < 5000; r += 37) EXPECT_LE(BackoffDelayMs(p, 5, r), 1000);
  p.base_delay_ms = 0;
  EXPECT_EQ(BackoffDelayMs(p, 3, 12345), 0);
}

}  // namespace
}  // namespace ckpt::s3
