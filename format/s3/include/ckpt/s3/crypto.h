// Hashes and MACs for request signing, over OpenSSL's libcrypto (EVP). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ckpt::s3 {

// SHA-256 of `data` as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view data);

// HMAC-SHA256 of `data` under `key`: the 32 raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);

// MD5 of `data`, base64-encoded (the Content-MD5 header that DeleteObjects requires).
std::string Md5Base64(std::string_view data);

// MD5 of `data` as 32 lower-case hex digits (what S3 answers as the ETag of a plain PUT or part).
std::string Md5Hex(std::string_view data);

// Lower-case hex of arbitrary bytes.
std::string HexEncode(std::string_view bytes);

// The ETag S3 gives an object completed from parts whose ETags are `part_etags` (in part order,
// each the part's MD5 in hex, quoted or not, either case): the MD5 of the parts' binary MD5s
// concatenated, in lower-case hex, then "-" and the part count ("…-3"). "" when there are no
// parts or an ETag is not an MD5 (parts stored with SSE-KMS or SSE-C have other ETags).
std::string MultipartETag(const std::vector<std::string>& part_etags);

}  // namespace ckpt::s3
