// One signed S3 request over libcurl, with retries: see s3_transport.h.
#include "s3_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <random>
#include <thread>

#include "ckpt/s3/crypto.h"
#include "ckpt/s3/sigv4.h"

namespace ckpt::s3 {
namespace {

std::once_flag g_curl_init;

struct TransportSink {
  S3Answer* answer;
  size_t max_bytes;
  bool too_large = false;
};

size_t TransportWrite(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<TransportSink*>(user);
  const size_t n = size * count;
  if (sink->answer->body.size() + n > sink->max_bytes) {
    sink->too_large = true;
    return 0;
  }
  sink->answer->body.append(data, n);
  return n;
}

size_t TransportHeader(char* data, size_t size, size_t count, void* user) {
  auto* answer = static_cast<S3Answer*>(user);
  const size_t n = size * count;
  std::string_view line(data, n);
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.remove_suffix(1);
    }
    answer->headers[name] = std::string(value);
  }
  return n;
}

TransportFailure TransportClassify(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT: return TransportFailure::kTimeout;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return TransportFailure::kConnectionReset;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST: return TransportFailure::kConnectFailed;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM: return TransportFailure::kTls;
    default: return TransportFailure::kOther;
  }
}

// Why the answer's ETag shows the server did not store `request.body`, or "" when it matches or
// is not an MD5 (multipart, SSE-KMS and SSE-C ETags are not).
std::string TransportEtagMismatch(const S3Request& request, const S3Answer& answer) {
  if (!request.verify_md5_etag) return "";
  auto it = answer.headers.find("etag");
  if (it == answer.headers.end()) return "";
  std::string etag = it->second;
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  if (etag.size() != 32 ||
      !std::all_of(etag.begin(), etag.end(),
                   [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
    return "";
  }
  if (auto sse = answer.headers.find("x-amz-server-side-encryption");
      sse != answer.headers.end() && sse->second.starts_with("aws:kms")) {
    return "";
  }
  if (answer.headers.contains("x-amz-server-side-encryption-customer-algorithm")) return "";
  std::string lower = etag;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string sent = Md5Hex(request.body);
  if (lower == sent) return "";
  return "HTTP " + std::to_string(answer.status) + " with ETag \"" + etag +
         "\", not the MD5 \"" + sent + "\" of the " + std::to_string(request.body.size()) +
         " bytes sent (the server did not store what was sent)";
}

// Why a 206 answer to a GET holds another number of bytes than its Content-Range names, or ""
// when it holds them all (or names no range): a body cut short where no Content-Length framed it
// (a close-delimited answer) is otherwise indistinguishable from a whole one.
std::string TransportRangeMismatch(const S3Request& request, const S3Answer& answer) {
  if (request.method != "GET" || answer.status != 206) return "";
  auto it = answer.headers.find("content-range");
  if (it == answer.headers.end()) return "";
  std::string_view range = it->second;  // "bytes first-last/total"
  if (!range.starts_with("bytes ")) return "";
  range.remove_prefix(6);
  const size_t dash = range.find('-');
  const size_t slash = range.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash) return "";
  uint64_t first = 0;
  uint64_t last = 0;
  const auto [p1, e1] = std::from_chars(range.data(), range.data() + dash, first);
  const auto [p2, e2] = std::from_chars(range.data() + dash + 1, range.data() + slash, last);
  if (e1 != std::errc() || e2 != std::errc() || p1 != range.data() + dash ||
      p2 != range.data() + slash || last < first) {
    return "";
  }
  if (answer.body.size() == last - first + 1) return "";
  return "HTTP 206 with " + std::to_string(answer.body.size()) + " bytes, not the " +
         std::to_string(last - first + 1) + " its Content-Range '" + it->second + "' names";
}

uint64_t TransportRandom() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return gen();
}

}  // namespace

S3Target S3TargetOf(const std::string& endpoint_host, bool path_style, const std::string& bucket,
                    const std::string& key) {
  // A dotted bucket name cannot be a TLS-valid subdomain: such buckets are addressed by path.
  if (path_style || bucket.find('.') != std::string::npos) {
    return {endpoint_host, "/" + bucket + (key.empty() ? "" : "/" + UriEncodePath(key))};
  }
  return {bucket + "." + endpoint_host, "/" + UriEncodePath(key)};
}

