// Which failed S3 requests are tried again, and how long to wait first: bounded attempts with
// exponential backoff and full jitter, only for idempotent requests. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace ckpt::s3 {

// How the transport failed before (or instead of) an HTTP answer.
enum class TransportFailure {
  kNone,             // an HTTP answer arrived
  kTimeout,          // connect or transfer timed out
  kConnectionReset,  // the connection broke: reset, empty reply, truncated body
  kConnectFailed,    // nothing listens / no route / DNS
  kTls,              // certificate or handshake failure (never retried: it will not heal)
  kOther,            // anything else libcurl reports
};

struct RetryPolicy {
  int max_attempts = 5;        // attempts in all, the first included. Default: 5
  int64_t base_delay_ms = 100; // the first backoff's upper bound. Default: 100
  int64_t max_delay_ms = 10'000;  // no backoff is longer. Default: 10 s
};

enum class FailureClass {
  kRetryable,    // transient: 5xx but 501, 429, SlowDown, InternalError, timeouts, resets
                 // (idempotent requests only)
  kCredentials,  // the key pair or token was refused: one clear error, never retried
  kFinal,        // anything else (404, 412, 400, 501, AccessDenied, a non-idempotent request)
};

// Classifies one failed attempt: `transport` (kNone when `http_status` is meaningful), the HTTP
// status and S3 error code of the answer, and whether the request may be repeated safely.
FailureClass ClassifyFailure(TransportFailure transport, long http_status,
                             std::string_view s3_code, bool idempotent);

// The wait before attempt `attempt + 1` after `attempt` (1-based) failed: a uniformly random
// point (from `random`, any 64-bit value) in [0, min(max_delay, base_delay * 2^(attempt-1))].
int64_t BackoffDelayMs(const RetryPolicy& policy, int attempt, uint64_t random);

// "timeout", "connection reset", ... for messages.
const char* TransportFailureName(TransportFailure failure);

}  // namespace ckpt::s3
