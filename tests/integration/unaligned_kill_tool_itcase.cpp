// Unaligned checkpoints through the binaries, as a user runs them: ckpt-engine at parallelism 5
// under backpressure (256-byte buffers, one credit; source -> HASH -> keyed sum -> slow operator
// of 1 ms per record -> sink, the last three chained, so the HASH exchange is full) in
// UNALIGNED and in ALIGNED_WITH_TIMEOUT mode (5 ms) is SIGKILLed once a retained checkpoint
// persisted in-flight data; `ckpt-tool show --format json` lists that checkpoint's
// channel-state files (kind channel-state, ceil(5/5) = 1 per task) and per-subtask in-flight
// entries, `ckpt-tool validate --deep` passes it; then the job resumes with --from-latest and
// the committed output is exact (nothing lost or duplicated, order kept per split and key).
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

namespace fs = std::filesystem;

std::string JobJson(const KeyedSumJob& j) {
  std::ostringstream o;
  o << "{\"name\": \"unaligned-kill\", \"job_id\": \"" << j.job_id << "\", \"operators\": ["
    << "{\"id\": \"source\", \"kind\": \"sequence-source\", \"uid\": \"source\", \"params\": "
    << "{\"from\": " << j.from << ", \"to\": " << j.to << ", \"splits\": " << j.splits
    << ", \"keys\": " << j.keys << ", \"rate_per_second\": " << j.rate_per_second << "}},"
    << "{\"id\": \"slow\", \"kind\": \"slow\", \"uid\": \"slow\", \"params\": {\"delay_us\": 1000}},"
    << "{\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"sum\", \"params\": {\"emit\": "
       "\"input-and-sum\"}},"
    << "{\"id\": \"sink\", \"kind\": \"file-sink\", \"uid\": \"sink\", \"params\": {\"path\": \""
    << j.sink_dir << "\"}}],\"edges\": ["
    << "{\"from\": \"source\", \"to\": \"sum\", \"partitioning\": \"HASH\"},"
    << "{\"from\": \"sum\", \"to\": \"slow\", \"partitioning\": \"FORWARD\"},"
    << "{\"from\": \"slow\", \"to\": \"sink\", \"partitioning\": \"FORWARD\"}]}";
  return o.str();
}

// Whether every subtask of the keyed sum had keyed state in `md`: past the job's start, when a
// subtask that had seen no record yet has none (and its key groups no handle).
bool EverySumSubtaskHasState(const pb::CheckpointMetadata& md) {
  const std::string sum = format::OperatorId::FromUid("sum").ToBytes();
  for (const pb::OperatorState& os : md.operators()) {
    if (os.operator_id() != sum) continue;
    int with_state = 0;
    for (const pb::SubtaskState& s : os.subtasks()) with_state += s.keyed_state_size() > 0 ? 1 : 0;
    return os.parallelism() > 0 && with_state == static_cast<int>(os.parallelism());
  }
  return false;
}

// The newest chk-<n> under `job_dir` whose _metadata records persisted in-flight data and in
// which every keyed-sum subtask has state (on a loaded machine the first checkpoints come before
// some subtasks saw a record).
std::string CheckpointWithInFlightData(const std::string& job_dir) {
  std::string best;
  int64_t best_id = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(job_dir, ec)) {
    const std::string md = (e.path() / "_metadata").string();
    if (!fs::exists(md)) continue;
    base::Result<std::string> bytes = base::ReadFileToString(base::Fs::Default(), md);
    if (!bytes.ok()) continue;
    base::Result<pb::CheckpointMetadata> m = format::DecodeMetadata(*bytes, md);
    if (!m.ok() || m->metrics().persisted_data() == 0 || !EverySumSubtaskHasState(*m)) continue;
    if (m->checkpoint_id() > best_id) {
      best_id = m->checkpoint_id();
      best = e.path().string();
    }
  }
  return best;
}

class UnalignedKillToolITCase : public ::testing::TestWithParam<std::string> {};

