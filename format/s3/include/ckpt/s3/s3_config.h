// S3Config: where and as whom the S3 Fs talks, read the way AWS and Flink users already write it.
// Sources, the first that sets a value winning: the environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION,
// AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL), then a Flink configuration file (s3.access-key,
// s3.secret-key, s3.endpoint, s3.path.style.access, s3.region and their fs.s3a.* spellings;
// flat "key: value" or nested YAML), then the AWS shared files of profile AWS_PROFILE (default
// "default"): ~/.aws/credentials (or AWS_SHARED_CREDENTIALS_FILE) and ~/.aws/config (or
// AWS_CONFIG_FILE; region, endpoint_url, s3 = addressing_style). Key pairs are taken whole from
// one source. Secrets never leave this struct through Describe() or any error message.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/s3/retry.h"
#include "ckpt/s3/sigv4.h"

namespace ckpt::s3 {

struct S3Config {
  Credentials credentials;
  std::string credentials_source;  // "environment", "profile 'x' in <file>", "<file>" (no secret)
  // Default: us-east-1.
  std::string region = "us-east-1";
  // "scheme://host[:port]" without a trailing '/'. Default: https://s3.<region>.amazonaws.com.
  std::string endpoint;
  // Path-style (endpoint/bucket/key) instead of virtual-hosted (bucket.endpoint/key) addressing.
  // Default: true for an IP-address or localhost endpoint, false otherwise.
  bool path_style = false;
  // A PEM CA bundle for TLS (AWS_CA_BUNDLE). Default: "" (the system CA store).
  std::string ca_bundle;
  // Parts of a multipart upload; a file larger than one part is uploaded in parts.
  // Default: 8 MiB (S3's minimum part is 5 MiB).
  uint64_t part_size_bytes = uint64_t{8} << 20;
  // Parts of one file in flight at once. Default: 4.
  int max_parallel_parts = 4;
  RetryPolicy retry;
  // Default: 10 s to connect; a transfer slower than 1 byte/s for 60 s is a timeout.
  int64_t connect_timeout_ms = 10'000;
  int64_t stall_timeout_ms = 60'000;
  // How long a lock (S3Fs::TryLockFile, a lease object) holds without renewal; its holder renews
  // it every third of that. Default: 30 s.
  int64_t lease_ttl_ms = 30'000;

  // "region us-east-1, endpoint http://127.0.0.1:9000 (path-style), key AKIA…MPLE from
  // environment": what a log or error may say about the configuration. Never a secret.
  std::string Describe() const;
};

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment (getenv).
EnvLookup ProcessEnvironment();

// Reads the configuration from `env` (HOME locates ~/.aws) and, when `flink_config_path` is
// non-empty, that Flink configuration file (else $FLINK_CONF_DIR/config.yaml or
// flink-conf.yaml when FLINK_CONF_DIR is set). InvalidArgument when no source gives a key pair
// (the message lists where it looked), when only half a pair is given, when a named profile is
// in neither file, or for a malformed value (naming file and key, never a secret's value);
// IOError when a named file cannot be read.
base::Result<S3Config> LoadS3Config(const EnvLookup& env, std::string_view flink_config_path = "");

}  // namespace ckpt::s3