S3Client::Impl::Impl(S3Config cfg, std::string scheme, std::string host)
    : config(std::move(cfg)), scheme_(std::move(scheme)), host_(std::move(host)) {
  std::call_once(g_curl_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

S3Client::Impl::~Impl() {
  for (void* h : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* S3Client::Impl::AcquireHandle() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_handles_.empty()) {
      void* h = idle_handles_.back();
      idle_handles_.pop_back();
      curl_easy_reset(static_cast<CURL*>(h));
      return h;
    }
  }
  return curl_easy_init();
}

void S3Client::Impl::ReleaseHandle(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_handles_.push_back(handle);
}

std::string S3Client::Impl::Describe(const S3Request& request) {
  return "S3 " + request.method + " s3://" + request.bucket + "/" + request.key;
}

S3Client::Impl::Attempt S3Client::Impl::Send(const S3Request& request) {
  Attempt attempt;
  const S3Target target = S3TargetOf(host_, config.path_style, request.bucket, request.key);
  const std::string& host = target.host;
  const std::string& path = target.path;
  const std::string query = CanonicalQueryString(request.query);
  const std::string url = scheme_ + "://" + host + path + (query.empty() ? "" : "?" + query);

  const std::string amz_date = AmzDate(std::chrono::system_clock::now());
  const std::string payload_hash = Sha256Hex(request.body);
  SigningRequest signing;
  signing.method = request.method;
  signing.canonical_uri = path;
  signing.query = request.query;
  signing.headers = request.headers;
  signing.headers.emplace_back("host", host);
  signing.headers.emplace_back("x-amz-date", amz_date);
  signing.headers.emplace_back("x-amz-content-sha256", payload_hash);
  if (!config.credentials.session_token.empty()) {
    signing.headers.emplace_back("x-amz-security-token", config.credentials.session_token);
  }
  signing.payload_hash = payload_hash;
  const Signature sig = SignV4(signing, config.credentials, config.region, "s3", amz_date);

  curl_slist* headers = nullptr;
  for (const auto& [name, value] : signing.headers) {
    headers = curl_slist_append(headers, (name + ": " + value).c_str());
  }
  headers = curl_slist_append(headers, ("Authorization: " + sig.authorization).c_str());
  headers = curl_slist_append(headers, "Expect:");
  if (request.method == "PUT" || request.method == "POST") {
    bool has_type = false;
    for (const auto& h : request.headers) has_type |= h.first == "content-type";
    if (!has_type) headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
  }

  auto* curl = static_cast<CURL*>(AcquireHandle());
  if (curl == nullptr) {
    curl_slist_free_all(headers);
    attempt.failure = TransportFailure::kOther;
    attempt.transport_error = "curl_easy_init failed";
    return attempt;
  }
  // Error bodies may be longer than a small ranged answer: the cap on success is checked after.
  TransportSink sink{&attempt.answer, std::max<size_t>(request.max_answer_bytes, 64 << 10)};
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, TransportWrite);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, TransportHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &attempt.answer);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(config.stall_timeout_ms / 1000)));
  if (!config.ca_bundle.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, config.ca_bundle.c_str());
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else {
    if (request.method == "PUT" || request.method == "POST") {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.empty() ? "" : request.body.data());
    }
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  ReleaseHandle(curl);
  curl_slist_free_all(headers);

  if (sink.too_large) {
    attempt.too_large = true;
  } else if (code != CURLE_OK) {
    attempt.failure = TransportClassify(code);
    attempt.transport_error = error[0] != '\0' ? error : curl_easy_strerror(code);
  }
  attempt.answer.status = status;
  return attempt;
}

