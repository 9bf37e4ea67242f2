// prune over a real engine's checkpoints (moved here from the ops unit suite: it spawns
// ckpt-engine): the checkpoints of a kill -9'd job, pruned to --keep-last 1, deep-validate, and
// the retained one restores with every input committed exactly once. And prune beside a running
// engine deletes nothing in its job directory (issue 8 defect 7). Waits are condition waits with
// deadlines; a missing ckpt-engine binary fails the test.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

constexpr char kEngineJob[] = R"({
  "name": "prune-restore",
  "parallelism": 2,
  "max_parallelism": 128,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers", "parallelism": 1,
     "params": {"from": 1, "to": 60000, "splits": 1, "keys": 8, "rate_per_second": 40000}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
    {"id": "sink", "kind": "file-sink", "uid": "sums", "params": {"path": "@OUT"}}
  ],
  "edges": [
    {"from": "numbers", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}
  ],
  "checkpointing": {"interval_ms": 100, "num_retained": 4, "retention": "RETAIN_ON_CANCELLATION"}
})";

std::string EngineBinary() {
#ifdef CKPT_ENGINE_BINARY
  return CKPT_ENGINE_BINARY;
#else
  return "";
#endif
}

// Complete checkpoints (a `_metadata`) under `root`/<job>/chk-*.
int PublishedCheckpoints(const std::string& root) {
  namespace fs = std::filesystem;
  int n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == "_metadata" &&
        it->path().parent_path().filename().string().rfind("chk-", 0) == 0) {
      ++n;
    }
  }
  return n;
}

// The highest id of a complete checkpoint under `root`/<job>/chk-*, or 0.
int64_t HighestPublished(const std::string& root) {
  namespace fs = std::filesystem;
  int64_t highest = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string dir = it->path().parent_path().filename().string();
    if (it->path().filename() == "_metadata" && dir.rfind("chk-", 0) == 0) {
      highest = std::max<int64_t>(highest, std::stoll(dir.substr(4)));
    }
  }
  return highest;
}

void WriteSpec(const std::string& path, const std::string& out) {
  std::string spec = kEngineJob;
  spec.replace(spec.find("@OUT"), 4, out);
  std::ofstream(path) << spec;
}

// Every file under `dir` (recursively), relative to `dir`.
std::set<std::string> FilesBelow(const std::string& dir) {
  namespace fs = std::filesystem;
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) out.insert(fs::relative(it->path(), dir).string());
  }
  return out;
}

struct BackendCase {
  const char* name;
  std::vector<std::string> flags;
};

class PruneEngineITCase : public ::testing::TestWithParam<BackendCase> {};

