// Tests of ops::Ls / ListRoot / OperatorTable (ops/src/read/ls.cpp) and `ckpt-tool ls`.
#include "ckpt/ops/ls.h"

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::TempDir;

TEST(LsTest, OperatorTableHasFlinkColumns) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK_AND_ASSIGN(LsResult r, Ls(base::Fs::Default(), tmp.Sub("sp")));
  ASSERT_TRUE(r.is_snapshot);
  ASSERT_EQ(r.operators.size(), 4u);
  const OperatorRow& source = r.operators[0];
  EXPECT_EQ(source.checkpoint_id, 42);
  EXPECT_EQ(source.uid, "orders-source");
  EXPECT_EQ(source.operator_name, "Orders source");
  EXPECT_EQ(source.uid_hash.size(), 32u);
  EXPECT_EQ(source.parallelism, 2u);
  EXPECT_EQ(source.max_parallelism, 128u);
  EXPECT_EQ(source.subtask_state_count, 2u);
  EXPECT_GT(source.coordinator_state_bytes, 0u);
  EXPECT_GT(source.total_bytes, source.coordinator_state_bytes);
  EXPECT_EQ(r.operators[1].uid, "per-user-aggregate");
  EXPECT_EQ(r.operators[1].coordinator_state_bytes, 0u);
}

TEST(LsTest, AcceptsMetadataFileItself) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK_AND_ASSIGN(LsResult r, Ls(base::Fs::Default(), tmp.Sub("sp/_metadata")));
  EXPECT_TRUE(r.is_snapshot);
  EXPECT_EQ(r.operators.size(), 4u);
}

TEST(LsTest, RootListsJobsCompleteIncompleteAndCorrupt) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("root/savepoint-1a2b3c-000000000001")));
  const std::string job = tmp.Sub("root/" + testing::SampleJobIdHex());
  // A fourth checkpoint whose metadata is damaged.
  ASSERT_OK(testing::WriteUnalignedCheckpoint(job + "/chk-4"));
  testing::FlipByte(job + "/chk-4/_metadata", 40);
  ASSERT_OK_AND_ASSIGN(auto jobs, ListRoot(base::Fs::Default(), tmp.Sub("root")));
  ASSERT_EQ(jobs.size(), 1u);
  const auto& snaps = jobs[0].snapshots;
  ASSERT_EQ(snaps.size(), 5u);
  // Sorted by checkpoint id: chk-1, chk-2, chk-3, chk-4, savepoint 42.
  EXPECT_EQ(snaps[0].path, testing::SampleJobIdHex() + "/chk-1");
  EXPECT_EQ(snaps[0].health, SnapshotHealth::kComplete);
  EXPECT_EQ(snaps[0].checkpoint_type, CheckpointType::kFull);
  EXPECT_EQ(snaps[1].checkpoint_type, CheckpointType::kIncremental);
  EXPECT_EQ(snaps[1].end_to_end_duration_ms, 250);  // completion - trigger of the sample writer
  EXPECT_LT(snaps[1].checkpointed_size_bytes, snaps[1].full_size_bytes);
  EXPECT_EQ(snaps[2].health, SnapshotHealth::kIncomplete);
  EXPECT_EQ(snaps[2].checkpoint_id, 3);
  EXPECT_EQ(snaps[3].health, SnapshotHealth::kCorrupt);
  EXPECT_NE(snaps[3].problem.find("_metadata"), std::string::npos) << snaps[3].problem;
  EXPECT_EQ(snaps[4].kind, SnapshotKind::kSavepoint);
  EXPECT_EQ(snaps[4].savepoint_format, SavepointFormat::kCanonical);
}

TEST(LsTest, MissingPathIsNotFound) {
  ASSERT_STATUS(Ls(base::Fs::Default(), "/nonexistent/ckpt/path"), kNotFound, "/nonexistent");
}

}  // namespace
}  // namespace ckpt::ops