base::Result<S3Answer> S3Client::Impl::Execute(const S3Request& request, S3Failure* failure) {
  const int max_attempts = std::max(1, config.retry.max_attempts);
  for (int n = 1;; ++n) {
    if (failure != nullptr) *failure = S3Failure{0, "", n};
    Attempt attempt;
    std::optional<long> injected;
    if (fault_injector) {
      injected = fault_injector(S3RequestView{request.method, request.bucket, request.key,
                                              request.query, n});
    }
    if (injected) {
      attempt.answer.status = *injected;
      attempt.answer.body = std::string("<Error><Code>") +
                            (*injected == 503 ? "SlowDown" : "InternalError") +
                            "</Code><Message>injected fault</Message></Error>";
    } else {
      attempt = Send(request);
    }
    if (attempt.too_large) {
      return base::Status::Corruption(Describe(request) + ": answer larger than " +
                                      std::to_string(request.max_answer_bytes) + " bytes");
    }
    const S3Answer& answer = attempt.answer;
    const bool answered_2xx = attempt.failure == TransportFailure::kNone &&
                              answer.status >= 200 && answer.status < 300;
    if (answered_2xx &&
        !(request.error_body_fails_2xx && !ParseErrorBody(answer.body).code.empty())) {
      if (answer.body.size() > request.max_answer_bytes) {
        return base::Status::Corruption(Describe(request) + ": answer larger than " +
                                        std::to_string(request.max_answer_bytes) + " bytes");
      }
      std::string mismatch = TransportRangeMismatch(request, answer);
      if (mismatch.empty()) mismatch = TransportEtagMismatch(request, answer);
      if (mismatch.empty()) return std::move(attempt.answer);
      // The bytes were cut or damaged on the way: sending again is the cure, as for a reset.
      if (request.idempotent && n < max_attempts) {
        std::this_thread::sleep_for(
            std::chrono::milliseconds(BackoffDelayMs(config.retry, n, TransportRandom())));
        continue;
      }
      return base::Status::Corruption(Describe(request) + ": " + mismatch +
                                      (n > 1 ? " (after " + std::to_string(n) + " attempts)"
                                             : std::string()));
    }
    S3ErrorBody error = ParseErrorBody(answer.body);
    if (error.code.empty() && attempt.failure == TransportFailure::kNone) {
      // HEAD answers carry no body; name the status the way S3 would.
      if (answer.status == 404) error.code = "NotFound";
      else if (answer.status == 403) error.code = "Forbidden";
      else if (answer.status == 412) error.code = "PreconditionFailed";
    }
    if (failure != nullptr && attempt.failure == TransportFailure::kNone) {
      failure->http_status = answer.status;
      failure->s3_code = error.code;
    }
    const FailureClass cls =
        ClassifyFailure(attempt.failure, answer.status, error.code, request.idempotent);
    if (cls == FailureClass::kRetryable && n < max_attempts) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(BackoffDelayMs(config.retry, n, TransportRandom())));
      continue;
    }
    std::string what = Describe(request) + ": ";
    if (cls == FailureClass::kCredentials) {
      return base::Status::FailedPrecondition(
          what + "credentials refused (HTTP " + std::to_string(answer.status) + " " + error.code +
          ") for key " + RedactedKeyId(config.credentials.access_key_id) + " from " +
          config.credentials_source);
    }
    if (attempt.failure != TransportFailure::kNone) {
      what += std::string("no HTTP status, ") + TransportFailureName(attempt.failure) + " (" +
              attempt.transport_error + ")";
    } else {
      what += "HTTP " + std::to_string(answer.status) + " " +
              (error.code.empty() ? "(no S3 error code)" : error.code);
      if (!error.message.empty()) what += ": " + error.message;
      if (answer.status == 403 && request.method == "HEAD") {
        what += " (a HEAD answer names no cause: access denied, or the credentials of key " +
                RedactedKeyId(config.credentials.access_key_id) + " from " +
                config.credentials_source + " were refused)";
      }
    }
    if (n > 1) what += " (after " + std::to_string(n) + " attempts)";
    if (attempt.failure == TransportFailure::kNone) {
      if (answer.status == 404) return base::Status::NotFound(what);
      if (answer.status == 412) return base::Status::AlreadyExists(what);
      if (answer.status == 501) return base::Status::Unimplemented(what);
    }
    return base::Status::IOError(what);
  }
}

}  // namespace ckpt::s3
