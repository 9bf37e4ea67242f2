// Fs::PublishAtomic and Fs::PublishDir (the POSIX defaults: tmp file, fsync, rename, fsync of
// the directory), seen step by step through FaultInjectionFs, and Fs::SupportsLocks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/base/fs.h"
#include "ckpt/base/posix_fs.h"
#include "ckpt/testing/forwarding_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::base {
namespace {

using ckpt::testing::TempDir;

// PublishAtomic's steps: OpenWriteExclusive, Append, Sync, Close, Rename, SyncDir.
constexpr int64_t kPublishAtomicSteps = 6;
// PublishDir's steps: Rename, SyncDir.
constexpr int64_t kPublishDirSteps = 2;

std::string ReadOr(const std::string& path) {
  auto data = ReadFileToString(Fs::Default(), path);
  return data.ok() ? *data : "<" + data.status().ToString() + ">";
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  auto entries = Fs::Default().ListDir(dir);
  if (entries.ok()) {
    for (const auto& e : *entries) names.push_back(e.name);
  }
  return names;
}

// Publishes by recording, never touching the disk: the seam an object store fills.
class RecordingPublishFs final : public ckpt::testing::ForwardingFs {
 public:
  Status PublishAtomic(const std::string& path, std::string_view bytes) override {
    published.emplace_back(path, std::string(bytes));
    return Status::OK();
  }
  Status PublishDir(const std::string& tmp_dir, const std::string& final_dir) override {
    published.emplace_back(final_dir, tmp_dir);
    return Status::OK();
  }
  std::vector<std::pair<std::string, std::string>> published;
};

TEST(FsPublishTest, PublishAtomicCreatesAndReplacesLeavingNoTemporaryFile) {
  TempDir dir;
  PosixFs fs;
  const std::string path = dir.Sub("_metadata");
  ASSERT_OK(fs.PublishAtomic(path, "first"));
  EXPECT_EQ(ReadOr(path), "first");
  ASSERT_OK(fs.PublishAtomic(path, "second, longer"));
  EXPECT_EQ(ReadOr(path), "second, longer");
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"_metadata"});
}

TEST(FsPublishTest, PublishAtomicInAMissingDirectoryIsNotFoundAndWritesNothing) {
  TempDir dir;
  ASSERT_STATUS(Fs::Default().PublishAtomic(dir.Sub("nope/_metadata"), "x"), kNotFound, "nope");
  EXPECT_TRUE(Names(dir.path()).empty());
}

TEST(FsPublishTest, WriteFileAtomicIsPublishAtomic) {
  RecordingPublishFs fs;
  ASSERT_OK(WriteFileAtomic(fs, "/nowhere/_metadata", "bytes"));
  ASSERT_EQ(fs.published.size(), 1u);
  EXPECT_EQ(fs.published[0].first, "/nowhere/_metadata");
  EXPECT_EQ(fs.published[0].second, "bytes");
}

TEST(FsPublishTest, FaultInjectionFsSeesEveryStepOfPublishAtomic) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  ASSERT_OK(fs.PublishAtomic(dir.Sub("f"), "data"));
  EXPECT_EQ(fs.operations(), kPublishAtomicSteps);
  // Every step was made durable: a power loss now keeps the file.
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_EQ(ReadOr(dir.Sub("f")), "data");
}

TEST(FsPublishTest, PublishAtomicCrashedAtEveryStepLeavesOldOrNewAfterPowerLoss) {
  TempDir dir;
  const std::string path = dir.Sub("_metadata");
  for (int64_t crash = 0; crash <= kPublishAtomicSteps; ++crash) {
    SCOPED_TRACE("crash after " + std::to_string(crash) + " steps");
    ASSERT_OK(Fs::Default().PublishAtomic(path, "old"));
    FaultInjectionFs fs(Fs::Default());
    fs.CrashAfter(crash);
    const Status st = fs.PublishAtomic(path, "new");
    EXPECT_EQ(st.ok(), crash >= kPublishAtomicSteps) << st.ToString();
    ASSERT_OK(fs.DropUnsyncedData());
    const std::string data = ReadOr(path);
    EXPECT_TRUE(data == "old" || data == "new") << data;
    if (st.ok()) {
      EXPECT_EQ(data, "new");
    }
  }
}

