// S3 locations and the schemes registered with base::ResolveFs.
#include "ckpt/s3/s3_location.h"

#include <gtest/gtest.h>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/s3/s3_fs.h"

namespace ckpt::s3 {
namespace {

TEST(S3LocationTest, ParsesTheThreeSchemes) {
  auto a = ParseS3Location("s3://bucket/dir/file");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->scheme, "s3");
  EXPECT_EQ(a->bucket, "bucket");
  EXPECT_EQ(a->key, "dir/file");
  auto b = ParseS3Location("S3A://my.bucket-1/savepoints/sp-1/");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->scheme, "s3a");
  EXPECT_EQ(b->key, "savepoints/sp-1");
  auto c = ParseS3Location("s3p://bucket");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->key, "");
}

TEST(S3LocationTest, RejectsMalformedLocationsNamingThem) {
  for (const char* bad : {"gs://bucket/x", "s3:/bucket/x", "s3://", "s3://ab/x", "s3://Bucket/x",
                          "s3://bucket//x", "s3://bucket/a/../b", "s3://bucket/./b"}) {
    auto r = ParseS3Location(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), base::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status().message();
  }
}

TEST(S3LocationTest, RegistrationAddsTheSchemesToResolveFs) {
  auto before = base::ResolveFs("s3://bucket/x");
  ASSERT_FALSE(before.ok());
  EXPECT_NE(before.status().message().find("no filesystem for scheme 's3:'"), std::string::npos);
  RegisterS3Schemes();
  RegisterS3Schemes();  // idempotent
  const std::vector<std::string> schemes = base::BuiltInSchemes();
  EXPECT_EQ(schemes, (std::vector<std::string>{"file", "s3", "s3a", "s3p"}));
  auto bad = base::ResolveFs("s3a://Not_A_Bucket/x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), base::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("Not_A_Bucket"), std::string::npos);
  auto local = base::ResolveFs("/tmp/x");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->fs, &base::Fs::Default());
}

}  // namespace
}  // namespace ckpt::s3
