// Tests of LoadSnapshot (snapshot_loader.cpp) and ops::MetadataJson (show.cpp).
#include "ckpt/ops/show.h"

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;

TEST(SnapshotLoaderTest, BuildsThePlainModel) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  EXPECT_EQ(s.kind, SnapshotKind::kSavepoint);
  EXPECT_EQ(s.savepoint_format, SavepointFormat::kCanonical);
  EXPECT_EQ(s.checkpoint_id, 42);
  EXPECT_EQ(s.job_id_hex, "1a2b3c4d5e6f708192a3b4c5d6e7f801");
  ASSERT_TRUE(s.restored_from.has_value());
  EXPECT_EQ(s.restored_from->checkpoint_id, 40);
  ASSERT_EQ(s.operators.size(), 4u);
  const OperatorInfo& agg = s.operators[1];
  EXPECT_EQ(agg.uid, "per-user-aggregate");
  EXPECT_TRUE(agg.in_job_graph);
  ASSERT_EQ(agg.states.size(), 4u);
  EXPECT_EQ(agg.states[2].kind, StateKind::kMap);
  EXPECT_EQ(agg.states[2].user_key_type, "string");
  EXPECT_EQ(agg.states[2].value_type, "double");
  EXPECT_TRUE(agg.states[0].keyed);
  ASSERT_EQ(agg.subtasks.size(), 2u);
  EXPECT_EQ(agg.subtasks[1].keyed[0].key_group_start, 64u);
  EXPECT_EQ(agg.subtasks[1].keyed[0].key_group_end, 127u);
  EXPECT_EQ(s.operators[3].subtasks[0].committables.size(), 2u);
  ASSERT_TRUE(s.operators[0].coordinator.has_value());
  EXPECT_TRUE(s.operators[0].coordinator->is_inline);
  EXPECT_EQ(s.edges.size(), 3u);
  EXPECT_EQ(s.files.size(), 6u);
  EXPECT_EQ(s.subtask_state_count(), 7u);
  for (const auto& f : s.files) EXPECT_FALSE(f.resolved_path.empty());
}

TEST(SnapshotLoaderTest, FindOperatorByIdUidOrName) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  ASSERT_OK_AND_ASSIGN(const OperatorInfo* a, s.FindOperator("A2469328B540934507249CBF9B294C51"));
  ASSERT_OK_AND_ASSIGN(const OperatorInfo* b, s.FindOperator("per-user-aggregate"));
  ASSERT_OK_AND_ASSIGN(const OperatorInfo* c, s.FindOperator("Per-user aggregate"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(b, c);
  ASSERT_STATUS(s.FindOperator("nope"), kNotFound, "orders-source");
}

TEST(SnapshotLoaderTest, ChangelogHandlesAndSharedFiles) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(),
      FixturePath("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-2/_metadata")));
  EXPECT_EQ(s.checkpoint_type, CheckpointType::kIncremental);
  const OperatorInfo* count = *s.FindOperator("count-per-key");
  ASSERT_FALSE(count->subtasks.empty());
  const KeyedHandle& h = count->subtasks[0].keyed[0];
  EXPECT_EQ(h.kind, KeyedHandleKind::kChangelog);
  EXPECT_GE(h.changelog_segments, 1u);
  EXPECT_GE(h.file_indexes.size(), 2u);  // materialized + log segments
}

TEST(SnapshotLoaderTest, ErrorsFromTheFormatReader) {
  ASSERT_STATUS(LoadSnapshot(base::Fs::Default(), FixturePath("corrupt/bad-magic")), kCorruption,
                "bad-magic/_metadata");
  ASSERT_STATUS(LoadSnapshot(base::Fs::Default(), FixturePath("corrupt/future-version")),
                kUnimplemented, "newer");
  testing::TempDir tmp;
  ASSERT_STATUS(LoadSnapshot(base::Fs::Default(), tmp.path()), kNotFound, tmp.path());
}

TEST(ShowTest, MetadataJsonIsProtobufJsonWithEveryField) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  ASSERT_OK_AND_ASSIGN(std::string json, MetadataJson(s));
  EXPECT_EQ(json.front(), '{');
  for (const char* field : {"\"checkpoint_id\":\"42\"", "\"kind\":\"SAVEPOINT\"",
                            "\"savepoint_format\":\"CANONICAL\"", "\"key_group_start\":64",
                            "\"coordinator_state\"", "\"committables\"", "\"properties\"",
                            "\"alignment_timeout\":\"0\""}) {
    EXPECT_NE(json.find(field), std::string::npos) << field;
  }
  ASSERT_OK_AND_ASSIGN(std::string again, MetadataJson(s));
  EXPECT_EQ(json, again);
}

}  // namespace
}  // namespace ckpt::ops
