// The engine's own checkpoint of a keyed job in which one subtask of the keyed operator never
// sees a key (one key at parallelism 2), with a stateless `slow` operator behind a second keyBy:
// the empty subtasks write no keyed handle, which is empty state, not a key-group gap. validate
// --deep exits 0 (no CKPT-K001, keys decode under the recorded key type) exactly as the engine
// restores it, at the same and at another parallelism, with every input committed once.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

namespace fs = std::filesystem;

std::string EmptySubtaskJobJson(const KeyedSumJob& j, const std::string& parallelism) {
  return std::string("{\"name\": \"empty-subtask\", \"job_id\": \"") + j.job_id +
         "\", \"parallelism\": " + parallelism + ", \"operators\": ["
         "{\"id\": \"source\", \"kind\": \"sequence-source\", \"uid\": \"source\", \"params\": "
         "{\"from\": " + std::to_string(j.from) + ", \"to\": " + std::to_string(j.to) +
         ", \"splits\": " + std::to_string(j.splits) + ", \"keys\": " + std::to_string(j.keys) +
         ", \"rate_per_second\": " + std::to_string(static_cast<int64_t>(j.rate_per_second)) +
         "}},"
         "{\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"sum\", \"params\": {\"emit\": "
         "\"input-and-sum\"}},"
         "{\"id\": \"slow\", \"kind\": \"slow\", \"uid\": \"slow\", \"params\": {\"delay_us\": "
         "50, \"every\": 50}},"
         "{\"id\": \"sink\", \"kind\": \"file-sink\", \"uid\": \"sink\", \"params\": {\"path\": "
         "\"" + j.sink_dir + "\"}}],"
         "\"edges\": [{\"from\": \"source\", \"to\": \"sum\", \"partitioning\": \"HASH\"},"
         "{\"from\": \"sum\", \"to\": \"slow\", \"partitioning\": \"HASH\"},"
         "{\"from\": \"slow\", \"to\": \"sink\", \"partitioning\": \"FORWARD\"}]}";
}

void EmptySubtaskWriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(EmptySubtaskValidateITCase, UnalignedCheckpointWithAnEmptyKeyedSubtaskValidatesAndRestores) {
  ASSERT_TRUE(std::string(kEngine).size() > 0 && fs::exists(kEngine)) << "ckpt-engine missing";
  ASSERT_TRUE(std::string(kTool).size() > 0 && fs::exists(kTool)) << "ckpt-tool missing";
  testing::TempDir tmp;
  KeyedSumJob job;
  job.job_id = JobIdFor("EmptySubtaskValidateITCase");
  job.from = 1;
  job.to = 60000;
  job.splits = 2;
  job.keys = 1;  // one key: one subtask of `sum` and of `slow` never sees a key
  job.rate_per_second = 20000;
  job.sink_dir = tmp.Sub("out");
  const std::string spec = tmp.Sub("job.json");
  EmptySubtaskWriteText(spec, EmptySubtaskJobJson(job, "2"));

  const std::string root = tmp.Sub("ck");
  const pid_t pid = Spawn({kEngine, "run", spec, "--checkpoint-dir", root, "--interval", "100",
                           "--mode", "unaligned", "--num-retained", "2"},
                          tmp.Sub("write.log"));
  const std::string job_dir = root + "/" + job.job_id;
  const bool two = ckpt::testing::WaitUntil([&] {
    int complete = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(job_dir, ec)) {
      complete += fs::exists(e.path() / "_metadata") ? 1 : 0;
    }
    return complete >= 2;
  });
  kill(pid, SIGKILL);
  WaitExit(pid);
  ASSERT_TRUE(two) << ReadFile(tmp.Sub("write.log"));
  const std::string chk = LatestCheckpoint(job_dir);
  ASSERT_FALSE(chk.empty());
  const std::string sink_pristine = tmp.Sub("out-pristine");
  fs::copy(job.sink_dir, sink_pristine, fs::copy_options::recursive);

  const std::string vlog = tmp.Sub("validate.log");
  EXPECT_EQ(WaitExit(Spawn({kTool, "validate", "--deep", chk}, vlog)), 0) << ReadFile(vlog);
  EXPECT_EQ(ReadFile(vlog).find("CKPT-K001"), std::string::npos) << ReadFile(vlog);

  job.rate_per_second = 0;
  for (const char* p : {"2", "3"}) {
    SCOPED_TRACE(std::string("restore at parallelism ") + p);
    fs::remove_all(job.sink_dir);
    fs::copy(sink_pristine, job.sink_dir, fs::copy_options::recursive);
    const std::string restore_spec = tmp.Sub(std::string("restore-") + p + ".json");
    EmptySubtaskWriteText(restore_spec, EmptySubtaskJobJson(job, p));
    const std::string rlog = tmp.Sub(std::string("restore-") + p + ".log");
    ASSERT_EQ(WaitExit(Spawn({kEngine, "run", restore_spec, "-s", chk, "--max-restarts",
                              "0", "--checkpoint-dir", tmp.Sub(std::string("ck-") + p)},
                             rlog)),
              0)
        << ReadFile(rlog);
    ExpectExact(VerifyCommitted({job.sink_dir}, job, /*check_sums=*/std::string(p) == "2"));
  }
}

}  // namespace
}  // namespace ckpt::itcase
