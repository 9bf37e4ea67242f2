#include "ckpt/base/resolving_fs.h"

#include <gtest/gtest.h>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/testing/forwarding_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::base {
namespace {

// "rfstest://<rel>" names <dir>/<rel> on a second Fs (a ForwardingFs over the POSIX one), so
// ResolvingFs sees two filesystems without a server.
class ResolvingFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The registration outlives the test: it holds nothing of the fixture by reference.
    static testing::ForwardingFs* other = new testing::ForwardingFs();
    RegisterFsScheme("rfstest", [dir = tmp_.path()](std::string_view location)
                                    -> Result<ResolvedLocation> {
      const std::string_view rel = location.substr(std::string_view("rfstest://").size());
      return ResolvedLocation{other, dir + "/" + std::string(rel)};
    });
  }

  testing::TempDir tmp_;
};

TEST_F(ResolvingFsTest, ForwardsEachCallToTheFsOfItsLocation) {
  Fs& fs = ResolvingFs();
  ASSERT_OK(fs.CreateDirs("rfstest://dir"));
  ASSERT_OK(fs.PublishAtomic("rfstest://dir/a", "bytes"));
  ASSERT_OK_AND_ASSIGN(std::string local, ReadFileToString(fs, tmp_.Sub("dir/a")));
  EXPECT_EQ("bytes", local);
  ASSERT_OK_AND_ASSIGN(std::string remote, ReadFileToString(fs, "rfstest://dir/a"));
  EXPECT_EQ("bytes", remote);
  ASSERT_OK_AND_ASSIGN(std::vector<DirEntry> entries, fs.ListDir("rfstest://dir"));
  ASSERT_EQ(1u, entries.size());
  EXPECT_EQ("a", entries[0].name);
  ASSERT_OK(fs.Rename("rfstest://dir/a", "rfstest://dir/b"));
  ASSERT_OK_AND_ASSIGN(FileInfo info, fs.Stat(tmp_.Sub("dir/b")));
  EXPECT_EQ(5u, info.size_bytes);
  ASSERT_STATUS(fs.Stat("rfstest://dir/a"), kNotFound, "dir/a");
}

TEST_F(ResolvingFsTest, TwoLocationsOnDifferentFilesystemsAreRefusedNotMixed) {
  Fs& fs = ResolvingFs();
  ASSERT_OK(fs.PublishAtomic(tmp_.Sub("f"), "x"));
  ASSERT_STATUS(fs.HardLink(tmp_.Sub("f"), "rfstest://g"), kUnimplemented, "different filesystems");
  ASSERT_STATUS(fs.Rename(tmp_.Sub("f"), "rfstest://g"), kInvalidArgument, "rfstest://g");
  ASSERT_STATUS(fs.PublishDir(tmp_.Sub("d.tmp"), "rfstest://d"), kInvalidArgument,
                "different filesystems");
  EXPECT_FALSE(fs.SupportsLocks());
}

TEST_F(ResolvingFsTest, AnUnknownSchemeIsTheResolversError) {
  ASSERT_STATUS(ResolvingFs().Stat("nosuchscheme://x"), kInvalidArgument, "nosuchscheme");
}

}  // namespace
}  // namespace ckpt::base
