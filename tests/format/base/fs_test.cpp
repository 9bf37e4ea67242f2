#include "ckpt/base/fs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::base {
namespace {

using ckpt::testing::TempDir;

TEST(PosixFsTest, WriteAtomicThenReadBack) {
  TempDir dir;
  Fs& fs = Fs::Default();
  std::string path = dir.Sub("a.bin");
  ASSERT_OK(WriteFileAtomic(fs, path, "hello"));
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(fs, path));
  EXPECT_EQ(data, "hello");
  ASSERT_OK(WriteFileAtomic(fs, path, "replaced"));
  ASSERT_OK_AND_ASSIGN(data, ReadFileToString(fs, path));
  EXPECT_EQ(data, "replaced");
  ASSERT_OK_AND_ASSIGN(auto entries, fs.ListDir(dir.path()));
  ASSERT_EQ(entries.size(), 1u) << "no temp file may be left behind";
}

TEST(PosixFsTest, MissingFileIsNotFoundAndNamesThePath) {
  TempDir dir;
  ASSERT_STATUS(Fs::Default().OpenRead(dir.Sub("nope")), kNotFound, dir.Sub("nope"));
  ASSERT_STATUS(Fs::Default().Stat(dir.Sub("nope")), kNotFound, "nope");
}

TEST(PosixFsTest, ReadFileRefusesFilesAboveTheLimit) {
  TempDir dir;
  ASSERT_OK(WriteFileAtomic(Fs::Default(), dir.Sub("big"), std::string(100, 'x')));
  ASSERT_STATUS(ReadFileToString(Fs::Default(), dir.Sub("big"), 10), kInvalidArgument, "big");
}

TEST(PosixFsTest, ExclusiveCreateRefusesExistingFile) {
  TempDir dir;
  ASSERT_OK(WriteFileAtomic(Fs::Default(), dir.Sub("f"), "x"));
  ASSERT_STATUS(Fs::Default().OpenWriteExclusive(dir.Sub("f")), kAlreadyExists, dir.Sub("f"));
}

TEST(PosixFsTest, CreateDirsListAndRemoveAll) {
  TempDir dir;
  Fs& fs = Fs::Default();
  ASSERT_OK(fs.CreateDirs(dir.Sub("a/b/c")));
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("a/b/c/f"), "1"));
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("a/z"), "2"));
  ASSERT_OK_AND_ASSIGN(auto entries, fs.ListDir(dir.Sub("a")));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "b");
  EXPECT_TRUE(entries[0].is_dir);
  EXPECT_EQ(entries[1].name, "z");
  ASSERT_STATUS(fs.RemoveDir(dir.Sub("a")), kFailedPrecondition, "a");
  ASSERT_OK(RemoveAll(fs, dir.Sub("a")));
  ASSERT_STATUS(fs.Stat(dir.Sub("a")), kNotFound, "a");
  ASSERT_OK(RemoveAll(fs, dir.Sub("a")));
}

TEST(PathTest, JoinDirNameBaseName) {
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
  EXPECT_EQ(DirName("/x/y/z"), "/x/y");
  EXPECT_EQ(DirName("z"), ".");
  EXPECT_EQ(DirName("/z"), "/");
  EXPECT_EQ(BaseName("/x/y/z/"), "z");
}

TEST(FaultInjectionFsTest, CrashAfterStopsEveryLaterMutation) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  fs.CrashAfter(2);
  ASSERT_OK(fs.CreateDirs(dir.Sub("d")));          // op 0
  ASSERT_OK(fs.CreateDirs(dir.Sub("e")));          // op 1
  ASSERT_STATUS(fs.CreateDirs(dir.Sub("f")), kIOError, "injected crash");
  ASSERT_STATUS(fs.RemoveDir(dir.Sub("d")), kIOError, "injected crash");
  EXPECT_TRUE(fs.crashed());
  ASSERT_OK(Fs::Default().Stat(dir.Sub("d")));     // the crash kept it
}

TEST(FaultInjectionFsTest, AtomicWriteInterruptedAtEveryStepLeavesOldOrNewFile) {
  TempDir dir;
  std::string path = dir.Sub("m");
  for (int64_t crash = 0; crash < 10; ++crash) {
    ASSERT_OK(WriteFileAtomic(Fs::Default(), path, "old"));
    FaultInjectionFs fs(Fs::Default());
    fs.CrashAfter(crash);
    Status st = WriteFileAtomic(fs, path, "new-contents");
    ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(Fs::Default(), path));
    EXPECT_TRUE(data == "old" || data == "new-contents") << "crash after " << crash << ": " << data;
    if (st.ok()) {
      EXPECT_EQ(data, "new-contents");
    }
  }
}

