// PosixFs and special files (issue 8, defect 5): OpenRead never follows a symbolic link and never
// blocks on a FIFO; OpenReadFollowingLinks follows links but still refuses special files;
// ListDir and LinkStat report links as links; RemoveAll removes a link, never its target.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::base {
namespace {

using ckpt::testing::TempDir;

TEST(PosixFsSpecialFilesTest, OpenReadRefusesAFifoWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.Sub("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  // Without O_NONBLOCK this open waits forever for a writer.
  ASSERT_STATUS(Fs::Default().OpenRead(fifo), kFailedPrecondition, fifo);
  ASSERT_STATUS(Fs::Default().OpenRead(fifo), kFailedPrecondition, "FIFO");
  ASSERT_STATUS(Fs::Default().OpenReadFollowingLinks(fifo), kFailedPrecondition, "FIFO");
  ASSERT_STATUS(ReadFileToString(Fs::Default(), fifo), kFailedPrecondition, "not a regular file");
}

TEST(PosixFsSpecialFilesTest, OpenReadDoesNotFollowSymbolicLinks) {
  TempDir dir;
  Fs& fs = Fs::Default();
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("target"), "secret"));
  const std::string link = dir.Sub("link");
  ASSERT_EQ(symlink(dir.Sub("target").c_str(), link.c_str()), 0);
  ASSERT_STATUS(fs.OpenRead(link), kFailedPrecondition, "symbolic link");
  ASSERT_STATUS(ReadFileToString(fs, link), kFailedPrecondition, link);
  // Files a user names may be links (a job spec mounted from a config map).
  ASSERT_OK_AND_ASSIGN(std::string data, ReadUserFileToString(fs, link));
  EXPECT_EQ(data, "secret");
}

TEST(PosixFsSpecialFilesTest, LinkToAFifoIsRefusedEitherWay) {
  TempDir dir;
  const std::string fifo = dir.Sub("fifo");
  const std::string link = dir.Sub("link");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  ASSERT_EQ(symlink(fifo.c_str(), link.c_str()), 0);
  ASSERT_STATUS(Fs::Default().OpenRead(link), kFailedPrecondition, "symbolic link");
  ASSERT_STATUS(Fs::Default().OpenReadFollowingLinks(link), kFailedPrecondition, "FIFO");
}

TEST(PosixFsSpecialFilesTest, DirectoryIsNotARegularFile) {
  TempDir dir;
  ASSERT_STATUS(Fs::Default().OpenRead(dir.path()), kFailedPrecondition, "directory");
}

TEST(PosixFsSpecialFilesTest, ListDirAndLinkStatReportLinksAsLinks) {
  TempDir dir;
  Fs& fs = Fs::Default();
  ASSERT_OK(fs.CreateDirs(dir.Sub("d")));
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("f"), "1"));
  ASSERT_EQ(symlink(dir.Sub("d").c_str(), dir.Sub("l").c_str()), 0);
  ASSERT_EQ(mkfifo(dir.Sub("p").c_str(), 0644), 0);
  ASSERT_OK_AND_ASSIGN(auto entries, fs.ListDir(dir.path()));
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].type, FileType::kDirectory);
  EXPECT_TRUE(entries[0].is_dir);
  EXPECT_EQ(entries[1].type, FileType::kRegular);
  EXPECT_EQ(entries[2].type, FileType::kSymlink);
  EXPECT_FALSE(entries[2].is_dir) << "a link to a directory is not a directory";
  EXPECT_EQ(entries[3].type, FileType::kOther);
  ASSERT_OK_AND_ASSIGN(FileInfo followed, fs.Stat(dir.Sub("l")));
  EXPECT_EQ(followed.type, FileType::kDirectory);
  ASSERT_OK_AND_ASSIGN(FileInfo link, fs.LinkStat(dir.Sub("l")));
  EXPECT_EQ(link.type, FileType::kSymlink);
  EXPECT_FALSE(link.is_dir);
}

TEST(PosixFsSpecialFilesTest, RemoveAllRemovesALinkNotItsTarget) {
  TempDir dir;
  Fs& fs = Fs::Default();
  ASSERT_OK(fs.CreateDirs(dir.Sub("precious")));
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("precious/keep"), "data"));
  ASSERT_OK(fs.CreateDirs(dir.Sub("doomed")));
  ASSERT_EQ(symlink(dir.Sub("precious").c_str(), dir.Sub("doomed/link").c_str()), 0);
  ASSERT_OK(RemoveAll(fs, dir.Sub("doomed")));
  ASSERT_STATUS(fs.Stat(dir.Sub("doomed")), kNotFound, "doomed");
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(fs, dir.Sub("precious/keep")));
  EXPECT_EQ(data, "data");
}

}  // namespace
}  // namespace ckpt::base