TEST(FsPublishTest, PublishAtomicFailingAnyStepBeforeTheRenameRemovesItsTemporaryFile) {
  TempDir dir;
  const std::string path = dir.Sub("ref");
  ASSERT_OK(Fs::Default().PublishAtomic(path, "old"));
  // Steps 1..4 (Append, Sync, Close, Rename) fail once; the removal after them is allowed.
  for (int64_t fail = 1; fail <= 4; ++fail) {
    SCOPED_TRACE("failing step " + std::to_string(fail));
    FaultInjectionFs fs(Fs::Default());
    fs.FailOperation(fail);
    ASSERT_STATUS(fs.PublishAtomic(path, "new"), kIOError, "injected");
    EXPECT_EQ(ReadOr(path), "old");
    EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"ref"});
  }
}

TEST(FsPublishTest, PublishDirRenamesTheFinishedDirectory) {
  TempDir dir;
  PosixFs fs;
  ASSERT_OK(fs.CreateDirs(dir.Sub("out.tmp/sub")));
  ASSERT_OK(fs.PublishAtomic(dir.Sub("out.tmp/_metadata"), "m"));
  ASSERT_OK(fs.PublishDir(dir.Sub("out.tmp"), dir.Sub("out")));
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"out"});
  EXPECT_EQ(ReadOr(dir.Sub("out/_metadata")), "m");
}

TEST(FsPublishTest, PublishDirOntoANonEmptyDirectoryFailsAndKeepsBoth) {
  TempDir dir;
  PosixFs fs;
  ASSERT_OK(fs.CreateDirs(dir.Sub("out.tmp")));
  ASSERT_OK(fs.CreateDirs(dir.Sub("out")));
  ASSERT_OK(fs.PublishAtomic(dir.Sub("out/_metadata"), "someone else's"));
  EXPECT_FALSE(fs.PublishDir(dir.Sub("out.tmp"), dir.Sub("out")).ok());
  EXPECT_EQ(ReadOr(dir.Sub("out/_metadata")), "someone else's");
  EXPECT_EQ(Names(dir.path()), (std::vector<std::string>{"out", "out.tmp"}));
}

TEST(FsPublishTest, FaultInjectionFsSeesEveryStepOfPublishDir) {
  TempDir dir;
  ASSERT_OK(Fs::Default().CreateDirs(dir.Sub("out.tmp")));
  ASSERT_OK(Fs::Default().PublishAtomic(dir.Sub("out.tmp/_metadata"), "m"));
  FaultInjectionFs fs(Fs::Default());
  ASSERT_OK(fs.PublishDir(dir.Sub("out.tmp"), dir.Sub("out")));
  EXPECT_EQ(fs.operations(), kPublishDirSteps);
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_EQ(ReadOr(dir.Sub("out/_metadata")), "m");
}

TEST(FsPublishTest, PublishDirWithoutItsDirectorySyncIsUndoneByAPowerLoss) {
  TempDir dir;
  ASSERT_OK(Fs::Default().CreateDirs(dir.Sub("out.tmp")));
  ASSERT_OK(Fs::Default().PublishAtomic(dir.Sub("out.tmp/_metadata"), "m"));
  FaultInjectionFs fs(Fs::Default());
  fs.CrashAfter(1);  // the rename happens, the SyncDir of the parent does not
  ASSERT_STATUS(fs.PublishDir(dir.Sub("out.tmp"), dir.Sub("out")), kIOError, "injected crash");
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"out.tmp"});
}

TEST(FsPublishTest, AnOverridingFsPublishesInItsOwnWay) {
  RecordingPublishFs fs;
  ASSERT_OK(fs.PublishDir("/b/out.tmp", "/b/out"));
  ASSERT_EQ(fs.published.size(), 1u);
  EXPECT_EQ(fs.published[0].first, "/b/out");
}

TEST(FsSupportsLocksTest, PosixHasLocksAndWrappersAnswerForWhatTheyWrap) {
  PosixFs posix;
  EXPECT_TRUE(posix.SupportsLocks());
  EXPECT_TRUE(Fs::Default().SupportsLocks());
  FaultInjectionFs over_posix(posix);
  EXPECT_TRUE(over_posix.SupportsLocks());
  // ForwardingFs does not forward TryLockFile: it is a filesystem without locks.
  ckpt::testing::ForwardingFs no_locks;
  EXPECT_FALSE(no_locks.SupportsLocks());
  FaultInjectionFs over_no_locks(no_locks);
  EXPECT_FALSE(over_no_locks.SupportsLocks());
  TempDir dir;
  ASSERT_STATUS(over_no_locks.TryLockFile(dir.Sub("_job.lock")), kUnimplemented, "no file locks");
}

}  // namespace
}  // namespace ckpt::base
