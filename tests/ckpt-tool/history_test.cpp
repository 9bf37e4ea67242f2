// history: a root's snapshots per job with Flink's Checkpoints-tab summary (counts, min / avg /
// p50 / p99 / max), the reloaded metrics of the newest snapshots, and the CLI's history verb
// (goldens over fixtures/v1 and fixtures/engine-v1).
#include "ckpt/ops/history.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::TempDir;

TEST(HistoryTest, SummarizeMetricUsesNearestRank) {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) values.push_back(i);  // any order
  MetricSummary s = SummarizeMetric(values);
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.avg, 50.5);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p99, 99);
  MetricSummary one = SummarizeMetric({7});
  EXPECT_EQ(one.p50, 7);
  EXPECT_EQ(one.p99, 7);
  MetricSummary none = SummarizeMetric({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.max, 0);
}

TEST(HistoryTest, SummarizeHistoryCountsEveryHealthAndMeasuresOnlyCompletedOnes) {
  std::vector<HistoryRow> rows(4);
  rows[0].entry.health = SnapshotHealth::kComplete;
  rows[0].entry.checkpointed_size_bytes = 100;
  rows[0].entry.full_size_bytes = 100;
  rows[0].duration_ms = 10;
  rows[1].entry.health = SnapshotHealth::kCorrupt;
  rows[1].entry.full_size_bytes = 999999;  // never measured
  rows[2].entry.health = SnapshotHealth::kComplete;
  rows[2].entry.kind = SnapshotKind::kSavepoint;
  rows[2].entry.checkpointed_size_bytes = 300;
  rows[2].entry.full_size_bytes = 500;
  rows[2].duration_ms = 30;
  rows[2].restored_from = "chk-1";
  rows[3].entry.health = SnapshotHealth::kIncomplete;
  HistorySummary s = SummarizeHistory(rows);
  EXPECT_EQ(s.total, 4u);
  EXPECT_EQ(s.completed, 2u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.incomplete, 1u);
  EXPECT_EQ(s.restored, 1u);
  EXPECT_EQ(s.savepoints, 1u);
  EXPECT_EQ(s.duration_ms.count, 2u);
  EXPECT_DOUBLE_EQ(s.duration_ms.avg, 20);
  EXPECT_EQ(s.full_size_bytes.max, 500);
  EXPECT_EQ(s.checkpointed_size_bytes.min, 100);
  ASSERT_TRUE(s.latest_completed.has_value());
  EXPECT_EQ(*s.latest_completed, 2u);
  EXPECT_FALSE(SummarizeHistory({}).latest_completed.has_value());
}

TEST(HistoryTest, LoadsEveryRowWithMetricsOfTheNewestAndSummaryPerJob) {
  TempDir tmp;
  const std::string root = tmp.Sub("root");
  ASSERT_OK(testing::WriteSampleCheckpointRoot(root));
  // A fourth checkpoint whose _metadata is garbage: a failed row.
  const std::string job = testing::SampleJobIdHex();
  ASSERT_OK(base::Fs::Default().CreateDirs(root + "/" + job + "/chk-4"));
  testing::WriteTextFile(root + "/" + job + "/chk-4/_metadata", "not metadata");

  HistoryOptions options;
  options.detailed_limit = 1;  // only chk-2, the newest complete one, is reloaded
  ASSERT_OK_AND_ASSIGN(std::vector<JobHistory> jobs,
                       LoadHistory(base::Fs::Default(), root, options));
  ASSERT_EQ(jobs.size(), 1u);
  const JobHistory& h = jobs[0];
  EXPECT_EQ(h.job_id_hex, job);
  ASSERT_EQ(h.rows.size(), 4u);
  EXPECT_EQ(h.rows[0].entry.checkpoint_id, 1);
  EXPECT_EQ(h.rows[0].entry.health, SnapshotHealth::kComplete);
  EXPECT_FALSE(h.rows[0].metrics.has_value()) << "beyond detailed_limit";
  EXPECT_TRUE(h.rows[1].metrics.has_value());
  EXPECT_GE(h.rows[1].duration_ms, 0);
  EXPECT_EQ(h.rows[2].entry.health, SnapshotHealth::kIncomplete);
  EXPECT_EQ(h.rows[2].duration_ms, -1);
  EXPECT_EQ(h.rows[3].entry.health, SnapshotHealth::kCorrupt);
  EXPECT_FALSE(h.rows[3].entry.problem.empty());
  EXPECT_EQ(h.summary.completed, 2u);
  EXPECT_EQ(h.summary.failed, 1u);
  EXPECT_EQ(h.summary.incomplete, 1u);
  ASSERT_TRUE(h.summary.latest_completed.has_value());
  EXPECT_EQ(h.rows[*h.summary.latest_completed].entry.checkpoint_id, 2);
  EXPECT_EQ(h.summary.full_size_bytes.count, 2u);
  const uint64_t largest =
      std::max(h.rows[0].entry.full_size_bytes, h.rows[1].entry.full_size_bytes);
  EXPECT_EQ(h.summary.full_size_bytes.max, static_cast<double>(largest));
}

