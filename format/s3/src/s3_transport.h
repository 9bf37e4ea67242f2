// S3Client::Impl: one signed S3 request over libcurl, with retries (private to ckpt::s3).
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/s3/retry.h"
#include "ckpt/s3/s3_client.h"

namespace ckpt::s3 {

struct S3Request {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string bucket;
  std::string key;     // "" for bucket-level requests
  QueryList query;
  HeaderList headers;  // request-specific headers; all are signed
  std::string_view body;
  bool idempotent = true;
  // A 2xx answer whose ETag is an MD5 (32 hex digits, no SSE-KMS or SSE-C, which make it
  // something else) must be the MD5 of `body`: the server stored what was sent. A mismatch fails
  // the attempt (retried like a reset when idempotent, else Corruption). For PUT and UploadPart.
  bool verify_md5_etag = false;
  // A 2xx answer whose body is an S3 <Error> failed: it is classified by its error code like an
  // error answer (retried for InternalError, SlowDown, ... when idempotent). For
  // CompleteMultipartUpload, which S3 may fail after its 200 status line was sent.
  bool error_body_fails_2xx = false;
  size_t max_answer_bytes = size_t{16} << 20;
};

// How a request that Execute returned an error for last failed, for callers that react to a
// particular answer (a refused batch delete, a repeated CompleteMultipartUpload).
struct S3Failure {
  long http_status = 0;  // 0 when the transport failed (or the answer was not checked)
  std::string s3_code;   // the S3 error code of the last answer, "" when none
  int attempts = 0;      // attempts sent, the last included
};

struct S3Answer {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

// Where a request goes: the Host header (also signed) and the encoded path (also the canonical
// URI). Path-style: endpoint_host, "/bucket/key"; virtual-hosted: "bucket.endpoint_host",
// "/key". Buckets with a '.' are always addressed by path (no TLS-valid subdomain).
struct S3Target {
  std::string host;
  std::string path;
};
S3Target S3TargetOf(const std::string& endpoint_host, bool path_style, const std::string& bucket,
                    const std::string& key);

class S3Client::Impl {
 public:
  Impl(S3Config config, std::string scheme, std::string host);
  ~Impl();

  // Sends `request` (re-signed for every attempt), retrying transient failures of idempotent
  // requests. A 2xx answer is returned; otherwise the error as a Status: NotFound for 404,
  // AlreadyExists for 412, Unimplemented for 501, IOError otherwise, each naming the operation,
  // s3://bucket/key, the HTTP status and S3 error code (or the transport failure) and the
  // attempts made; Corruption when `verify_md5_etag` and the ETag stays wrong, or when a 206
  // answer keeps holding another number of bytes than its Content-Range names. A refused
  // credential is one line naming the key id (redacted) and its source. On an error, `failure`
  // (when not null) receives the last answer's HTTP status and S3 error code and the attempts.
  base::Result<S3Answer> Execute(const S3Request& request, S3Failure* failure = nullptr);

  // "S3 GET s3://bucket/key" for messages.
  static std::string Describe(const S3Request& request);

  const S3Config config;
  S3FaultInjector fault_injector;
  // Set once the store refused a batch delete (DeleteObjects): DeleteMany then sends one DELETE
  // per key for the rest of the client's life.
  std::atomic<bool> batch_delete_refused{false};

 private:
  struct Attempt {
    TransportFailure failure = TransportFailure::kNone;
    std::string transport_error;
    S3Answer answer;
    bool too_large = false;
  };
  Attempt Send(const S3Request& request);
  void* AcquireHandle();
  void ReleaseHandle(void* handle);

  std::string scheme_;
  std::string host_;  // host[:port] of the endpoint
  std::mutex mu_;
  std::vector<void*> idle_handles_;  // CURL*
};

}  // namespace ckpt::s3