// Killed (-9) while checkpointing every 100 ms, for every backend: after prune --keep-last 1 the
// job directory holds exactly the retained checkpoint's `_metadata` and the files it references
// (whatever the kill interrupted: uploads of SSTs, changelog segments, materializations), and
// that checkpoint restores exactly once.
TEST_P(PruneEngineITCase, PrunedCheckpointsOfAKilledJobStillRestoreExactlyOnce) {
  const std::string engine = EngineBinary();
  ASSERT_FALSE(engine.empty()) << "ckpt-engine is not built (CKPT_ENGINE_BINARY unset)";
  ASSERT_TRUE(base::Fs::Default().Stat(engine).ok()) << "ckpt-engine missing: " << engine;
  testing::TempDir tmp;
  const std::string t = tmp.path();
  WriteSpec(t + "/job.json", t + "/out");
  std::vector<std::string> run = {engine, "run", t + "/job.json", "--checkpoint-dir", t + "/ckpt",
                                  "--state-local-dir", t + "/local"};
  for (const std::string& f : GetParam().flags) run.push_back(f);
  // Run until at least three checkpoints completed, then kill -9 (a crash: nothing cleaned up).
  pid_t pid = Spawn(run, t + "/run1.log");
  ASSERT_GT(pid, 0);
  const bool three = ckpt::testing::WaitUntil([&] { return PublishedCheckpoints(t + "/ckpt") >= 3; });
  kill(pid, SIGKILL);
  WaitExit(pid);
  ASSERT_TRUE(three) << ReadFile(t + "/run1.log");

  ops::PruneOptions keep1;
  keep1.keep_last = 1;
  keep1.min_orphan_age_ms = 0;
  ASSERT_OK_AND_ASSIGN(ops::PrunePlan plan, ops::PlanPrune(base::Fs::Default(), t + "/ckpt", keep1));
  size_t subsumed = 0;
  std::string retained;
  for (const auto& s : plan.snapshots) {
    subsumed += s.verdict == ops::SnapshotVerdict::kSubsumed;
    if (s.verdict == ops::SnapshotVerdict::kRetained) retained = t + "/ckpt/" + s.path;
  }
  EXPECT_GE(subsumed, 2u);
  ASSERT_FALSE(retained.empty());
  ASSERT_OK(ops::ExecutePrune(base::Fs::Default(), plan));
  ops::ValidateOptions deep;
  deep.deep = true;
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport report,
                       ops::Validate(base::Fs::Default(), retained, deep));
  EXPECT_FALSE(ops::HasErrors(report.findings));
  // Nothing is left that the retained checkpoint does not reference.
  const std::string job_dir = base::DirName(retained);
  ASSERT_OK_AND_ASSIGN(pb::CheckpointMetadata md,
                       format::ReadMetadataFile(base::Fs::Default(),
                                                base::JoinPath(retained, format::kMetadataFileName)));
  std::set<std::string> referenced = {base::BaseName(retained) + "/" +
                                      std::string(format::kMetadataFileName)};
  for (const auto& f : md.files()) {
    ASSERT_OK_AND_ASSIGN(std::string p, format::ResolveFile(retained, f));
    referenced.insert(std::filesystem::relative(p, job_dir).string());
  }
  std::set<std::string> left = FilesBelow(job_dir);
  left.erase(std::string(format::kJobLockFileName));
  EXPECT_EQ(left, referenced);

  // The engine restores the one retained checkpoint and finishes; the committed output of both
  // runs holds every input exactly once.
  std::vector<std::string> resume = {engine, "run", t + "/job.json", "-s", retained,
                                     "--checkpoint-dir", t + "/ckpt2", "--state-local-dir",
                                     t + "/local2"};
  for (const std::string& f : GetParam().flags) resume.push_back(f);
  ASSERT_EQ(WaitExit(Spawn(resume, t + "/run2.log")), 0) << ReadFile(t + "/run2.log");
  std::map<int64_t, int> seen;
  ASSERT_OK_AND_ASSIGN(auto entries, base::Fs::Default().ListDir(t + "/out"));
  for (const auto& e : entries) {
    if (e.name.rfind("part-", 0) != 0) continue;
    std::ifstream in(t + "/out/" + e.name);
    for (std::string line; std::getline(in, line);) {
      size_t a = line.find(',');
      size_t b = line.find(',', a + 1);
      ++seen[std::stoll(line.substr(a + 1, b - a - 1))];
    }
  }
  EXPECT_EQ(seen.size(), 60000u);
  for (const auto& [input, count] : seen) {
    if (count != 1) {
      ADD_FAILURE() << "input " << input << " committed " << count << " times";
      break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, PruneEngineITCase,
    ::testing::Values(
        BackendCase{"Heap", {}},
        BackendCase{"RocksDbIncremental", {"--state-backend", "rocksdb", "--incremental", "true"}},
        BackendCase{"ChangelogHeap",
                    {"--changelog", "on", "--changelog-materialization-interval", "200"}},
        BackendCase{"ChangelogRocksDb",
                    {"--state-backend", "rocksdb", "--incremental", "true", "--changelog", "on",
                     "--changelog-materialization-interval", "200"}}),
    [](const auto& i) { return std::string(i.param.name); });

TEST(PruneEngineBesideITCase, PruneBesideARunningEngineDeletesNothingOfItsJob) {
  const std::string engine = EngineBinary();
  ASSERT_FALSE(engine.empty()) << "ckpt-engine is not built (CKPT_ENGINE_BINARY unset)";
  testing::TempDir tmp;
  const std::string t = tmp.path();
  std::string spec = kEngineJob;
  spec.replace(spec.find("60000"), 5, "100000000");
  spec.replace(spec.find("@OUT"), 4, t + "/out");
  std::ofstream(t + "/job.json") << spec;
  pid_t pid = Spawn({engine, "run", t + "/job.json", "--checkpoint-dir", t + "/ckpt",
                     "--interval", "20"},
                    t + "/run.log");
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return PublishedCheckpoints(t + "/ckpt") >= 2; }))
      << ReadFile(t + "/run.log");
  ops::PruneOptions aggressive;
  aggressive.keep_last = 1;
  aggressive.min_orphan_age_ms = 0;  // the setting that deleted a live job's in-flight files
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK_AND_ASSIGN(ops::PrunePlan plan,
                         ops::PlanPrune(base::Fs::Default(), t + "/ckpt", aggressive));
    EXPECT_EQ(plan.files_to_delete, 0u) << plan.steps.front().path;
    ASSERT_OK(ops::ExecutePrune(base::Fs::Default(), plan));
  }
  // The engine kept checkpointing: it never published a snapshot with missing files.
  const int64_t before = HighestPublished(t + "/ckpt");
  EXPECT_TRUE(ckpt::testing::WaitUntil(
      [&] { return HighestPublished(t + "/ckpt") >= before + 3; }))
      << ReadFile(t + "/run.log");
  kill(pid, SIGTERM);
  EXPECT_EQ(WaitExit(pid), 0) << ReadFile(t + "/run.log");
  EXPECT_EQ(ReadFile(t + "/run.log").find("failed to publish"), std::string::npos)
      << ReadFile(t + "/run.log");
}

}  // namespace
}  // namespace ckpt::itcase
