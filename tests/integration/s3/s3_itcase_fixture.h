// The fixture of the ITCases on S3: a fresh bucket on the local S3 server of tests/format/s3's
// s3proxy_server ctest fixture, an S3Fs over it for the engine in process, and the environment
// ckpt-engine, ckpt-tool and the process-wide S3 schemes read their S3 configuration from.
// Skipped, saying why, only when the s3proxy_start fixture could not start the server (no Java,
// or Maven Central unreachable); any later failure fails the test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/layout.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "s3_test_server.h"

namespace ckpt::itcase {

class S3ITCase : public ::testing::Test {
 protected:
  // Buckets are named after `bucket_prefix` (S3TestBucket).
  explicit S3ITCase(std::string bucket_prefix) : bucket_prefix_(std::move(bucket_prefix)) {}

  void SetUp() override {
    const std::string state = CKPT_S3PROXY_STATE;
    if (s3::testing::S3TestReadFile(state + "/endpoint").empty()) {
      GTEST_SKIP() << "no local S3 server: " << state << "/endpoint is missing: the "
                   << "s3proxy_start fixture (tests/format/s3/s3proxy_start.sh) could not start "
                   << "s3proxy or was not run. Its logs:\n"
                   << s3::testing::S3TestReadFile(state + "/mvn.log")
                   << s3::testing::S3TestReadFile(state + "/s3proxy.log");
    }
    ASSERT_TRUE(s3::testing::S3TestServerConfig(config_));
    auto client = s3::S3Client::Create(config_);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    bucket_ = s3::testing::S3TestBucket(bucket_prefix_);
    ASSERT_OK((*client)->CreateBucket(bucket_));
    fs_ = std::make_unique<s3::S3Fs>(std::move(client).value());
    setenv("AWS_ACCESS_KEY_ID", config_.credentials.access_key_id.c_str(), 1);
    setenv("AWS_SECRET_ACCESS_KEY", config_.credentials.secret_access_key.c_str(), 1);
    setenv("AWS_ENDPOINT_URL", config_.endpoint.c_str(), 1);
    setenv("AWS_REGION", "us-east-1", 1);
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_ENDPOINT_URL_S3");
    // s3:// locations the engine resolves itself (a sink's path) use the process-wide S3Fs,
    // configured from the environment above.
    s3::RegisterS3Schemes();
  }

  std::string Uri(const std::string& rel) const { return "s3://" + bucket_ + "/" + rel; }

  // The chk-<n> names under the job directory `job_dir` (a location), and how many of them have
  // a `_metadata`.
  std::vector<std::string> CheckpointDirs(const std::string& job_dir, size_t* complete) {
    std::vector<std::string> out;
    *complete = 0;
    base::Result<std::vector<base::DirEntry>> entries = fs_->ListDir(job_dir);
    if (!entries.ok()) return out;
    for (const base::DirEntry& e : *entries) {
      if (!format::ParseCheckpointDirName(e.name)) continue;
      out.push_back(e.name);
      const std::string md =
          base::JoinPath(base::JoinPath(job_dir, e.name), format::kMetadataFileName);
      if (fs_->Stat(md).ok()) ++*complete;
    }
    return out;
  }

  std::string bucket_prefix_;
  s3::S3Config config_;
  std::string bucket_;
  std::unique_ptr<s3::S3Fs> fs_;
};

}  // namespace ckpt::itcase
