// S3Client's single-object, listing and delete operations: see s3_client.h.
#include "ckpt/s3/s3_client.h"

#include <charconv>

#include "ckpt/s3/crypto.h"
#include "s3_transport.h"

namespace ckpt::s3 {
namespace {

// Whether a failed DeleteObjects says the store does not serve batch deletes at all (GCS's XML
// API and other partial S3 implementations), rather than that this request failed: the keys
// can then be deleted one DELETE each.
bool ClientBatchDeleteRefused(const S3Failure& failure) {
  switch (failure.http_status) {
    case 501:  // NotImplemented
    case 405:  // MethodNotAllowed
    case 415:  // Unsupported Media Type (the XML body is not understood)
      return true;
    case 400:
      return failure.s3_code.empty() || failure.s3_code == "NotImplemented" ||
             failure.s3_code == "InvalidArgument" || failure.s3_code == "InvalidRequest" ||
             failure.s3_code == "MalformedXML" || failure.s3_code == "MethodNotAllowed";
    default:
      return false;
  }
}

}  // namespace

S3Client::S3Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
S3Client::~S3Client() = default;

base::Result<std::unique_ptr<S3Client>> S3Client::Create(S3Config config) {
  const std::string& endpoint = config.endpoint;
  const size_t sep = endpoint.find("://");
  const std::string scheme = sep == std::string::npos ? "" : endpoint.substr(0, sep);
  if (scheme != "http" && scheme != "https") {
    return base::Status::InvalidArgument("S3 endpoint '" + endpoint +
                                         "' is not http://host[:port] or https://host[:port]");
  }
  const std::string host = endpoint.substr(sep + 3);
  if (host.empty() || host.find('/') != std::string::npos) {
    return base::Status::InvalidArgument("S3 endpoint '" + endpoint +
                                         "' must be scheme://host[:port] without a path");
  }
  return std::unique_ptr<S3Client>(
      new S3Client(std::make_unique<Impl>(std::move(config), scheme, host)));
}

const S3Config& S3Client::config() const { return impl_->config; }

void S3Client::SetFaultInjector(S3FaultInjector injector) {
  impl_->fault_injector = std::move(injector);
}

base::Status S3Client::CreateBucket(const std::string& bucket) {
  std::string body;
  if (config().region != "us-east-1") {
    body = "<CreateBucketConfiguration><LocationConstraint>" + XmlEscape(config().region) +
           "</LocationConstraint></CreateBucketConfiguration>";
  }
  S3Request r{"PUT", bucket, "", {}, {}, body, true};
  base::Result<S3Answer> answer = impl_->Execute(r);
  if (!answer.ok() &&
      answer.status().message().find("BucketAlreadyOwnedByYou") != std::string::npos) {
    return base::Status::AlreadyExists(answer.status().message());
  }
  return answer.status();
}

base::Result<ObjectInfo> S3Client::Head(const std::string& bucket, const std::string& key) {
  S3Request r{"HEAD", bucket, key, {}, {}, {}, true};
  CKPT_ASSIGN_OR_RETURN(const S3Answer answer, impl_->Execute(r));
  ObjectInfo info;
  info.key = key;
  auto it = answer.headers.find("content-length");
  if (it == answer.headers.end()) {
    return base::Status::Corruption(Impl::Describe(r) + ": answer without Content-Length");
  }
  const std::string& len = it->second;
  const auto [p, ec] = std::from_chars(len.data(), len.data() + len.size(), info.size_bytes);
  if (ec != std::errc() || p != len.data() + len.size()) {
    return base::Status::Corruption(Impl::Describe(r) + ": Content-Length '" + len +
                                    "' is not a number");
  }
  if (auto lm = answer.headers.find("last-modified"); lm != answer.headers.end()) {
    info.mtime_ms = std::max<int64_t>(0, ParseHttpDateMs(lm->second));
  }
  if (auto et = answer.headers.find("etag"); et != answer.headers.end()) {
    info.etag = et->second;
    if (info.etag.size() >= 2 && info.etag.front() == '"') {
      info.etag = info.etag.substr(1, info.etag.size() - 2);
    }
  }
  return info;
}

base::Result<std::string> S3Client::GetRange(const std::string& bucket, const std::string& key,
                                             uint64_t offset, size_t n) {
  if (n == 0) return std::string();
  S3Request r{"GET", bucket, key, {}, {}, {}, true};
  r.headers.emplace_back("range", "bytes=" + std::to_string(offset) + "-" +
                                      std::to_string(offset + n - 1));
  r.max_answer_bytes = n;
  base::Result<S3Answer> answer = impl_->Execute(r);
  if (!answer.ok()) {
    // 416 InvalidRange: the offset is at or past the end.
    if (answer.status().message().find("HTTP 416") != std::string::npos) return std::string();
    return answer.status();
  }
  if (answer->status != 206 && offset > 0) {
    return base::Status::Corruption(Impl::Describe(r) + ": HTTP " +
                                    std::to_string(answer->status) +
                                    " to a ranged GET (the range was ignored)");
  }
  return std::move(answer->body);
}

base::Result<std::string> S3Client::Get(const std::string& bucket, const std::string& key,
                                        size_t max_bytes) {
  S3Request r{"GET", bucket, key, {}, {}, {}, true};
  r.max_answer_bytes = max_bytes;
  CKPT_ASSIGN_OR_RETURN(S3Answer answer, impl_->Execute(r));
  return std::move(answer.body);
}

base::Status S3Client::Put(const std::string& bucket, const std::string& key,
                           std::string_view body, bool if_none_match) {
  S3Request r{"PUT", bucket, key, {}, {}, body, !if_none_match};
  r.verify_md5_etag = true;
  if (if_none_match) {
    // Servers without conditional writes ignore If-None-Match; the HEAD catches the common case
    // there (a race remains only on such servers).
    base::Result<ObjectInfo> existing = Head(bucket, key);
    if (existing.ok()) {
      return base::Status::AlreadyExists(Impl::Describe(r) + ": the object already exists");
    }
    if (!existing.status().IsNotFound()) return existing.status();
    r.headers.emplace_back("if-none-match", "*");
  }
  return impl_->Execute(r).status();
}

base::Status S3Client::Copy(const std::string& src_bucket, const std::string& src_key,
                            const std::string& dst_bucket, const std::string& dst_key) {
  S3Request r{"PUT", dst_bucket, dst_key, {}, {}, {}, true};
  r.headers.emplace_back("x-amz-copy-source", "/" + src_bucket + "/" + UriEncodePath(src_key));
  CKPT_ASSIGN_OR_RETURN(const S3Answer answer, impl_->Execute(r));
  // A copy can fail after the 200 status line was sent: the body is then an <Error>.
  const S3ErrorBody error = ParseErrorBody(answer.body);
  if (!error.code.empty()) {
    if (error.code == "NoSuchKey") {
      return base::Status::NotFound(Impl::Describe(r) + " from s3://" + src_bucket + "/" +
                                    src_key + ": NoSuchKey");
    }
    return base::Status::IOError(Impl::Describe(r) + ": HTTP 200 " + error.code + ": " +
                                 error.message);
  }
  return base::Status::OK();
}

base::Status S3Client::Delete(const std::string& bucket, const std::string& key) {
  S3Request r{"DELETE", bucket, key, {}, {}, {}, true};
  base::Status st = impl_->Execute(r).status();
  if (st.IsNotFound() && st.message().find("NoSuchKey") != std::string::npos) {
    return base::Status::OK();
  }
  return st;
}

base::Status S3Client::DeleteMany(const std::string& bucket, const std::vector<std::string>& keys) {
  constexpr size_t kBatch = 1000;
  std::vector<std::string> failed;
  size_t start = 0;
  for (; start < keys.size() && !impl_->batch_delete_refused; start += kBatch) {
    std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
    const size_t end = std::min(keys.size(), start + kBatch);
    for (size_t i = start; i < end; ++i) {
      body += "<Object><Key>" + XmlEscape(keys[i]) + "</Key></Object>";
    }
    body += "</Delete>";
    S3Request r{"POST", bucket, "", {{"delete", ""}}, {}, body, true};
    r.headers.emplace_back("content-md5", Md5Base64(body));
    r.headers.emplace_back("content-type", "application/xml");
    S3Failure failure;
    base::Result<S3Answer> answer = impl_->Execute(r, &failure);
    if (!answer.ok()) {
      if (!ClientBatchDeleteRefused(failure)) return answer.status();
      impl_->batch_delete_refused = true;  // this batch and every later one go key by key
      break;
    }
    CKPT_ASSIGN_OR_RETURN(std::vector<std::string> batch_failed,
                          ParseDeleteResult(answer->body, Impl::Describe(r)));
    failed.insert(failed.end(), batch_failed.begin(), batch_failed.end());
  }
  const bool per_key = start < keys.size();
  for (size_t i = start; i < keys.size(); ++i) {
    const base::Status st = Delete(bucket, keys[i]);
    if (st.ok()) continue;
    // Refused credentials refuse every key alike: one line, as from the batch request.
    if (st.code() == base::StatusCode::kFailedPrecondition) return st;
    // "key (HTTP 500 InternalError: ...)", as the batch answer's "key (Code: Message)".
    const std::string prefix = "S3 DELETE s3://" + bucket + "/" + keys[i] + ": ";
    const std::string& m = st.message();
    failed.push_back(keys[i] + " (" + (m.starts_with(prefix) ? m.substr(prefix.size()) : m) + ")");
  }
  if (failed.empty()) return base::Status::OK();
  std::string list;
  for (size_t i = 0; i < failed.size() && i < 10; ++i) list += (i ? "; " : "") + failed[i];
  return base::Status::IOError(
      "S3 DeleteObjects s3://" + bucket + "/" +
      (per_key ? " (one DELETE per key: the store refused batch deletes)" : "") + ": " +
      std::to_string(failed.size()) + " of " + std::to_string(keys.size()) +
      " keys not deleted: " + list);
}

bool S3Client::BatchDeleteRefused() const { return impl_->batch_delete_refused; }

base::Result<ListPage> S3Client::ListPageOf(const std::string& bucket, const std::string& prefix,
                                            const std::string& delimiter,
                                            const std::string& continuation_token, int max_keys) {
  S3Request r{"GET", bucket, "", {{"list-type", "2"}}, {}, {}, true};
  if (!prefix.empty()) r.query.emplace_back("prefix", prefix);
  if (!delimiter.empty()) r.query.emplace_back("delimiter", delimiter);
  if (!continuation_token.empty()) r.query.emplace_back("continuation-token", continuation_token);
  r.query.emplace_back("max-keys", std::to_string(max_keys));
  CKPT_ASSIGN_OR_RETURN(const S3Answer answer, impl_->Execute(r));
  return ParseListObjectsV2(answer.body, "ListObjectsV2 of s3://" + bucket + "/" + prefix);
}

base::Result<ListPage> S3Client::ListAll(const std::string& bucket, const std::string& prefix,
                                         const std::string& delimiter, size_t max_objects) {
  ListPage all;
  std::string token;
  for (;;) {
    CKPT_ASSIGN_OR_RETURN(ListPage page, ListPageOf(bucket, prefix, delimiter, token));
    for (ObjectInfo& o : page.objects) all.objects.push_back(std::move(o));
    for (std::string& p : page.common_prefixes) all.common_prefixes.push_back(std::move(p));
    if (all.objects.size() + all.common_prefixes.size() > max_objects) {
      return base::Status::InvalidArgument("ListObjectsV2 of s3://" + bucket + "/" + prefix +
                                           ": more than " + std::to_string(max_objects) +
                                           " entries");
    }
    if (!page.truncated) break;
    if (page.next_continuation_token == token) {
      return base::Status::Corruption("ListObjectsV2 of s3://" + bucket + "/" + prefix +
                                      ": the continuation token does not advance");
    }
    token = page.next_continuation_token;
  }
  return all;
}

}  // namespace ckpt::s3
