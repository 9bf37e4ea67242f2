#include "ckpt/format/layout.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

pb::FileEntry Entry(std::string path, pb::FileScope scope) {
  pb::FileEntry f;
  f.set_path(std::move(path));
  f.set_scope(scope);
  return f;
}

TEST(LayoutTest, BuildsDocumentedPaths) {
  EXPECT_EQ(JobDir("/ck", "00112233445566778899aabbccddeeff"),
            "/ck/00112233445566778899aabbccddeeff");
  EXPECT_EQ(CheckpointDir("/ck/job", 12), "/ck/job/chk-12");
}

TEST(LayoutTest, ParsesOnlyCanonicalCheckpointDirNames) {
  EXPECT_EQ(ParseCheckpointDirName("chk-12"), 12);
  EXPECT_EQ(ParseCheckpointDirName("chk-0"), 0);
  for (const char* bad : {"chk-", "chk-01x", "chk--1", "chk-01", "chk-1 ", "chk-99999999999999999999",
                          "savepoint-1", "CHK-1", "chk-1a"}) {
    EXPECT_EQ(ParseCheckpointDirName(bad), std::nullopt) << bad;
  }
}

TEST(LayoutTest, SavepointNamesUseJobIdPrefixAndRandomSuffix) {
  std::mt19937_64 rng(42);
  const std::string name = NewSavepointDirName("1a2b3c4d5e6f", rng);
  EXPECT_EQ(name.substr(0, 17), "savepoint-1a2b3c-");
  EXPECT_EQ(name.size(), 29u);
  EXPECT_TRUE(IsSavepointDirName(name));
  EXPECT_NE(NewSavepointDirName("1a2b3c4d5e6f", rng), name);
  EXPECT_FALSE(IsSavepointDirName("savepoint-1a2b3c-0123456789a"));
  EXPECT_FALSE(IsSavepointDirName("savepoint-1a2b3c_0123456789ab"));
  EXPECT_FALSE(IsSavepointDirName("savepoint-1A2B3C-0123456789ab"));
  EXPECT_FALSE(IsSavepointDirName("chk-1"));
}

TEST(LayoutTest, JobIdHexNeedsSixteenBytes) {
  ASSERT_OK_AND_ASSIGN(std::string hex, JobIdHex(std::string("\x00\x01\xab\xff", 4) +
                                                 std::string(12, '\x10')));
  EXPECT_EQ(hex, "0001abff101010101010101010101010");
  ASSERT_STATUS(JobIdHex("short"), kCorruption, "expected 16");
}

TEST(LayoutTest, AcceptsPlainRelativePaths) {
  EXPECT_OK(CheckRelativePath("op-1/keyed-0.state"));
  EXPECT_OK(CheckRelativePath("a"));
  EXPECT_OK(CheckRelativePath("..a/b..c/.hidden"));
}

TEST(LayoutTest, EscapingReferencesAreCorruption) {
  for (const char* bad : {"", ".", "..", "../x", "a/../../x", "a/./b", "a//b", "a/", "/etc/passwd",
                          "../../etc/passwd"}) {
    SCOPED_TRACE(bad);
    ASSERT_STATUS(CheckRelativePath(bad), kCorruption, "");
  }
  ASSERT_STATUS(CheckRelativePath(std::string("a\0b", 3)), kCorruption, "NUL");
  ASSERT_STATUS(CheckRelativePath("../../etc/passwd"), kCorruption, "../../etc/passwd");
}

TEST(LayoutTest, ResolvesEachScope) {
  const std::string snap = "/ck/job/chk-3";
  ASSERT_OK_AND_ASSIGN(auto ex, ResolveFile(snap, Entry("op/k.state", pb::EXCLUSIVE)));
  EXPECT_EQ(ex, "/ck/job/chk-3/op/k.state");
  ASSERT_OK_AND_ASSIGN(auto sh, ResolveFile(snap + "/", Entry("ab/x.sst", pb::SHARED)));
  EXPECT_EQ(sh, "/ck/job/shared/ab/x.sst");
  ASSERT_OK_AND_ASSIGN(auto to, ResolveFile(snap, Entry("t.state", pb::TASK_OWNED)));
  EXPECT_EQ(to, "/ck/job/taskowned/t.state");
  ASSERT_OK_AND_ASSIGN(auto ext, ResolveFile(snap, Entry("/data/blob", pb::EXTERNAL)));
  EXPECT_EQ(ext, "/data/blob");
  // The same from scope and path, without a FileEntry.
  ASSERT_OK_AND_ASSIGN(auto sh2, ResolveFile(snap + "/", pb::SHARED, "ab/x.sst"));
  EXPECT_EQ(sh2, sh);
  ASSERT_STATUS(ResolveFile(snap, pb::EXCLUSIVE, "../x"), kCorruption, "../x");
}

TEST(LayoutTest, ResolveRejectsEscapingAndUnknownReferences) {
  const std::string snap = "/ck/job/chk-3";
  ASSERT_STATUS(ResolveFile(snap, Entry("../../etc/passwd", pb::EXCLUSIVE)), kCorruption,
                "../../etc/passwd");
  ASSERT_STATUS(ResolveFile(snap, Entry("../chk-2/x", pb::SHARED)), kCorruption, "../chk-2/x");
  ASSERT_STATUS(ResolveFile(snap, Entry("/abs", pb::TASK_OWNED)), kCorruption, "absolute");
  ASSERT_STATUS(ResolveFile(snap, Entry("relative", pb::EXTERNAL)), kCorruption, "not absolute");
  ASSERT_STATUS(ResolveFile(snap, Entry("/data/../etc", pb::EXTERNAL)), kCorruption, "..");
  ASSERT_STATUS(ResolveFile(snap, Entry("x", pb::FILE_SCOPE_UNSPECIFIED)), kCorruption,
                "unknown scope");
}

TEST(LayoutTest, LocatesSnapshotFromDirOrMetadataPath) {
  testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  const std::string snap = dir.Sub("chk-7");
  ASSERT_OK(fs.CreateDirs(snap));
  ASSERT_OK(base::WriteFileAtomic(fs, snap + "/_metadata", "x"));
  ASSERT_OK_AND_ASSIGN(auto a, LocateSnapshot(fs, snap));
  EXPECT_EQ(a.dir, snap);
  EXPECT_EQ(a.metadata, snap + "/_metadata");
  ASSERT_OK_AND_ASSIGN(auto b, LocateSnapshot(fs, snap + "/"));
  EXPECT_EQ(b.metadata, snap + "/_metadata");
  ASSERT_OK_AND_ASSIGN(auto c, LocateSnapshot(fs, snap + "/_metadata"));
  EXPECT_EQ(c.dir, snap);
}

TEST(LayoutTest, IncompleteCheckpointIsNotFound) {
  testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  const std::string snap = dir.Sub("chk-8");
  ASSERT_OK(fs.CreateDirs(snap));
  ASSERT_STATUS(LocateSnapshot(fs, snap), kNotFound,
                snap + " has no _metadata: it is an incomplete checkpoint, not restorable");
  ASSERT_STATUS(LocateSnapshot(fs, dir.Sub("nope")), kNotFound, dir.Sub("nope") + " does not exist");
  // A job directory gets a hint at its checkpoints.
  ASSERT_STATUS(LocateSnapshot(fs, dir.path()), kNotFound, "chk-8");
}

}  // namespace
}  // namespace ckpt::format
