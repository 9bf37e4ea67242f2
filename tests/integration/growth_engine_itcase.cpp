// growth over a real engine's RocksDB incremental checkpoints: a keyed job whose state keeps
// changing (every record updates a sum, so each checkpoint uploads new SSTs and compactions
// retire old ones) runs with 4 retained checkpoints and is cancelled. What ops::ComputeGrowth
// reports per retained checkpoint (introduced, referenced, still referenced by the latest) must
// equal what the checkpoints' own file tables say with the sizes of the files on disk, and the
// stored bytes must be the bytes under the job directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/ops/growth.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::itcase {
namespace {

constexpr char kGrowthJob[] = R"({"name": "growth", "parallelism": 2, "max_parallelism": 64,
  "operators": [
    {"id": "src", "kind": "sequence-source", "uid": "src", "params": {"from": 1,
     "to": 1000000000, "splits": 2, "keys": 5000, "rate_per_second": 40000}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum"},
    {"id": "out", "kind": "discard", "uid": "out"}],
  "edges": [{"from": "src", "to": "sum", "partitioning": "HASH"},
            {"from": "sum", "to": "out", "partitioning": "FORWARD"}]})";

TEST(GrowthEngineITCase, IncrementalRocksDbChainMatchesFileTablesAndDisk) {
  testing::TempDir tmp;
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(pb::JobSpec spec, format::ParseJobSpec(kGrowthJob, "growth.json"));
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  o.num_retained = 4;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.state_backend = "rocksdb";
  o.incremental = true;
  o.state_local_dir = tmp.Sub("local");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<engine::JobRunner> runner,
                       engine::JobRunner::Create(spec, o));
  ASSERT_OK(runner->Start());
  engine::JobRunner* r = runner.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r->checkpoint_counts().completed >= 8; }));
  runner->Cancel();
  runner->Wait();
  const std::string job_dir = runner->job_dir();
  runner.reset();  // releases the job directory

  ASSERT_OK_AND_ASSIGN(ops::GrowthReport report, ops::ComputeGrowth(fs, job_dir));
  ASSERT_EQ(report.jobs.size(), 1u);
  const ops::JobGrowth& g = report.jobs[0];
  for (const std::string& n : g.notes) ADD_FAILURE() << n;
  // Every complete checkpoint on disk is reported (num_retained 4, plus one the cancel may have
  // caught between its completion and the discard of the one it subsumed).
  size_t complete = 0;
  for (const auto& e : std::filesystem::directory_iterator(job_dir)) {
    complete += e.path().filename().string().rfind("chk-", 0) == 0 &&
                std::filesystem::exists(e.path() / "_metadata");
  }
  ASSERT_GE(g.checkpoints.size(), 2u);
  EXPECT_EQ(g.checkpoints.size(), complete);

  // The truth from the checkpoints' own file tables, with sizes from the disk.
  std::vector<std::map<std::string, uint64_t>> tables;
  for (const ops::GrowthCheckpoint& c : g.checkpoints) {
    ASSERT_OK_AND_ASSIGN(ops::Snapshot s,
                         ops::LoadSnapshot(fs, (std::filesystem::path(job_dir) / c.path).string()));
    EXPECT_EQ(s.checkpoint_id, c.checkpoint_id);
    std::map<std::string, uint64_t> table;
    for (const ops::SnapshotFile& f : s.files) {
      ASSERT_FALSE(f.resolved_path.empty()) << f.path;
      const std::string path = std::filesystem::weakly_canonical(f.resolved_path).string();
      table[path] = std::filesystem::file_size(path);
      EXPECT_EQ(table[path], f.size_bytes) << path;  // the table records what is on disk
    }
    tables.push_back(std::move(table));
  }
  std::set<std::string> seen;
  uint64_t rocksdb_uploads = 0;
  for (size_t i = 0; i < tables.size(); ++i) {
    const ops::GrowthCheckpoint& c = g.checkpoints[i];
    SCOPED_TRACE(c.path);
    uint64_t referenced = 0, introduced = 0, still = 0;
    size_t introduced_files = 0;
    for (const auto& [path, size] : tables[i]) {
      referenced += size;
      if (!seen.insert(path).second) continue;
      introduced += size;
      ++introduced_files;
      if (tables.back().count(path)) still += size;
    }
    EXPECT_EQ(c.referenced_files, tables[i].size());
    EXPECT_EQ(c.referenced_bytes, referenced);
    EXPECT_EQ(c.introduced_files, introduced_files);
    EXPECT_EQ(c.introduced_bytes, introduced);
    EXPECT_EQ(c.still_referenced_bytes, still);
    if (i > 0) rocksdb_uploads += c.introduced_shared_bytes;
  }
  // Churn: later checkpoints uploaded new shared SSTs, and the chain shares some of them.
  EXPECT_GT(rocksdb_uploads, 0u);
  uint64_t references = 0;
  for (const auto& t : tables) references += t.size();
  EXPECT_LT(seen.size(), references) << "no file is shared between the " << tables.size()
                                     << " retained checkpoints";

  // Stored: every file in the job's chk-*, shared/ and taskowned/ directories.
  uint64_t on_disk = 0;
  for (const auto& top : std::filesystem::directory_iterator(job_dir)) {
    const std::string name = top.path().filename().string();
    if (!top.is_directory() ||
        (name.rfind("chk-", 0) != 0 && name != "shared" && name != "taskowned")) {
      continue;
    }
    for (const auto& e : std::filesystem::recursive_directory_iterator(top.path())) {
      if (e.is_regular_file()) on_disk += e.file_size();
    }
  }
  EXPECT_EQ(g.stored_bytes, on_disk);
  EXPECT_EQ(g.needed_bytes + g.not_yet_deletable_bytes + g.orphaned_bytes + g.unreadable_bytes +
                g.task_owned_unreferenced_bytes,
            g.stored_bytes);
  EXPECT_GE(g.amplification, 1.0);
  ASSERT_FALSE(g.operators.empty());
  bool sum_found = false;
  for (const ops::GrowthOperator& op : g.operators) sum_found |= op.label == "sum";
  EXPECT_TRUE(sum_found);
}

}  // namespace
}  // namespace ckpt::itcase
