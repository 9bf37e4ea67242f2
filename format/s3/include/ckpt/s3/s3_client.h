// S3Client: the S3 REST operations the S3 Fs needs, over libcurl with SigV4, bounded retries of
// idempotent requests (retry.h) and errors that name bucket, key, HTTP status and S3 error code.
// Errors of every operation: NotFound for HTTP 404, AlreadyExists for 412, Unimplemented for 501,
// FailedPrecondition when the credentials are refused (one line, never retried), Corruption for
// an answer that does not parse or a PUT / UploadPart answered with an MD5 ETag that is not the
// MD5 of the bytes sent (after the retries), IOError otherwise (after the retries).
// Thread-safe: one client serves every thread (connections are pooled).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/s3/s3_answers.h"
#include "ckpt/s3/s3_config.h"
#include "ckpt/s3/sigv4.h"

namespace ckpt::s3 {

// One request as a fault injector sees it (before each attempt).
struct S3RequestView {
  std::string_view method;
  std::string_view bucket;
  std::string_view key;
  const QueryList& query;
  int attempt;  // 1-based
};

// For tests of failure paths: returns an HTTP status (500, 503, ...) to answer an attempt with
// instead of sending it, or nullopt to send it. The injected answer carries S3 error code
// "SlowDown" for 503 and "InternalError" otherwise, and goes through the same retry rules.
using S3FaultInjector = std::function<std::optional<long>(const S3RequestView&)>;

class S3Client {
 public:
  // A client for `config`. InvalidArgument for an endpoint that is not http(s)://host[:port].
  static base::Result<std::unique_ptr<S3Client>> Create(S3Config config);
  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  const S3Config& config() const;
  // Installs (or with nullptr removes) a fault injector. Not synchronized with requests in
  // flight: set it before starting them.
  void SetFaultInjector(S3FaultInjector injector);

  // Creates `bucket` (PUT Bucket; in config().region unless it is us-east-1). AlreadyExists
  // when this account already owns it.
  base::Status CreateBucket(const std::string& bucket);

  // Object metadata (HEAD). NotFound when absent.
  base::Result<ObjectInfo> Head(const std::string& bucket, const std::string& key);
  // Up to `n` bytes at `offset` (ranged GET); fewer only at the end of the object, none at or
  // past it. NotFound when absent.
  base::Result<std::string> GetRange(const std::string& bucket, const std::string& key,
                                     uint64_t offset, size_t n);
  // The whole object (at most `max_bytes`: Corruption beyond). NotFound when absent.
  base::Result<std::string> Get(const std::string& bucket, const std::string& key,
                                size_t max_bytes = size_t{1} << 30);
  // Stores `body` as the object (one PUT: readers see the old object or all of the new one).
  // With `if_none_match`, only when no object has the key (If-None-Match: *): AlreadyExists when
  // one does (checked with a HEAD first, then enforced by the server where it supports
  // If-None-Match on PUT); Unimplemented when the server refuses conditional writes (501).
  base::Status Put(const std::string& bucket, const std::string& key, std::string_view body,
                   bool if_none_match = false);
  // Server-side copy (x-amz-copy-source), objects up to 5 GiB. NotFound when the source is absent.
  base::Status Copy(const std::string& src_bucket, const std::string& src_key,
                    const std::string& dst_bucket, const std::string& dst_key);
  // Deletes one object; OK when it is absent (S3's DELETE is idempotent).
  base::Status Delete(const std::string& bucket, const std::string& key);
  // Deletes `keys` with batch DeleteObjects (1000 per request). A store that refuses batch
  // deletes (HTTP 501, 405, 415, or 400 NotImplemented / InvalidArgument / InvalidRequest /
  // MalformedXML, as GCS's XML API answers) gets one DELETE per key instead, in order, from
  // then on for the client's life (BatchDeleteRefused()). IOError naming the keys that failed
  // and why, either way; FailedPrecondition when the credentials are refused.
  base::Status DeleteMany(const std::string& bucket, const std::vector<std::string>& keys);
  // Whether the store refused a batch delete: DeleteMany deletes key by key from then on.
  bool BatchDeleteRefused() const;
  // One ListObjectsV2 page under `prefix` ("" for the whole bucket), grouping by `delimiter`
  // when non-empty, continuing after `continuation_token` when non-empty.
  base::Result<ListPage> ListPageOf(const std::string& bucket, const std::string& prefix,
                                    const std::string& delimiter,
                                    const std::string& continuation_token, int max_keys = 1000);
  // Every page of the listing, concatenated. Stops with InvalidArgument beyond `max_objects`.
  base::Result<ListPage> ListAll(const std::string& bucket, const std::string& prefix,
                                 const std::string& delimiter, size_t max_objects = 10'000'000);

  // Multipart upload. Create returns the upload id (sent once); UploadPart the part's ETag
  // (parts are numbered from 1; every part but the last at least 5 MiB on AWS); Complete
  // publishes the object from the parts (with `if_none_match`: only when absent, AlreadyExists
  // otherwise); Abort discards the parts (OK when the upload is already gone).
  // Complete is retried as idempotent requests are, and also after a 200 answer whose body is
  // an <Error> of a transient code (InternalError, SlowDown); a 200 with another <Error> is an
  // IOError. When a retry finds the upload gone (NoSuchUpload, InvalidPart, or 412 with
  // `if_none_match`) because an earlier attempt completed it, the object is accepted if its ETag
  // is the multipart ETag of `part_etags` (MultipartETag in crypto.h); otherwise IOError
  // (AlreadyExists for the 412) naming bucket, key and upload id, as every Complete error does.
  base::Result<std::string> CreateMultipartUpload(const std::string& bucket,
                                                  const std::string& key);
  base::Result<std::string> UploadPart(const std::string& bucket, const std::string& key,
                                       const std::string& upload_id, int part_number,
                                       std::string_view body);
  base::Status CompleteMultipartUpload(const std::string& bucket, const std::string& key,
                                       const std::string& upload_id,
                                       const std::vector<std::string>& part_etags,
                                       bool if_none_match = false);
  base::Status AbortMultipartUpload(const std::string& bucket, const std::string& key,
                                    const std::string& upload_id);
  // Every multipart upload under `prefix` that is neither completed nor aborted (all pages).
  base::Result<std::vector<MultipartUploadInfo>> ListMultipartUploads(const std::string& bucket,
                                                                      const std::string& prefix);
  // Uploads `body` in parts of config().part_size_bytes, up to config().max_parallel_parts at
  // once, and completes it; on any failure aborts the upload (no object, no stray parts) and
  // returns the first error.
  base::Status PutMultipart(const std::string& bucket, const std::string& key,
                            std::string_view body, bool if_none_match = false);

  class Impl;

 private:
  explicit S3Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::s3
