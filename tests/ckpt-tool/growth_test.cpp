// growth: per retained checkpoint the bytes it introduced and the latest still references,
// amplification, orphaned and not-yet-deletable bytes and the operators' trend, checked against
// a chain whose files are known by construction (format/tools/incremental_chain.h), against a
// root of Apache Flink checkpoints, with a damaged `_metadata` in the chain, and through the CLI.
#include "ckpt/ops/growth.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"
#include "tools/incremental_chain.h"

namespace ckpt::ops {
namespace {

using format::sample::ChainFileBytes;
using testing::TempDir;
namespace stdfs = std::filesystem;

uint64_t FileBytes(const std::string& path) { return stdfs::file_size(path); }

// Every regular file below `dir`, summed.
uint64_t BytesBelow(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& e : stdfs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

TEST(GrowthTest, ChainIntroducedAndStillReferencedBytesMatchTheFilesWritten) {
  TempDir tmp;
  base::Fs& fs = base::Fs::Default();
  const std::string job = tmp.Sub("job");
  format::sample::IncrementalChainOptions options;
  options.checkpoints = 10;
  options.window = 4;
  ASSERT_OK(format::sample::WriteIncrementalChain(fs, job, options));
  // An orphan in shared/ and an incomplete checkpoint (no `_metadata`) with one file.
  testing::WriteTextFile(job + "/shared/stray.sst", std::string(123, 'x'));
  stdfs::create_directories(job + "/chk-11");
  testing::WriteTextFile(job + "/chk-11/partial", std::string(45, 'y'));

  ASSERT_OK_AND_ASSIGN(GrowthReport report, ComputeGrowth(fs, job));
  ASSERT_EQ(report.jobs.size(), 1u);
  const JobGrowth& g = report.jobs[0];
  EXPECT_EQ(g.job_id_hex, format::sample::kJobIdHex);
  ASSERT_EQ(g.checkpoints.size(), 10u);
  uint64_t metadata_of_older = 0;
  for (int64_t id = 1; id <= 10; ++id) {
    const GrowthCheckpoint& c = g.checkpoints[static_cast<size_t>(id - 1)];
    SCOPED_TRACE(c.path);
    EXPECT_EQ(c.checkpoint_id, id);
    EXPECT_EQ(c.path, "chk-" + std::to_string(id));
    const uint64_t steady = ChainFileBytes(0, id);
    const uint64_t leaky = ChainFileBytes(1, id);
    // Each checkpoint uploads one file per operator; the latest (10) still references every
    // leaky file and the steady files of checkpoints 7..10 (window 4).
    EXPECT_EQ(c.introduced_files, 2u);
    EXPECT_EQ(c.introduced_bytes, steady + leaky);
    EXPECT_EQ(c.introduced_shared_bytes, steady + leaky);
    EXPECT_EQ(c.still_referenced_bytes, leaky + (id >= 7 ? steady : 0));
    uint64_t referenced = 0;
    for (int64_t f = std::max<int64_t>(1, id - 3); f <= id; ++f) referenced += ChainFileBytes(0, f);
    for (int64_t f = 1; f <= id; ++f) referenced += ChainFileBytes(1, f);
    EXPECT_EQ(c.referenced_bytes, referenced);
    // ... which are the files on disk, as written.
    EXPECT_EQ(FileBytes(job + "/shared/" + format::sample::ChainFilePath(0, id)), steady);
    if (id < 10) metadata_of_older += FileBytes(job + "/chk-" + std::to_string(id) + "/_metadata");
  }
  const uint64_t latest_metadata = FileBytes(job + "/chk-10/_metadata");
  EXPECT_EQ(g.needed_bytes, g.checkpoints.back().referenced_bytes + latest_metadata);
  EXPECT_EQ(g.needed_files, 4u + 10u + 1u);
  EXPECT_EQ(g.stored_bytes, BytesBelow(job));
  EXPECT_EQ(g.orphaned_bytes, 123u + 45u);
  EXPECT_EQ(g.orphaned_files, 2u);
  uint64_t old_steady = 0;
  for (int64_t f = 1; f <= 6; ++f) old_steady += ChainFileBytes(0, f);
  EXPECT_EQ(g.not_yet_deletable_bytes, old_steady + metadata_of_older);
  EXPECT_EQ(g.not_yet_deletable_files, 6u + 9u);
  EXPECT_EQ(g.needed_bytes + g.not_yet_deletable_bytes + g.orphaned_bytes, g.stored_bytes);
  EXPECT_DOUBLE_EQ(g.amplification,
                   static_cast<double>(g.stored_bytes) / static_cast<double>(g.needed_bytes));
  EXPECT_TRUE(g.notes.empty()) << g.notes.front();

  // The operators' trend: steady stops growing once its window is full, leaky never does.
  ASSERT_EQ(g.operators.size(), 2u);
  const GrowthOperator& leaky = g.operators[0];
  const GrowthOperator& steady = g.operators[1];
  ASSERT_EQ(leaky.label, "leaky");
  ASSERT_EQ(steady.label, "steady");
  ASSERT_EQ(steady.bytes.size(), 10u);
  EXPECT_EQ(steady.bytes[0], ChainFileBytes(0, 1));
  EXPECT_EQ(steady.bytes[9], ChainFileBytes(0, 7) + ChainFileBytes(0, 8) + ChainFileBytes(0, 9) +
                                 ChainFileBytes(0, 10));
  uint64_t leaky_last = 0;
  for (int64_t f = 1; f <= 10; ++f) leaky_last += ChainFileBytes(1, f);
  EXPECT_EQ(leaky.bytes[9], leaky_last);
  EXPECT_DOUBLE_EQ(leaky.growth_bytes_per_checkpoint,
                   static_cast<double>(leaky_last - ChainFileBytes(1, 1)) / 9.0);
  EXPECT_DOUBLE_EQ(steady.growth_bytes_per_checkpoint,
                   static_cast<double>(steady.bytes[9] - steady.bytes[0]) / 9.0);
}

TEST(GrowthTest, DamagedMetadataIsNamedAndTheRestStillReported) {
  TempDir tmp;
  base::Fs& fs = base::Fs::Default();
  const std::string job = tmp.Sub("job");
  format::sample::IncrementalChainOptions options;
  options.checkpoints = 6;
  ASSERT_OK(format::sample::WriteIncrementalChain(fs, job, options));
  const std::string damaged = job + "/chk-3/_metadata";
  testing::TruncateFile(damaged, FileBytes(damaged) / 2);

  ASSERT_OK_AND_ASSIGN(GrowthReport report, ComputeGrowth(fs, job));
  ASSERT_EQ(report.jobs.size(), 1u);
  const JobGrowth& g = report.jobs[0];
  ASSERT_EQ(g.checkpoints.size(), 5u);
  for (const GrowthCheckpoint& c : g.checkpoints) EXPECT_NE(c.checkpoint_id, 3);
  ASSERT_FALSE(g.notes.empty());
  EXPECT_NE(g.notes[0].find("chk-3/_metadata"), std::string::npos) << g.notes[0];
  EXPECT_EQ(g.unreadable_files, 1u);
  EXPECT_EQ(g.unreadable_bytes, FileBytes(damaged));
  // chk-4 now introduces what chk-3 would have (its own files and chk-3's steady file), and the
  // latest is still complete.
  EXPECT_EQ(g.checkpoints[2].checkpoint_id, 4);
  EXPECT_EQ(g.checkpoints[2].introduced_bytes, ChainFileBytes(0, 3) + ChainFileBytes(1, 3) +
                                                   ChainFileBytes(0, 4) + ChainFileBytes(1, 4));
  EXPECT_EQ(g.needed_bytes + g.not_yet_deletable_bytes + g.orphaned_bytes + g.unreadable_bytes,
            g.stored_bytes);

  testing::ToolRun run = testing::RunTool({"growth", job}, tmp.path());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find("chk-3/_metadata"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("chk-6"), std::string::npos) << run.out;
}

// Apache Flink checkpoints (a fixture copied twice into one job directory: relative handles,
// no shared files): the older one's files are not yet deletable, a stray file is an orphan.
TEST(GrowthTest, FlinkCheckpointsOfOneJob) {
  TempDir tmp;
  const std::string job = tmp.Sub("job");
  const std::string fixture =
      testing::FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint");
  stdfs::create_directories(job);
  stdfs::copy(fixture, job + "/chk-7", stdfs::copy_options::recursive);
  stdfs::copy(fixture, job + "/chk-8", stdfs::copy_options::recursive);
  testing::WriteTextFile(job + "/chk-8/stray", std::string(77, 'z'));

  ASSERT_OK_AND_ASSIGN(GrowthReport report, ComputeGrowth(base::Fs::Default(), job));
  ASSERT_EQ(report.jobs.size(), 1u);
  const JobGrowth& g = report.jobs[0];
  EXPECT_TRUE(g.notes.empty()) << g.notes.front();
  ASSERT_EQ(g.checkpoints.size(), 2u);
  const uint64_t fixture_bytes = BytesBelow(fixture);
  const uint64_t metadata = FileBytes(fixture + "/_metadata");
  for (const GrowthCheckpoint& c : g.checkpoints) {
    EXPECT_GT(c.referenced_files, 0u);
    EXPECT_EQ(c.introduced_bytes, c.referenced_bytes);  // nothing shared between the copies
    EXPECT_EQ(c.introduced_shared_bytes, 0u);
  }
  EXPECT_EQ(g.checkpoints[0].still_referenced_bytes, 0u);
  EXPECT_EQ(g.checkpoints[1].still_referenced_bytes, g.checkpoints[1].referenced_bytes);
  EXPECT_EQ(g.stored_bytes, 2 * fixture_bytes + 77);
  EXPECT_EQ(g.orphaned_bytes, 77u + (fixture_bytes - metadata - g.checkpoints[1].referenced_bytes));
  EXPECT_EQ(g.needed_bytes, g.checkpoints[1].referenced_bytes + metadata);
  EXPECT_EQ(g.needed_bytes + g.not_yet_deletable_bytes + g.orphaned_bytes, g.stored_bytes);
  EXPECT_FALSE(g.operators.empty());
}

TEST(GrowthTest, MissingRootIsNotFound) {
  TempDir tmp;
  auto r = ComputeGrowth(base::Fs::Default(), tmp.Sub("nothing-here"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("nothing-here"), std::string::npos);
}

TEST(GrowthCliTest, TextAndJsonOfAChain) {
  TempDir tmp;
  format::sample::IncrementalChainOptions options;
  options.checkpoints = 3;
  ASSERT_OK(format::sample::WriteIncrementalChain(base::Fs::Default(), tmp.Sub("job"), options));
  testing::ToolRun text = testing::RunTool({"growth", "job"}, tmp.path());
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("amplification"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("leaky"), std::string::npos) << text.out;
  testing::ToolRun json = testing::RunTool({"growth", "job", "--format", "json"}, tmp.path());
  EXPECT_EQ(json.exit_code, 0) << json.err;
  // 3 checkpoint lines, 2 operator lines, 1 summary line.
  EXPECT_EQ(std::count(json.out.begin(), json.out.end(), '\n'), 6);
  EXPECT_NE(json.out.find("\"still_referenced_bytes\""), std::string::npos) << json.out;
  testing::ToolRun junit = testing::RunTool({"--format", "junit", "growth", "job"}, tmp.path());
  EXPECT_EQ(junit.exit_code, 2);
}

}  // namespace
}  // namespace ckpt::ops
