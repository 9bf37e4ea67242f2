// ckpt-tool and ckpt::ops over snapshots the reference engine wrote (not ckpt::format's sample
// writer), with both binaries run as a user runs them: every read verb succeeds on an engine
// savepoint and validates clean against its own job, a remapped engine savepoint restores
// into the job whose uids changed, and a savepoint rescaled to a new max parallelism restores into
// the job with that max parallelism, each with exactly the results of restoring the original into
// the old job. Moved here from the ops unit suite, where they skipped without ckpt-engine: here they
// fail (never skip) when a binary is missing.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/ops/remap.h"
#include "ckpt/ops/rescale.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

namespace fs = std::filesystem;

// sequence-source (1 split, 8 keys) -> HASH -> keyed-sum(input-and-sum) -> FORWARD -> file-sink;
// every uid carries `version`.
std::string Job(const std::string& name, const std::string& version, const std::string& out,
                int max_parallelism = 128) {
  std::string spec = R"({
  "name": "@NAME",
  "parallelism": 2,
  "max_parallelism": @MAXP,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers@V", "parallelism": 1,
     "params": {"from": 1, "to": 60000, "splits": 1, "keys": 8, "rate_per_second": 40000}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum@V", "params": {"emit": "input-and-sum"}},
    {"id": "sink", "kind": "file-sink", "uid": "sums@V", "params": {"path": "@OUT"}}
  ],
  "edges": [
    {"from": "numbers", "to": "sum", "partitioning": "HASH"},
    {"from": "sum", "to": "sink", "partitioning": "FORWARD"}
  ],
  "checkpointing": {"interval_ms": 200}
})";
  for (size_t at; (at = spec.find("@V")) != std::string::npos;) spec.replace(at, 2, version);
  spec.replace(spec.find("@NAME"), 5, name);
  spec.replace(spec.find("@OUT"), 4, out);
  spec.replace(spec.find("@MAXP"), 5, std::to_string(max_parallelism));
  return spec;
}

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs `args` (args[0] = binary) to completion; its output goes to `log` and is returned.
RunResult RunToEnd(const std::vector<std::string>& args, const std::string& log) {
  RunResult r;
  r.exit_code = WaitExit(Spawn(args, log));
  r.output = ReadFile(log);
  return r;
}

// The one savepoint under <checkpoint_dir>/savepoints.
std::string OnlySavepoint(const std::string& checkpoint_dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(checkpoint_dir + "/savepoints")) {
    found.push_back(e.path().string());
  }
  EXPECT_EQ(found.size(), 1u) << checkpoint_dir;
  return found.empty() ? std::string() : found[0];
}

// Committed output lines ("key,input,sum") of a file-sink directory, sorted.
std::vector<std::string> CommittedLines(const std::string& dir) {
  std::vector<std::string> lines;
  if (!fs::exists(dir)) return lines;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("part-", 0) != 0) continue;  // dot files: in progress
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// With the output from before the savepoint, every input 1..60000 appears exactly once in
// `before` + `after` (the sums continued from the restored state rather than starting over).
void ExpectEveryInputOnce(std::vector<std::string> before, const std::vector<std::string>& after) {
  EXPECT_FALSE(before.empty());
  before.insert(before.end(), after.begin(), after.end());
  std::set<int64_t> inputs;
  for (const auto& line : before) {
    std::istringstream in(line);
    std::string key, input;
    std::getline(in, key, ',');
    std::getline(in, input, ',');
    EXPECT_TRUE(inputs.insert(std::stoll(input)).second) << "duplicate input " << input;
  }
  EXPECT_EQ(inputs.size(), 60000u);
  if (!inputs.empty()) {
    EXPECT_EQ(*inputs.begin(), 1);
    EXPECT_EQ(*inputs.rbegin(), 60000);
  }
}

