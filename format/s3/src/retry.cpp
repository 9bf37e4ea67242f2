// Retry classification and backoff: see retry.h.
#include "ckpt/s3/retry.h"

#include <algorithm>

namespace ckpt::s3 {

FailureClass ClassifyFailure(TransportFailure transport, long http_status,
                             std::string_view s3_code, bool idempotent) {
  if (transport == TransportFailure::kTls) return FailureClass::kFinal;
  if (s3_code == "InvalidAccessKeyId" || s3_code == "SignatureDoesNotMatch" ||
      s3_code == "ExpiredToken" || s3_code == "InvalidToken" ||
      s3_code == "InvalidClientTokenId" || s3_code == "TokenRefreshRequired") {
    return FailureClass::kCredentials;
  }
  bool transient = false;
  if (transport != TransportFailure::kNone) {
    transient = transport != TransportFailure::kOther;
  } else {
    // 501 Not Implemented names a request the server will never serve, not a passing state.
    transient = (http_status >= 500 && http_status != 501) || http_status == 429 ||
                s3_code == "SlowDown" ||
                s3_code == "RequestTimeout" || s3_code == "InternalError" ||
                s3_code == "ServiceUnavailable";
  }
  return transient && idempotent ? FailureClass::kRetryable : FailureClass::kFinal;
}

int64_t BackoffDelayMs(const RetryPolicy& policy, int attempt, uint64_t random) {
  const int shift = std::clamp(attempt - 1, 0, 30);
  const int64_t cap = std::min(policy.max_delay_ms, policy.base_delay_ms << shift);
  if (cap <= 0) return 0;
  return static_cast<int64_t>(random % static_cast<uint64_t>(cap + 1));
}

const char* TransportFailureName(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::kNone: return "no transport failure";
    case TransportFailure::kTimeout: return "timeout";
    case TransportFailure::kConnectionReset: return "connection reset";
    case TransportFailure::kConnectFailed: return "connection failed";
    case TransportFailure::kTls: return "TLS failure";
    case TransportFailure::kOther: return "transport failure";
  }
  return "transport failure";
}

}  // namespace ckpt::s3
