// Hashes over OpenSSL EVP: see crypto.h.
#include "ckpt/s3/crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>

namespace ckpt::s3 {

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

namespace {

// One-shot digest; EVP_Digest cannot fail for these built-in algorithms on valid input.
std::string CryptoDigest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

std::string Sha256Hex(std::string_view data) { return HexEncode(CryptoDigest(EVP_sha256(), data)); }

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string Md5Hex(std::string_view data) { return HexEncode(CryptoDigest(EVP_md5(), data)); }

std::string Md5Base64(std::string_view data) {
  const std::string digest = CryptoDigest(EVP_md5(), data);
  unsigned char out[64];
  const int n = EVP_EncodeBlock(out, reinterpret_cast<const unsigned char*>(digest.data()),
                                static_cast<int>(digest.size()));
  return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
}

std::string MultipartETag(const std::vector<std::string>& part_etags) {
  if (part_etags.empty()) return "";
  std::string digests;
  for (std::string_view etag : part_etags) {
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
      etag = etag.substr(1, etag.size() - 2);
    }
    if (etag.size() != 32) return "";
    for (size_t i = 0; i < 32; i += 2) {
      int byte = 0;
      for (size_t j = i; j < i + 2; ++j) {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(etag[j])));
        const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) return "";
        byte = byte * 16 + v;
      }
      digests.push_back(static_cast<char>(byte));
    }
  }
  return Md5Hex(digests) + "-" + std::to_string(part_etags.size());
}

}  // namespace ckpt::s3
