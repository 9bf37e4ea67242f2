// Every snapshot the engine writes reads back through ckpt::format with all checksums checked
// (whole-file XXH3 against each FileEntry, every state-file block via VerifyChecksums), and
// carries the per-subtask checkpoint metrics in `_metadata`.
#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

TEST(SnapshotReadbackITCase, RetainedCheckpointsAndSavepointsVerifyWithAllChecksums) {
  testing::TempDir tmp;
  KeyedSumJob job;
  job.to = 10'000'000;
  job.keys = 1000;
  job.rate_per_second = 200000;
  job.sink_dir = tmp.Sub("out");
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.savepoint_dir = tmp.Sub("savepoints");
  o.interval_ms = 50;
  o.parallelism = 3;
  o.num_retained = 5;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<engine::JobRunner> runner,
                       engine::JobRunner::Create(KeyedSumJobSpec(job), o));
  ASSERT_OK(runner->Start());
  // Conditions, not durations: enough checkpoints for num_retained, then a savepoint, then
  // checkpoints after it.
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return runner->checkpoint_counts().completed >= 5; }));
  ASSERT_OK_AND_ASSIGN(std::string savepoint, runner->TriggerSavepoint());
  const uint64_t after_savepoint = runner->checkpoint_counts().completed;
  ASSERT_TRUE(ckpt::testing::WaitUntil(
      [&] { return runner->checkpoint_counts().completed >= after_savepoint + 2; }));
  runner->Cancel();
  engine::JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, engine::JobOutcome::kCancelled);
  ASSERT_GE(r.checkpoints.completed, 5u);

  ASSERT_OK_AND_ASSIGN(int checkpoints, VerifyAllSnapshots(tmp.Sub("checkpoints")));
  EXPECT_EQ(checkpoints, 5);  // num_retained, kept on cancellation
  ASSERT_OK_AND_ASSIGN(int savepoints, VerifyAllSnapshots(tmp.Sub("savepoints")));
  EXPECT_EQ(savepoints, 1);

  // Metrics of every subtask are persisted: 3 subtasks of each of the 3 operators.
  ASSERT_OK_AND_ASSIGN(pb::CheckpointMetadata md,
                       format::ReadMetadataFile(base::Fs::Default(), savepoint + "/_metadata"));
  EXPECT_EQ(md.kind(), pb::SAVEPOINT);
  int subtasks = 0;
  for (const pb::OperatorState& op : md.operators()) {
    for (const pb::SubtaskState& st : op.subtasks()) {
      ++subtasks;
      EXPECT_GT(st.metrics().ack_timestamp(), 0);
      EXPECT_GE(st.metrics().sync_duration(), 0);
      EXPECT_GE(st.metrics().async_duration(), 0);
      EXPECT_GE(st.metrics().start_delay(), 0);
      EXPECT_GE(st.metrics().alignment_duration(), 0);
    }
  }
  EXPECT_EQ(subtasks, 9) << md.DebugString().substr(0, 3000);
  EXPECT_EQ(md.metrics().num_acknowledged_subtasks(), 9u);
}

}  // namespace
}  // namespace ckpt::itcase