class ToolOverEngineITCase : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::string(kEngine).size() > 0 && fs::exists(kEngine))
        << "ckpt-engine binary missing (CKPT_ENGINE_BINARY): this test must not be skipped";
    ASSERT_TRUE(std::string(kTool).size() > 0 && fs::exists(kTool))
        << "ckpt-tool binary missing (CKPT_TOOL_BINARY): this test must not be skipped";
  }

  // Runs the job `spec` with a stop-with-savepoint after 0.5 s: the savepoint's path.
  std::string StopWithSavepoint(const std::string& spec, const std::string& checkpoint_dir) {
    const RunResult run = RunToEnd({kEngine, "run", spec, "--checkpoint-dir", checkpoint_dir,
                              "--stop-with-savepoint-after", "0.5"},
                             checkpoint_dir + ".log");
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return OnlySavepoint(checkpoint_dir);
  }

  // Restores `old_sp` into the job `old_spec` and `new_sp` into `new_spec` (sinks `old_out` and
  // `new_out`): both run to the end with the same committed output, which together with `before`
  // (the output up to the savepoint) holds every input exactly once.
  void ExpectSameResults(const std::string& old_spec, const std::string& old_sp, const std::string& old_out,
                         const std::string& new_spec, const std::string& new_sp, const std::string& new_out,
                         const std::string& before) {
    const RunResult old_run =
        RunToEnd({kEngine, "run", old_spec, "-s", old_sp, "--checkpoint-dir", old_out + "-ck"}, old_out + ".log");
    ASSERT_EQ(old_run.exit_code, 0) << old_run.output;
    const RunResult new_run =
        RunToEnd({kEngine, "run", new_spec, "-s", new_sp, "--checkpoint-dir", new_out + "-ck"}, new_out + ".log");
    ASSERT_EQ(new_run.exit_code, 0) << new_run.output;
    const std::vector<std::string> old_lines = CommittedLines(old_out);
    const std::vector<std::string> new_lines = CommittedLines(new_out);
    ASSERT_FALSE(new_lines.empty());
    EXPECT_EQ(old_lines, new_lines);
    ExpectEveryInputOnce(CommittedLines(before), new_lines);
  }

  RunResult Tool(std::vector<std::string> args) {
    args.insert(args.begin(), kTool);
    return RunToEnd(args, tmp_.Sub("tool-" + std::to_string(++runs_) + ".log"));
  }

  testing::TempDir tmp_;
  int runs_ = 0;
};

TEST_F(ToolOverEngineITCase, EngineSavepointPassesEveryReadVerb) {
  const std::string spec = tmp_.Sub("job.json");
  WriteFile(spec, Job("t1-engine-read", "", tmp_.Sub("out")));
  const std::string sp = StopWithSavepoint(spec, tmp_.Sub("ckpt"));
  ASSERT_FALSE(sp.empty());

  const RunResult v = Tool({"validate", "--deep", "--format", "json", sp});
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_EQ(v.output.find("\"rule\""), std::string::npos) << v.output;
  EXPECT_NE(v.output.find("\"errors\":0,\"warnings\":0,\"findings\":0"), std::string::npos)
      << v.output;

  const RunResult against = Tool({"validate", sp, "--against", spec});
  EXPECT_EQ(against.exit_code, 0) << against.output;

  const RunResult ls = Tool({"ls", "--format", "json", tmp_.Sub("ckpt")});
  EXPECT_EQ(ls.exit_code, 0) << ls.output;
  EXPECT_NE(ls.output.find("\"kind\":\"savepoint\""), std::string::npos) << ls.output;
  EXPECT_NE(ls.output.find("\"status\":\"complete\""), std::string::npos) << ls.output;

  const RunResult dump = Tool({"dump", sp, "--operator", "sum", "--format", "json"});
  EXPECT_EQ(dump.exit_code, 0) << dump.output;
  std::istringstream lines(dump.output);
  int records = 0;
  for (std::string line; std::getline(lines, line);) records += line.rfind("{", 0) == 0;
  EXPECT_EQ(records, 8) << dump.output;  // one running sum per key

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", sp}, {"show", "--format", "json", sp}, {"files", sp},
        {"stats", sp}, {"ls", sp}}) {
    const RunResult run = Tool(args);
    EXPECT_EQ(run.exit_code, 0) << args[0] << ": " << run.output;
    EXPECT_FALSE(run.output.empty()) << args[0];
  }
}

