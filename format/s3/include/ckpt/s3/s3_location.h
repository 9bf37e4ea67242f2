// An S3 location ("s3://bucket/key", also s3a:// and s3p:// as Flink and Hadoop write them).
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "ckpt/base/result.h"

namespace ckpt::s3 {

struct S3Location {
  std::string scheme;  // "s3", "s3a" or "s3p", lower-case
  std::string bucket;
  std::string key;     // no leading or trailing '/'; "" for the bucket itself
};

// The schemes the S3 Fs serves.
inline constexpr std::string_view kS3Schemes[] = {"s3", "s3a", "s3p"};

// Parses `location`. InvalidArgument (naming it) for another scheme, a missing or malformed
// bucket name, an empty path segment ("a//b"), a "." or ".." segment, or a NUL byte.
base::Result<S3Location> ParseS3Location(std::string_view location);

}  // namespace ckpt::s3