TEST(HistoryTest, FiltersByJobAndRejectsUnknownJobsAndMissingRoots) {
  base::Fs& fs = base::Fs::Default();
  HistoryOptions options;
  options.job_id_hex = testing::kFixtureV1Job;
  ASSERT_OK_AND_ASSIGN(auto jobs, LoadHistory(fs, testing::FixturePath("v1/checkpoints"), options));
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].rows.size(), 2u);
  options.job_id_hex = "00000000000000000000000000000000";
  auto none = LoadHistory(fs, testing::FixturePath("v1/checkpoints"), options);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(none.status().IsNotFound());
  EXPECT_NE(none.status().message().find("00000000000000000000000000000000"), std::string::npos);
  TempDir tmp;
  auto missing = LoadHistory(fs, tmp.Sub("no-such-root"));
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
}

TEST(HistoryTest, StopsWhenCancelled) {
  base::CancelToken cancel;
  cancel.Cancel();
  base::Progress progress;
  progress.cancel = &cancel;
  auto r = LoadHistory(base::Fs::Default(), testing::FixturePath("v1/checkpoints"), {}, progress);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kCancelled);
}

void HistoryGolden(const std::string& name, const std::vector<std::string>& args, int exit_code) {
  SCOPED_TRACE(name);
  testing::ToolRun run = testing::RunTool(args, testing::FixturePath(""));
  EXPECT_EQ(run.exit_code, exit_code) << "stderr: " << run.err;
  testing::ExpectGolden(name, run.out);
}

TEST(HistoryCliTest, GoldensOfOwnAndEngineRoots) {
  for (const std::string f : {"text", "json"}) {
    HistoryGolden("history-root." + f, {"history", "v1/checkpoints", "--format", f}, 0);
    HistoryGolden("engine-history-root." + f,
                  {"--format", f, "history", "engine-v1/checkpoints"}, 0);
  }
  // Corrupt snapshots are failed rows, and make the history exit 1 (as ls does).
  HistoryGolden("history-corrupt.text", {"history", "corrupt"}, 1);
}

TEST(HistoryCliTest, UnknownJobAndUnsupportedFormatAreErrors) {
  testing::ToolRun job = testing::RunTool(
      {"history", "v1/checkpoints", "--job", "00000000000000000000000000000000"},
      testing::FixturePath(""));
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_NE(job.err.find("00000000000000000000000000000000"), std::string::npos) << job.err;
  testing::ToolRun junit = testing::RunTool({"--format", "junit", "history", "v1/checkpoints"},
                                            testing::FixturePath(""));
  EXPECT_EQ(junit.exit_code, 2);
}

}  // namespace
}  // namespace ckpt::ops
