// The local s3proxy the s3proxy_server ctest fixture started (tests/format/s3/s3proxy_start.sh):
// its endpoint and the key pair it checks signatures with.
#pragma once

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_config.h"

namespace ckpt::s3::testing {

inline std::string S3TestReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The configuration for the fixture's server; fails the calling test saying why when the fixture
// did not leave an endpoint (the server could not be fetched or started).
inline bool S3TestServerConfig(S3Config& config) {
  const std::string state = CKPT_S3PROXY_STATE;
  std::string endpoint = S3TestReadFile(state + "/endpoint");
  while (!endpoint.empty() && (endpoint.back() == '\n' || endpoint.back() == '\r')) {
    endpoint.pop_back();
  }
  if (endpoint.empty()) {
    ADD_FAILURE() << "no local S3 server: " << state
                  << "/endpoint is missing; the s3proxy_start fixture (tests/format/s3/"
                     "s3proxy_start.sh) failed or was not run. Its logs:\n"
                  << S3TestReadFile(state + "/mvn.log") << S3TestReadFile(state + "/s3proxy.log");
    return false;
  }
  config = S3Config();
  config.endpoint = endpoint;
  config.path_style = true;
  config.credentials = {"AKIDCKPTS3TEST000001", "ckpt/s3+test/SECRETkey0000000000000000", ""};
  config.credentials_source = "the test fixture";
  config.retry.base_delay_ms = 1;
  config.retry.max_delay_ms = 5;
  config.part_size_bytes = uint64_t{5} << 20;
  return true;
}

// A bucket name unique to this process and call.
inline std::string S3TestBucket(const std::string& stem) {
  static std::atomic<int> counter{0};
  return stem + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace ckpt::s3::testing
