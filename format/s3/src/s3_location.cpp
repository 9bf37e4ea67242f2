// S3 locations: see s3_location.h.
#include "ckpt/s3/s3_location.h"

#include <cctype>

namespace ckpt::s3 {

base::Result<S3Location> ParseS3Location(std::string_view location) {
  const auto bad = [&](const std::string& why) {
    return base::Status::InvalidArgument("'" + std::string(location) + "' is not an S3 location: " +
                                         why);
  };
  if (location.find('\0') != std::string_view::npos) return bad("it contains a NUL byte");
  const size_t sep = location.find("://");
  if (sep == std::string_view::npos) return bad("expected s3://bucket/key");
  S3Location loc;
  for (const char c : location.substr(0, sep)) {
    loc.scheme.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  bool known = false;
  for (const std::string_view s : kS3Schemes) known |= loc.scheme == s;
  if (!known) return bad("the scheme is not s3, s3a or s3p");
  std::string_view rest = location.substr(sep + 3);
  const size_t slash = rest.find('/');
  loc.bucket = std::string(rest.substr(0, slash));
  if (loc.bucket.size() < 3 || loc.bucket.size() > 63) {
    return bad("a bucket name has 3 to 63 characters");
  }
  for (const char c : loc.bucket) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::islower(u) || std::isdigit(u) || c == '-' || c == '.' || c == '_')) {
      return bad("bucket name '" + loc.bucket + "' has a character other than a-z 0-9 . - _");
    }
  }
  std::string_view key = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  while (!key.empty() && key.back() == '/') key.remove_suffix(1);
  for (size_t start = 0; start < key.size();) {
    const size_t end = std::min(key.find('/', start), key.size());
    const std::string_view segment = key.substr(start, end - start);
    if (segment.empty()) return bad("empty path segment");
    if (segment == "." || segment == "..") return bad("'" + std::string(segment) + "' segment");
    start = end + 1;
  }
  loc.key = std::string(key);
  return loc;
}

}  // namespace ckpt::s3