TEST_P(UnalignedKillToolITCase, KilledJobLeavesAValidCheckpointWithChannelStateAndResumesExactly) {
  ASSERT_STRNE(kEngine, "") << "ckpt-engine is not built: this test needs it";
  ASSERT_STRNE(kTool, "") << "ckpt-tool is not built: this test needs it";
  testing::TempDir tmp;
  KeyedSumJob job;
  job.job_id = "756e616c69676e65640000000000000" + std::string(GetParam() == "unaligned" ? "1" : "2");
  job.from = 1;
  job.to = 20000;
  job.splits = 8;
  job.keys = 32;
  job.rate_per_second = 8000;  // faster than the 5 slow subtasks (~5000/s): backpressure
  job.sink_dir = tmp.Sub("out");
  const std::string spec = tmp.Sub("job.json");
  std::ofstream(spec) << JobJson(job);
  const std::string ckpt = tmp.Sub("checkpoints");
  const std::string job_dir = ckpt + "/" + job.job_id;
  const std::string log = tmp.Sub("engine.log");
  std::vector<std::string> base = {kEngine, "run", spec, "--checkpoint-dir", ckpt, "--interval",
                                   "50", "-p", "5", "--mode", GetParam(), "--network-buffer-bytes",
                                   "256", "--buffers-per-channel", "1",
                                   "--aligned-checkpoint-timeout", "5", "--retention",
                                   "retain-on-cancellation", "--num-retained", "1000"};
  pid_t pid = Spawn(base, log);
  ASSERT_GT(pid, 0);
  std::string chk;
  const bool found = testing::WaitUntil(
      [&] {
        chk = CheckpointWithInFlightData(job_dir);
        return !chk.empty();
      },
      std::chrono::milliseconds(60000), std::chrono::milliseconds(20));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(WaitExit(pid), 128 + SIGKILL) << ReadFile(log);
  ASSERT_TRUE(found) << "no checkpoint with in-flight data in " << job_dir << "\n" << ReadFile(log);

  // The tools on the engine's checkpoint: channel-state files listed, per-subtask entries, valid.
  const std::string show_out = tmp.Sub("show.json");
  ASSERT_EQ(WaitExit(Spawn({kTool, "show", "--format", "json", chk}, show_out)), 0)
      << ReadFile(show_out);
  const std::string shown = ReadFile(show_out);
  EXPECT_GE(Count(shown, "\"channel-state\""), 1u) << shown;
  EXPECT_GE(Count(shown, "\"direction\":"), 1u) << shown;
  EXPECT_NE(shown.find("\"unaligned_checkpoint\":true"), std::string::npos) << shown;
  for (const auto& e : fs::directory_iterator(chk)) {
    const std::string name = e.path().filename().string();
    if (name.find("-channel-state-") == std::string::npos) continue;
    EXPECT_TRUE(std::regex_match(name, std::regex("[0-9a-f]{32}-channel-state-0\\.state")))
        << name << ": 5 subtasks share one file per task";
    EXPECT_NE(shown.find(name), std::string::npos) << name << " not listed by show";
  }
  const std::string validate_out = tmp.Sub("validate.txt");
  EXPECT_EQ(WaitExit(Spawn({kTool, "validate", "--deep", chk}, validate_out)), 0)
      << ReadFile(validate_out);
  EXPECT_NE(ReadFile(validate_out).find("0 error(s)"), std::string::npos) << ReadFile(validate_out);
  // dump decodes the in-flight records (the engine's stream-element frames): the HASH edge
  // carries (key = value mod keys, value) records of the source's range.
  const std::string dump_out = tmp.Sub("dump.jsonl");
  ASSERT_EQ(WaitExit(Spawn({kTool, "dump", "--format", "json", chk}, dump_out)), 0)
      << ReadFile(dump_out);
  const std::string dumped = ReadFile(dump_out);
  EXPECT_GE(Count(dumped, "\"source\":\"channel\""), 1u);
  EXPECT_GE(Count(dumped, "\"source\":\"channel-record\""), 1u);
  std::istringstream lines(dumped);
  const std::regex record(".*\"source\":\"channel-record\".*\"key\":([0-9]+).*\"value\":([0-9]+).*");
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"channel-record\"") == std::string::npos) continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, record)) << line;
    const int64_t key = std::stoll(m[1]), value = std::stoll(m[2]);
    EXPECT_EQ(key, value % job.keys) << line;
    EXPECT_TRUE(value >= job.from && value <= job.to) << line;
  }

  // Resume and finish: exactly once across the kill.
  std::vector<std::string> resume = base;
  resume.push_back("--from-latest");
  resume.push_back(job_dir);
  ASSERT_EQ(WaitExit(Spawn(resume, log)), 0) << ReadFile(log);
  Verification v = VerifyCommitted({job.sink_dir}, job, /*check_sums=*/true);
  ExpectExact(v);
}

INSTANTIATE_TEST_SUITE_P(Modes, UnalignedKillToolITCase,
                         ::testing::Values("unaligned", "aligned-with-timeout"),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace ckpt::itcase
