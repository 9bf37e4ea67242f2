// The one size model (docs/sizes.md): LoadSnapshot's full/checkpointed sizes, operator and
// subtask sizes, stats' per-state file bytes, and ls/files/stats/show agreeing on them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "ckpt/ops/files.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::ops {
namespace {

uint64_t FileTableBytes(const Snapshot& s) {
  uint64_t sum = 0;
  for (const auto& f : s.files) sum += f.size_bytes;
  return sum;
}

TEST(SizesTest, ASharedChannelStateFileCountsOnceInLsFilesAndStats) {
  const std::string root = testing::FixturePath("v1/unaligned");
  const std::string dir = root + "/" + testing::kFixtureV1Job + "/chk-5";
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  // The fixture's channel-state file is shared by several subtasks' channels.
  std::map<uint32_t, int> users;
  for (const auto& op : s.operators) {
    for (const auto& st : op.subtasks) {
      for (const auto& c : st.channels) {
        for (uint32_t f : c.file_indexes) ++users[f];
      }
    }
  }
  ASSERT_FALSE(users.empty());
  EXPECT_GT(std::max_element(users.begin(), users.end(),
                             [](auto& a, auto& b) { return a.second < b.second; })->second, 1);

  ASSERT_OK_AND_ASSIGN(auto rows, ListFiles(base::Fs::Default(), s));
  uint64_t files_sum = 0;
  for (const auto& r : rows) files_sum += r.size_bytes;
  EXPECT_EQ(s.full_size_bytes, files_sum);
  EXPECT_EQ(s.full_size_bytes, FileTableBytes(s));

  ASSERT_OK_AND_ASSIGN(auto jobs, ListRoot(base::Fs::Default(), root));
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(jobs[0].snapshots.size(), 1u);
  EXPECT_EQ(jobs[0].snapshots[0].full_size_bytes, files_sum);  // was the writer's 5x count

  ASSERT_OK_AND_ASSIGN(StatsReport stats, ComputeStats(base::Fs::Default(), s));
  EXPECT_EQ(stats.total_file_bytes, files_sum);
  uint64_t ops_sum = 0;
  for (const auto& op : s.operators) {
    ops_sum += op.total_bytes;
    uint64_t subtasks = 0;
    for (const auto& st : op.subtasks) subtasks += st.state_bytes;
    EXPECT_LE(subtasks, op.total_bytes) << op.uid;
  }
  EXPECT_EQ(ops_sum, s.full_size_bytes);
}

TEST(SizesTest, EveryStateGetsItsOwnBytesNeverMoreThanItsOperator) {
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       LoadSnapshot(base::Fs::Default(), testing::FixturePath("v1/savepoint")));
  ASSERT_OK_AND_ASSIGN(StatsReport stats, ComputeStats(base::Fs::Default(), s));
  bool saw_keyed_operator = false;
  for (const auto& op : stats.operators) {
    uint64_t states = 0;
    std::set<uint64_t> distinct;
    for (const auto& st : op.states) {
      EXPECT_LE(st.file_bytes, op.file_bytes) << op.uid << "/" << st.name;
      EXPECT_LE(st.checkpointed_file_bytes, st.file_bytes);
      states += st.file_bytes;
      if (st.entries > 0) distinct.insert(st.file_bytes);
      if (st.entries > 0) {
        EXPECT_GT(st.file_bytes, 0u) << op.uid << "/" << st.name;
      }
    }
    EXPECT_LE(states, op.file_bytes) << op.uid;
    if (op.uid == "per-user-aggregate") {
      saw_keyed_operator = true;
      // Four keyed states of different sizes: not each the operator's whole file.
      EXPECT_EQ(op.states.size(), 4u);
      EXPECT_GE(distinct.size(), 3u);
      EXPECT_GE(states + op.states.size(), op.file_bytes - op.file_bytes / 100);
    }
  }
  EXPECT_TRUE(saw_keyed_operator);
}

TEST(SizesTest, CheckpointedSizeCountsOnlyFilesThisCheckpointCreated) {
  const std::string job = testing::FixturePath("v1/checkpoints/" + testing::kFixtureV1Job);
  ASSERT_OK_AND_ASSIGN(Snapshot chk2, LoadSnapshot(base::Fs::Default(), job + "/chk-2"));
  uint64_t own = 0;
  for (const auto& f : chk2.files) {
    if (IsCheckpointedFile(f, chk2.checkpoint_id)) own += f.size_bytes;
  }
  EXPECT_EQ(chk2.checkpointed_size_bytes, own);
  EXPECT_LT(chk2.checkpointed_size_bytes, chk2.full_size_bytes);  // it reuses chk-1's shared files
  SnapshotFile shared_old;
  shared_old.scope = FileScope::kShared;
  shared_old.created_by_checkpoint_id = 1;
  EXPECT_FALSE(IsCheckpointedFile(shared_old, 2));
  SnapshotFile exclusive;
  exclusive.scope = FileScope::kExclusive;
  EXPECT_TRUE(IsCheckpointedFile(exclusive, 2));
}

}  // namespace
}  // namespace ckpt::ops
