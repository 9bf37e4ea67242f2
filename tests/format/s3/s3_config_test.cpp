// S3Config from the environment, AWS shared files and Flink configuration, with a fake HOME in a
// temporary directory (the real home is never read).
#include "ckpt/s3/s3_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "ckpt/s3/config_files.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::s3 {
namespace {

class S3ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = dir_.path() + "/home";
    std::filesystem::create_directories(home_ + "/.aws");
    vars_["HOME"] = home_;
  }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(home_ + "/" + rel) << text;
  }
  EnvLookup Env() {
    return [this](std::string_view name) -> std::optional<std::string> {
      auto it = vars_.find(std::string(name));
      if (it == vars_.end()) return std::nullopt;
      return it->second;
    };
  }
  ckpt::testing::TempDir dir_;
  std::string home_;
  std::map<std::string, std::string> vars_;
};

constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

TEST_F(S3ConfigTest, EnvironmentKeysRegionAndEndpoint) {
  vars_["AWS_ACCESS_KEY_ID"] = "AKIAIOSFODNN7EXAMPLE";
  vars_["AWS_SECRET_ACCESS_KEY"] = kSecret;
  vars_["AWS_SESSION_TOKEN"] = "TOKEN";
  vars_["AWS_REGION"] = "eu-west-1";
  vars_["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9000/";
  auto c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "AKIAIOSFODNN7EXAMPLE");
  EXPECT_EQ(c->credentials.secret_access_key, kSecret);
  EXPECT_EQ(c->credentials.session_token, "TOKEN");
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:9000");
  EXPECT_TRUE(c->path_style);  // an IP-address endpoint
  const std::string d = c->Describe();
  EXPECT_EQ(d.find(kSecret), std::string::npos);
  EXPECT_EQ(d.find("TOKEN"), std::string::npos);
  EXPECT_EQ(d.find("AKIAIOSFODNN7EXAMPLE"), std::string::npos);
  EXPECT_NE(d.find("AKIA…MPLE"), std::string::npos);
}

TEST_F(S3ConfigTest, DefaultsToAwsVirtualHostedAddressing) {
  vars_["AWS_ACCESS_KEY_ID"] = "AKIAIOSFODNN7EXAMPLE";
  vars_["AWS_SECRET_ACCESS_KEY"] = kSecret;
  auto c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->region, "us-east-1");
  EXPECT_EQ(c->endpoint, "https://s3.us-east-1.amazonaws.com");
  EXPECT_FALSE(c->path_style);
}

TEST_F(S3ConfigTest, NamedProfileFromSharedFiles) {
  Write(".aws/credentials",
        "# comment\n[default]\naws_access_key_id = DEFAULTKEY00000000000\n"
        "aws_secret_access_key = defaultsecret\n\n[ci]\naws_access_key_id=CIKEY000000000000000\n"
        "aws_secret_access_key=cisecret\naws_session_token = citoken\n");
  Write(".aws/config",
        "[default]\nregion = us-west-2\n[profile ci]\nregion = ap-south-1\n"
        "endpoint_url = https://minio.example.com\ns3 =\n  addressing_style = path\n"
        "[sso-session x]\nsso_region = us-east-1\n");
  vars_["AWS_PROFILE"] = "ci";
  auto c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "CIKEY000000000000000");
  EXPECT_EQ(c->credentials.secret_access_key, "cisecret");
  EXPECT_EQ(c->credentials.session_token, "citoken");
  EXPECT_EQ(c->region, "ap-south-1");
  EXPECT_EQ(c->endpoint, "https://minio.example.com");
  EXPECT_TRUE(c->path_style);
  EXPECT_NE(c->credentials_source.find("profile 'ci'"), std::string::npos);

  vars_.erase("AWS_PROFILE");
  c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->credentials.access_key_id, "DEFAULTKEY00000000000");
  EXPECT_EQ(c->region, "us-west-2");
}

TEST_F(S3ConfigTest, MissingNamedProfileIsAnError) {
  Write(".aws/credentials", "[default]\naws_access_key_id=A\naws_secret_access_key=B\n");
  vars_["AWS_PROFILE"] = "nope";
  auto c = LoadS3Config(Env());
  ASSERT_EQ(c.status().code(), base::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("'nope'"), std::string::npos);
}

TEST_F(S3ConfigTest, EnvironmentWinsOverFiles) {
  Write(".aws/credentials", "[default]\naws_access_key_id=FILEKEY\naws_secret_access_key=f\n");
  vars_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  vars_["AWS_SECRET_ACCESS_KEY"] = "e";
  auto c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->credentials.access_key_id, "ENVKEY");
}

TEST_F(S3ConfigTest, FlinkConfigurationKeys) {
  const std::string flink = dir_.path() + "/flink-conf.yaml";
  std::ofstream(flink) << "# Flink\nstate.backend: rocksdb\ns3.endpoint: http://minio:9000\n"
                          "s3.path.style.access: true\ns3.access-key: FLINKKEY\n"
                          "s3.secret-key: \"flink secret\"\n";
  auto c = LoadS3Config(Env(), flink);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "FLINKKEY");
  EXPECT_EQ(c->credentials.secret_access_key, "flink secret");
  EXPECT_EQ(c->endpoint, "http://minio:9000");
  EXPECT_TRUE(c->path_style);
  EXPECT_EQ(c->credentials_source, flink);
}

TEST_F(S3ConfigTest, FlinkNestedYamlFromFlinkConfDir) {
  std::filesystem::create_directories(dir_.path() + "/conf");
  std::ofstream(dir_.path() + "/conf/config.yaml")
      << "s3:\n  endpoint: https://storage.example.com # GCS\n  path:\n    style:\n"
         "      access: false\n  access-key: NESTEDKEY\n  secret-key: nested\n"
         "state:\n  backend:\n    type: hashmap\n";
  vars_["FLINK_CONF_DIR"] = dir_.path() + "/conf";
  auto c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->credentials.access_key_id, "NESTEDKEY");
  EXPECT_EQ(c->endpoint, "https://storage.example.com");
  EXPECT_FALSE(c->path_style);
}

TEST_F(S3ConfigTest, NoCredentialsSaysWhereItLooked) {
  auto c = LoadS3Config(Env());
  ASSERT_EQ(c.status().code(), base::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
  EXPECT_NE(c.status().message().find(home_ + "/.aws/credentials"), std::string::npos);
}

TEST_F(S3ConfigTest, HalfAKeyPairIsAnErrorWithoutTheSecret) {
  vars_["AWS_SECRET_ACCESS_KEY"] = kSecret;
  auto c = LoadS3Config(Env());
  ASSERT_EQ(c.status().code(), base::StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message().find(kSecret), std::string::npos);
}

TEST_F(S3ConfigTest, MalformedFilesNameFileAndLineButNotTheirText) {
  auto p = ParseAwsIni("[default]\naws_secret_access_key SECRETVALUE\n", "/x/credentials", false);
  ASSERT_EQ(p.status().code(), base::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("/x/credentials:2"), std::string::npos);
  EXPECT_EQ(p.status().message().find("SECRETVALUE"), std::string::npos);
  EXPECT_FALSE(ParseAwsIni("[default\n", "f", false).ok());
  const std::string flink = dir_.path() + "/bad.yaml";
  std::ofstream(flink) << "s3.access-key: A\ns3.secret-key: B\ns3.path.style.access: maybe\n";
  auto c = LoadS3Config(Env(), flink);
  ASSERT_EQ(c.status().code(), base::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("maybe"), std::string::npos);
  auto missing = LoadS3Config(Env(), dir_.path() + "/absent.yaml");
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace ckpt::s3
