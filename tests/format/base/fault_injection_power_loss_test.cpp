// FaultInjectionFs::DropUnsyncedData: a power loss undoes what was not made durable — file data
// after the last Sync(), directory changes after the last SyncDir() of their directory.
#include <gtest/gtest.h>

#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::base {
namespace {

using ckpt::testing::TempDir;

void Write(Fs& fs, const std::string& path, const std::string& data, bool sync) {
  auto f = fs.OpenWrite(path);
  ASSERT_OK(f);
  ASSERT_OK((*f)->Append(data));
  if (sync) ASSERT_OK((*f)->Sync());
  ASSERT_OK((*f)->Close());
}

std::string Read(const std::string& path) {
  auto data = ReadFileToString(Fs::Default(), path);
  return data.ok() ? *data : "<" + data.status().ToString() + ">";
}

bool Exists(const std::string& path) { return Fs::Default().LinkStat(path).ok(); }

TEST(FaultInjectionPowerLossTest, NewFileWithoutDirectorySyncDisappears) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  Write(fs, dir.Sub("f"), "data", /*sync=*/true);
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_FALSE(Exists(dir.Sub("f")));
}

TEST(FaultInjectionPowerLossTest, SyncedFileInSyncedDirectorySurvives) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  Write(fs, dir.Sub("f"), "data", /*sync=*/true);
  ASSERT_OK(fs.SyncDir(dir.path()));
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_EQ(Read(dir.Sub("f")), "data");
}

TEST(FaultInjectionPowerLossTest, DataAfterTheLastSyncIsLost) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  auto f = fs.OpenWrite(dir.Sub("f"));
  ASSERT_OK(f);
  ASSERT_OK((*f)->Append("durable"));
  ASSERT_OK((*f)->Sync());
  ASSERT_OK((*f)->Append("-lost"));
  ASSERT_OK((*f)->Close());
  ASSERT_OK(fs.SyncDir(dir.path()));
  EXPECT_EQ(Read(dir.Sub("f")), "durable-lost");
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_EQ(Read(dir.Sub("f")), "durable");
}

TEST(FaultInjectionPowerLossTest, UnsyncedRenameIsReversedAndTheReplacedFileComesBack) {
  TempDir dir;
  ASSERT_OK(WriteFileAtomic(Fs::Default(), dir.Sub("target"), "old"));
  FaultInjectionFs fs(Fs::Default());
  Write(fs, dir.Sub("tmp"), "new", /*sync=*/true);
  ASSERT_OK(fs.SyncDir(dir.path()));
  ASSERT_OK(fs.Rename(dir.Sub("tmp"), dir.Sub("target")));
  EXPECT_EQ(Read(dir.Sub("target")), "new");
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_EQ(Read(dir.Sub("target")), "old");
  EXPECT_EQ(Read(dir.Sub("tmp")), "new");
}

TEST(FaultInjectionPowerLossTest, AtomicWriteIsOldOrNewAfterAPowerLossAtEveryStep) {
  TempDir dir;
  const std::string path = dir.Sub("file");
  ASSERT_OK(WriteFileAtomic(Fs::Default(), path, "old"));
  for (int64_t n = 0;; ++n) {
    FaultInjectionFs fs(Fs::Default());
    fs.CrashAfter(n);
    const Status st = WriteFileAtomic(fs, path, "new");
    ASSERT_OK(fs.DropUnsyncedData());
    const std::string now = Read(path);
    EXPECT_TRUE(now == "old" || now == "new") << "after " << n << " operations: " << now;
    if (st.ok()) {
      EXPECT_EQ(now, "new") << "a completed atomic write must be durable";
      break;
    }
    ASSERT_OK(WriteFileAtomic(Fs::Default(), path, "old"));
  }
}

TEST(FaultInjectionPowerLossTest, UnsyncedRemovalsComeBack) {
  TempDir dir;
  ASSERT_OK(Fs::Default().CreateDirs(dir.Sub("d")));
  ASSERT_OK(WriteFileAtomic(Fs::Default(), dir.Sub("d/f"), "content"));
  FaultInjectionFs fs(Fs::Default());
  ASSERT_OK(fs.RemoveFile(dir.Sub("d/f")));
  ASSERT_OK(fs.RemoveDir(dir.Sub("d")));
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_EQ(Read(dir.Sub("d/f")), "content");

  // Synced removals stay removed.
  FaultInjectionFs synced(Fs::Default());
  ASSERT_OK(synced.RemoveFile(dir.Sub("d/f")));
  ASSERT_OK(synced.SyncDir(dir.Sub("d")));
  ASSERT_OK(synced.RemoveDir(dir.Sub("d")));
  ASSERT_OK(synced.SyncDir(dir.path()));
  ASSERT_OK(synced.DropUnsyncedData());
  EXPECT_FALSE(Exists(dir.Sub("d")));
}

TEST(FaultInjectionPowerLossTest, CreatedDirectoriesWithoutParentSyncDisappear) {
  TempDir dir;
  FaultInjectionFs fs(Fs::Default());
  ASSERT_OK(fs.CreateDirs(dir.Sub("a/b")));
  ASSERT_OK(fs.SyncDir(dir.Sub("a")));  // makes b durable in a, but a itself is not
  ASSERT_OK(fs.DropUnsyncedData());
  EXPECT_FALSE(Exists(dir.Sub("a")));
}

}  // namespace
}  // namespace ckpt::base
