// The fixture of ckpt-tool's S3 tests: a fresh bucket on the local s3proxy of the s3proxy_server
// ctest fixture, fixtures/ uploaded to it under the same relative keys on demand, and the
// environment ckpt-tool reads its S3 configuration from. Used by one test at a time.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/s3/s3_client.h"
#include "golden_util.h"
#include "s3_test_server.h"

namespace ckpt::testing {

// `text` with every `from` replaced by `to`.
inline std::string S3ToolReplaceAll(std::string text, const std::string& from,
                                    const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class CkptToolS3Fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!s3::testing::S3TestServerConfig(config_)) GTEST_SKIP() << "no server";
    auto client = s3::S3Client::Create(config_);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    bucket_ = s3::testing::S3TestBucket("ckpt-tool");
    ASSERT_TRUE(client_->CreateBucket(bucket_).ok());
    ASSERT_NO_FATAL_FAILURE(Upload("engine-v1"));
    // ckpt-tool reads its S3 configuration from the environment the test runs it in.
    setenv("AWS_ACCESS_KEY_ID", config_.credentials.access_key_id.c_str(), 1);
    setenv("AWS_SECRET_ACCESS_KEY", config_.credentials.secret_access_key.c_str(), 1);
    setenv("AWS_ENDPOINT_URL", config_.endpoint.c_str(), 1);
    setenv("AWS_REGION", "us-east-1", 1);
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_ENDPOINT_URL_S3");
  }

  // Uploads fixtures/<rel> under the same relative keys, so s3://<bucket>/<x> mirrors
  // fixtures/<x>.
  void Upload(const std::string& rel) {
    const std::filesystem::path root = FixturePath("");
    for (const auto& entry : std::filesystem::recursive_directory_iterator(FixturePath(rel))) {
      if (!entry.is_regular_file()) continue;
      const std::string key = std::filesystem::relative(entry.path(), root).generic_string();
      const std::string body = s3::testing::S3TestReadFile(entry.path().string());
      ASSERT_TRUE(client_->Put(bucket_, key, body).ok()) << key;
    }
  }

  std::string Uri(const std::string& rel) const { return "s3://" + bucket_ + "/" + rel; }

  // Runs `verb_args` + the locations `rels` (relative to fixtures/) once on the local tree and
  // once on the bucket, and expects the same exit code, a non-empty stdout and the same stdout
  // once the bucket's prefix is taken off and both sides pass through `normalize`; the secret
  // key never appears on stderr.
  void ExpectSameOnS3(const std::vector<std::string>& verb_args,
                      const std::vector<std::string>& rels,
                      const std::function<std::string(const std::string&)>& normalize) {
    std::vector<std::string> local = verb_args, remote = verb_args;
    for (const std::string& rel : rels) {
      local.push_back(rel);
      remote.push_back(Uri(rel));
    }
    const ToolRun want = RunTool(local, FixturePath(""));
    const ToolRun got = RunTool(remote, FixturePath(""));
    const std::string what = ::testing::PrintToString(remote);
    EXPECT_EQ(want.exit_code, got.exit_code) << what << "\n" << got.err;
    EXPECT_FALSE(want.out.empty()) << what;
    EXPECT_EQ(normalize(want.out), normalize(S3ToolReplaceAll(got.out, "s3://" + bucket_ + "/", "")))
        << what;
    EXPECT_EQ(std::string::npos, got.err.find(config_.credentials.secret_access_key)) << what;
  }

  s3::S3Config config_;
  std::unique_ptr<s3::S3Client> client_;
  std::string bucket_;
};

}  // namespace ckpt::testing
