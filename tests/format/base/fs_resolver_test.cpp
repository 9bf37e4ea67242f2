// Tests of ResolveFs, SchemeOf and LocalPathOf (format/src/base/fs_resolver.cpp): the one place a
// location becomes a filesystem and a path.
#include "ckpt/base/fs_resolver.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ckpt::base {
namespace {

TEST(FsResolverTest, BarePathsAndFileUrisResolveToThePosixFilesystem) {
  for (const char* loc : {"/tmp/cp", "relative/dir", "file:/tmp/cp", "file:///tmp/cp",
                          "file://localhost/tmp/cp"}) {
    Result<ResolvedLocation> r = ResolveFs(loc);
    ASSERT_TRUE(r.ok()) << loc << ": " << r.status().ToString();
    EXPECT_EQ(r->fs, &Fs::Default()) << loc;
  }
  EXPECT_EQ(ResolveFs("file:///tmp/cp")->path, "/tmp/cp");
  EXPECT_EQ(ResolveFs("relative/dir")->path, "relative/dir");
}

TEST(FsResolverTest, AnUnknownSchemeNamesItAndTheBuiltInOnes) {
  Result<ResolvedLocation> r = ResolveFs("hdfs://nn:8020/flink/cp");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'hdfs:'"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("file:"), std::string::npos) << r.status().ToString();
}

TEST(FsResolverTest, ARegisteredSchemeResolvesThroughItsResolver) {
  std::string seen;
  RegisterFsScheme("memtest", [&seen](std::string_view location) -> Result<ResolvedLocation> {
    seen = std::string(location);
    if (location.find("bad") != std::string_view::npos) {
      return Status::InvalidArgument("bad memtest location");
    }
    return ResolvedLocation{&Fs::Default(), "/resolved"};
  });
  Result<ResolvedLocation> r = ResolveFs("MemTest://x/y");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->path, "/resolved");
  EXPECT_EQ(seen, "MemTest://x/y");
  EXPECT_EQ(ResolveFs("memtest://bad").status().message(), "bad memtest location");
  const std::vector<std::string> schemes = BuiltInSchemes();
  EXPECT_NE(std::find(schemes.begin(), schemes.end(), "memtest"), schemes.end());
  EXPECT_NE(ResolveFs("hdfs://x").status().message().find("memtest:"), std::string::npos);
  EXPECT_FALSE(LocalPathOf("memtest://x/y").ok());  // still not a local path
}

TEST(FsResolverTest, SchemeNeedsTwoCharactersAndALeadingLetter) {
  EXPECT_EQ(SchemeOf("S3://b/k"), "s3");
  EXPECT_EQ(SchemeOf("file:/x"), "file");
  EXPECT_EQ(SchemeOf("C:/x"), "");
  EXPECT_EQ(SchemeOf("/a:b"), "");
  EXPECT_EQ(SchemeOf("dir/with:colon"), "");
  EXPECT_EQ(SchemeOf("1x:/y"), "");
}

TEST(FsResolverTest, FileUriRuleRefusesOtherHostsAndRelativePaths) {
  EXPECT_FALSE(LocalPathOf("file://otherhost/tmp/cp").ok());
  EXPECT_FALSE(LocalPathOf("file:tmp/cp").ok());
  EXPECT_FALSE(LocalPathOf("file:").ok());
  EXPECT_FALSE(LocalPathOf(std::string_view("/a\0b", 4)).ok());
  EXPECT_EQ(*LocalPathOf("file:/a%20b"), "/a%20b");  // Flink's Path strings are not encoded
}

}  // namespace
}  // namespace ckpt::base