TEST(FaultInjectionFsTest, FailsOnlyTheChosenOperation) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  fs.FailOperation(1);
  ASSERT_OK(fs.CreateDirs(dir.Sub("a")));
  ASSERT_STATUS(fs.CreateDirs(dir.Sub("b")), kIOError, "injected failure");
  ASSERT_OK(fs.CreateDirs(dir.Sub("c")));
  EXPECT_EQ(fs.operations(), 3);
}

TEST(FaultInjectionFsTest, TruncatedWritesKeepHalfTheBytes) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  fs.TruncateWritesTo("torn");
  ASSERT_OK_AND_ASSIGN(auto f, fs.OpenWrite(dir.Sub("torn.bin")));
  ASSERT_OK(f->Append("0123456789"));
  ASSERT_OK(f->Close());
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(Fs::Default(), dir.Sub("torn.bin")));
  EXPECT_EQ(data, "01234");
}

TEST(PosixFsTest, FileLockIsExclusiveUntilReleased) {
  TempDir dir;
  Fs& fs = Fs::Default();
  const std::string path = dir.Sub("_job.lock");
  ASSERT_OK_AND_ASSIGN(auto first, fs.TryLockFile(path));
  // flock locks belong to the open file description: a second holder in this process is refused
  // exactly as another process would be.
  ASSERT_STATUS(fs.TryLockFile(path), kFailedPrecondition, path);
  first.reset();
  ASSERT_OK_AND_ASSIGN(auto again, fs.TryLockFile(path));
  EXPECT_EQ(again->path(), path);
}

TEST(PosixFsTest, FileLockInAMissingDirectoryIsNotFound) {
  TempDir dir;
  ASSERT_STATUS(Fs::Default().TryLockFile(dir.Sub("nope/_job.lock")), kNotFound, "nope");
}

TEST(PosixFsTest, HardLinkSharesTheBytesUnderASecondName) {
  TempDir dir;
  Fs& fs = Fs::Default();
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("state"), "key-group bytes"));
  ASSERT_OK(fs.CreateDirs(dir.Sub("copy")));
  ASSERT_OK(fs.HardLink(dir.Sub("state"), dir.Sub("copy/state")));
  struct stat a {}, b {};
  ASSERT_EQ(::stat(dir.Sub("state").c_str(), &a), 0);
  ASSERT_EQ(::stat(dir.Sub("copy/state").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_EQ(a.st_nlink, 2u);
  // Removing one name leaves the other whole.
  ASSERT_OK(fs.RemoveFile(dir.Sub("state")));
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(fs, dir.Sub("copy/state")));
  EXPECT_EQ(data, "key-group bytes");
}

TEST(PosixFsTest, HardLinkRefusesExistingNamesMissingFilesAndSymbolicLinks) {
  TempDir dir;
  Fs& fs = Fs::Default();
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("a"), "a"));
  ASSERT_OK(WriteFileAtomic(fs, dir.Sub("b"), "b"));
  ASSERT_STATUS(fs.HardLink(dir.Sub("a"), dir.Sub("b")), kAlreadyExists, dir.Sub("b"));
  ASSERT_STATUS(fs.HardLink(dir.Sub("missing"), dir.Sub("c")), kNotFound, "missing");
  ASSERT_EQ(::symlink(dir.Sub("a").c_str(), dir.Sub("link").c_str()), 0);
  ASSERT_STATUS(fs.HardLink(dir.Sub("link"), dir.Sub("d")), kFailedPrecondition,
                "symbolic link");
  ASSERT_OK(fs.CreateDirs(dir.Sub("sub")));
  ASSERT_STATUS(fs.HardLink(dir.Sub("sub"), dir.Sub("e")), kFailedPrecondition, "directory");
}

TEST(FaultInjectionFsTest, UnsyncedHardLinkIsGoneAfterAPowerLoss) {
  TempDir dir;
  ASSERT_OK(WriteFileAtomic(Fs::Default(), dir.Sub("a"), "a"));
  FaultInjectionFs fs(Fs::Default());
  ASSERT_OK(fs.HardLink(dir.Sub("a"), dir.Sub("b")));
  ASSERT_OK(fs.HardLink(dir.Sub("a"), dir.Sub("c")));
  EXPECT_EQ(fs.operations(), 2);
  ASSERT_OK(fs.DropUnsyncedData());
  ASSERT_STATUS(Fs::Default().Stat(dir.Sub("b")), kNotFound, dir.Sub("b"));
  ASSERT_OK(fs.HardLink(dir.Sub("a"), dir.Sub("b")));
  ASSERT_OK(fs.SyncDir(dir.path()));
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_OK(Fs::Default().Stat(dir.Sub("b")).status());
}

}  // namespace
}  // namespace ckpt::base
