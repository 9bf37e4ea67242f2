// AWS Signature Version 4 (header-based, AWS4-HMAC-SHA256): the canonical request, the string to
// sign and the signature of one HTTP request. Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt::s3 {

// The key pair (and optional session token) a request is signed with. Never logged or printed:
// use RedactedKeyId() where an identity must be named.
struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary credentials (x-amz-security-token)
};

// "AKIA…MPLE": enough of the key id to tell two identities apart, never the whole of it.
std::string RedactedKeyId(std::string_view access_key_id);

// The payload hash S3 accepts when the body is not hashed (x-amz-content-sha256).
inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
// SHA-256 of the empty string.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

using HeaderList = std::vector<std::pair<std::string, std::string>>;
using QueryList = std::vector<std::pair<std::string, std::string>>;

// One request as the signer sees it.
struct SigningRequest {
  std::string method;         // "GET", "PUT", ...
  std::string canonical_uri;  // the URI path, already encoded (UriEncodePath); "/" at least
  QueryList query;            // raw (not encoded) names and values; a name alone has value ""
  HeaderList headers;         // every header to sign (names in any case), host included
  std::string payload_hash;   // hex SHA-256 of the body, or kUnsignedPayload
};

struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      // 64 hex digits
  std::string signed_headers; // "host;range;x-amz-date"
  std::string authorization;  // the Authorization header value
};

// Percent-encodes everything but the RFC 3986 unreserved set (A-Z a-z 0-9 - . _ ~) with
// upper-case hex, as SigV4 requires for query names and values; '/' is encoded too.
std::string UriEncode(std::string_view s);
// As UriEncode, but keeps '/' (an S3 object key in the request path).
std::string UriEncodePath(std::string_view s);
// "a=1&b=&c=x%2Fy": encoded names and values, sorted by name then value.
std::string CanonicalQueryString(const QueryList& query);
// "20130524T000000Z" (ISO 8601 basic, UTC).
std::string AmzDate(std::chrono::system_clock::time_point t);

// Signs `request` for `region` and `service` at `amz_date` (the request's x-amz-date value;
// its first 8 characters are the scope date). Header names are lower-cased, values trimmed with
// inner runs of spaces collapsed, repeated names joined with ','. Requires a non-empty amz_date
// of at least 8 characters.
Signature SignV4(const SigningRequest& request, const Credentials& credentials,
                 std::string_view region, std::string_view service, std::string_view amz_date);

}  // namespace ckpt::s3
