// SigV4: see sigv4.h. The steps follow AWS's "Create a signed AWS API request" page.
#include "ckpt/s3/sigv4.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "ckpt/s3/crypto.h"

namespace ckpt::s3 {
namespace {

bool SigV4Unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

std::string SigV4Encode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (SigV4Unreserved(c) || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

// Trims and collapses runs of spaces, as the canonical header value requires.
std::string SigV4HeaderValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (const char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::string SigV4Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string RedactedKeyId(std::string_view access_key_id) {
  if (access_key_id.size() <= 8) return "****";
  return std::string(access_key_id.substr(0, 4)) + "…" +
         std::string(access_key_id.substr(access_key_id.size() - 4));
}

std::string UriEncode(std::string_view s) { return SigV4Encode(s, false); }
std::string UriEncodePath(std::string_view s) { return SigV4Encode(s, true); }

std::string CanonicalQueryString(const QueryList& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [k, v] : query) encoded.emplace_back(UriEncode(k), UriEncode(v));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [k, v] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

Signature SignV4(const SigningRequest& request, const Credentials& credentials,
                 std::string_view region, std::string_view service, std::string_view amz_date) {
  std::map<std::string, std::string> headers;  // sorted by lower-case name
  for (const auto& [name, value] : request.headers) {
    std::string& slot = headers[SigV4Lower(name)];
    if (!slot.empty()) slot.push_back(',');
    slot += SigV4HeaderValue(value);
  }
  Signature sig;
  std::string canonical_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name + ":" + value + "\n";
    if (!sig.signed_headers.empty()) sig.signed_headers.push_back(';');
    sig.signed_headers += name;
  }
  sig.canonical_request = request.method + "\n" + request.canonical_uri + "\n" +
                          CanonicalQueryString(request.query) + "\n" + canonical_headers + "\n" +
                          sig.signed_headers + "\n" + request.payload_hash;

  const std::string date(amz_date.substr(0, 8));
  const std::string scope =
      date + "/" + std::string(region) + "/" + std::string(service) + "/aws4_request";
  sig.string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" +
                       Sha256Hex(sig.canonical_request);

  const std::string k_date = HmacSha256("AWS4" + credentials.secret_access_key, date);
  const std::string k_region = HmacSha256(k_date, region);
  const std::string k_service = HmacSha256(k_region, service);
  const std::string k_signing = HmacSha256(k_service, "aws4_request");
  sig.signature = HexEncode(HmacSha256(k_signing, sig.string_to_sign));
  sig.authorization = "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + scope +
                      ", SignedHeaders=" + sig.signed_headers + ", Signature=" + sig.signature;
  return sig;
}

}  // namespace ckpt::s3
