#include "ckpt/format/snapshot_discovery.h"

#include <gtest/gtest.h>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

constexpr char kJob[] = "1a2b3c4d5e6f708192a3b4c5d6e7f801";

std::vector<std::string> Rels(const std::vector<DiscoveredSnapshot>& found) {
  std::vector<std::string> out;
  for (const auto& s : found) out.push_back(s.rel);
  return out;
}

TEST(SnapshotDiscoveryTest, FindsTheThreeSnapshotSetsOfFixturesV1) {
  ASSERT_OK_AND_ASSIGN(auto found, DiscoverSnapshots(base::Fs::Default(),
                                                     testing::FixturePath("v1")));
  const std::string j = kJob;
  EXPECT_EQ(Rels(found), (std::vector<std::string>{"checkpoints/" + j + "/chk-1",
                                                   "checkpoints/" + j + "/chk-2", "savepoint",
                                                   "unaligned/" + j + "/chk-5"}));
  EXPECT_EQ(found[0].checkpoint_id, 1);
  EXPECT_EQ(found[0].job_rel, "checkpoints/" + j);
  EXPECT_EQ(found[0].job_id_hex, j);
  EXPECT_TRUE(found[2].has_metadata);
  EXPECT_FALSE(found[2].checkpoint_id.has_value());
}

TEST(SnapshotDiscoveryTest, ARootWithMetadataIsItselfTheSnapshot) {
  ASSERT_OK_AND_ASSIGN(auto found, DiscoverSnapshots(base::Fs::Default(),
                                                     testing::FixturePath("v1/savepoint")));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rel, "");
  EXPECT_TRUE(found[0].has_metadata);
}

TEST(SnapshotDiscoveryTest, FollowsTheDepthRulesAndSkipsJobFileDirectories) {
  testing::TempDir dir;
  base::Fs& fs = base::Fs::Default();
  for (const char* d : {"job/chk-3", "job/chk-4", "job/shared/chk-9", "job/taskowned",
                        "savepoints/savepoint-1a2b3c-000000000000", "a/b/c/chk-1",
                        "plain/sub", "out.tmp", ".hidden/chk-2", "job/chk-4/chk-5"}) {
    ASSERT_OK(fs.CreateDirs(dir.Sub(d)));
  }
  ASSERT_OK(base::WriteFileAtomic(fs, dir.Sub("job/chk-4/_metadata"), "x"));
  ASSERT_OK(base::WriteFileAtomic(fs, dir.Sub("plain/sub/_metadata"), "x"));
  ASSERT_OK(base::WriteFileAtomic(fs, dir.Sub("out.tmp/_metadata"), "x"));
  ASSERT_OK_AND_ASSIGN(auto found, DiscoverSnapshots(fs, dir.path()));
  EXPECT_EQ(Rels(found), (std::vector<std::string>{"job/chk-3", "job/chk-4", "plain/sub",
                                                   "savepoints/savepoint-1a2b3c-000000000000"}));
  EXPECT_FALSE(found[0].has_metadata);
  EXPECT_TRUE(found[1].has_metadata);
  EXPECT_EQ(found[1].job_rel, "job");
  EXPECT_EQ(found[1].job_id_hex, "");  // "job" is not a job id
  ASSERT_OK_AND_ASSIGN(auto deeper, DiscoverSnapshots(fs, dir.path(), {4}));
  EXPECT_EQ(Rels(deeper).front(), "a/b/c/chk-1");
  ASSERT_OK_AND_ASSIGN(auto job, DiscoverSnapshots(fs, dir.Sub("job"), {1}));
  EXPECT_EQ(Rels(job), (std::vector<std::string>{"chk-3", "chk-4"}));
  EXPECT_EQ(job[0].job_rel, "");
}

TEST(SnapshotDiscoveryTest, RejectsMissingRootsAndFiles) {
  testing::TempDir dir;
  ASSERT_STATUS(DiscoverSnapshots(base::Fs::Default(), dir.Sub("nope")).status(), kNotFound, "nope");
  ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), dir.Sub("f"), "x"));
  ASSERT_STATUS(DiscoverSnapshots(base::Fs::Default(), dir.Sub("f")).status(), kInvalidArgument,
                "not a directory");
}

}  // namespace
}  // namespace ckpt::format