// A stateless operator right behind a keyBy declares its timer queues but never writes keyed
// state: its snapshots have no keyed handle for it. validate must agree with the engine, which
// restores them: no key-group gap, restore yes, in unaligned mode as in aligned.
TEST_F(ToolOverEngineITCase, StatelessOperatorBehindAKeyByValidatesCleanAndRestores) {
  const std::string spec = tmp_.Sub("job.json");
  WriteFile(spec, R"({
  "name": "stateless-behind-keyby", "parallelism": 2, "max_parallelism": 128,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers", "parallelism": 1,
     "params": {"from": 1, "to": 60000, "splits": 1, "keys": 8, "rate_per_second": 40000}},
    {"id": "slow", "kind": "slow", "uid": "slow", "params": {"delay_us": 100, "every": 100}},
    {"id": "sink", "kind": "file-sink", "uid": "sink", "params": {"path": ")" +
                      tmp_.Sub("out") + R"("}}
  ],
  "edges": [
    {"from": "numbers", "to": "slow", "partitioning": "HASH"},
    {"from": "slow", "to": "sink", "partitioning": "FORWARD"}
  ],
  "checkpointing": {"interval_ms": 100, "mode": "UNALIGNED"}
})");
  const std::string sp = StopWithSavepoint(spec, tmp_.Sub("ckpt"));
  ASSERT_FALSE(sp.empty());
  const RunResult v = Tool({"validate", "--deep", sp});
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_EQ(v.output.find("CKPT-K001"), std::string::npos) << v.output;
  const RunResult run = RunToEnd({kEngine, "run", spec, "-s", sp, "--checkpoint-dir",
                                  tmp_.Sub("ckpt2")}, tmp_.Sub("restore.log"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

TEST_F(ToolOverEngineITCase, RemappedEngineSavepointRestoresIntoTheNewJobWithIdenticalResults) {
  const std::string t = tmp_.path();
  WriteFile(t + "/v1.json", Job("remap-restore", "-v1", t + "/out-before"));
  // 1. The old job stops with a savepoint part-way through its input.
  const std::string sp = StopWithSavepoint(t + "/v1.json", t + "/ckpt");
  ASSERT_FALSE(sp.empty());

  // 2. The new job version renamed every uid: the savepoint does not fit it...
  WriteFile(t + "/v2.json", Job("remap-restore", "-v2", t + "/out-v2"));
  ops::ValidateOptions against;
  against.against_job = t + "/v2.json";
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport before,
                       ops::Validate(base::Fs::Default(), sp, against));
  EXPECT_TRUE(ops::HasErrors(before.findings));
  const RunResult refused = RunToEnd(
      {kEngine, "run", t + "/v2.json", "-s", sp, "--checkpoint-dir", t + "/ck-fail"},
      t + "/run-fail.log");
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  // ... until it is remapped, after which it validates clean, deep, against the new job.
  ops::RemapOptions remap;
  remap.against_job_path = t + "/v2.json";
  ASSERT_OK_AND_ASSIGN(ops::RemapResult r,
                       ops::Remap(base::Fs::Default(), sp, t + "/sp-v2", remap));
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(r.unmatched.empty());
  against.deep = true;
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport after,
                       ops::Validate(base::Fs::Default(), t + "/sp-v2", against));
  EXPECT_FALSE(ops::HasErrors(after.findings));

  // 3. Restoring the remapped savepoint into v2 gives exactly what restoring the original
  // savepoint into v1 gives.
  WriteFile(t + "/v1-restore.json", Job("remap-restore", "-v1", t + "/out-v1"));
  ExpectSameResults(t + "/v1-restore.json", sp, t + "/out-v1", t + "/v2.json", t + "/sp-v2", t + "/out-v2",
                    t + "/out-before");
}

TEST_F(ToolOverEngineITCase, RescaledEngineSavepointRestoresAtTheNewMaxParallelismWithIdenticalResults) {
  const std::string t = tmp_.path();
  WriteFile(t + "/p128.json", Job("rescale-restore", "", t + "/out-before"));
  const std::string sp = StopWithSavepoint(t + "/p128.json", t + "/ckpt");
  ASSERT_FALSE(sp.empty());

  // The job now runs with 256 key groups: the engine refuses the 128 savepoint...
  WriteFile(t + "/p256.json", Job("rescale-restore", "", t + "/out-256", 256));
  const RunResult refused = RunToEnd(
      {kEngine, "run", t + "/p256.json", "-s", sp, "--checkpoint-dir", t + "/ck-fail"},
      t + "/run-fail.log");
  EXPECT_NE(refused.exit_code, 0) << refused.output;
  EXPECT_NE(refused.output.find("max parallelism"), std::string::npos) << refused.output;
  // ... until rescale-max-parallelism rewrites it; then it validates clean, deep, against the job.
  ops::RescaleOptions rescale;
  rescale.new_max_parallelism = 256;
  ASSERT_OK_AND_ASSIGN(ops::RescaleResult r,
                       ops::RescaleMaxParallelism(base::Fs::Default(), sp, t + "/sp-256", rescale));
  EXPECT_TRUE(r.written);
  ops::ValidateOptions against;
  against.against_job = t + "/p256.json";
  against.deep = true;
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport after,
                       ops::Validate(base::Fs::Default(), t + "/sp-256", against));
  EXPECT_FALSE(ops::HasErrors(after.findings));

  // Restoring it into the 256 job gives exactly what restoring the original into the 128 job gives.
  WriteFile(t + "/p128-restore.json", Job("rescale-restore", "", t + "/out-128"));
  ExpectSameResults(t + "/p128-restore.json", sp, t + "/out-128", t + "/p256.json", t + "/sp-256",
                    t + "/out-256", t + "/out-before");
}

}  // namespace
}  // namespace ckpt::itcase
