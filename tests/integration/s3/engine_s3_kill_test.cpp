// ckpt-engine with checkpoints and sink on S3, reached through the fault-injecting proxy, killed
// with SIGKILL while one chosen request is held in flight: the PUT of a checkpoint's `_metadata`
// (a kill during publish) or an UploadPart of a sink part file (a kill during a multipart
// upload). Afterwards no checkpoint directory shows a partial snapshot (every `_metadata` there
// validates --deep; the one being published is absent), and --from-latest resumes with every
// record committed exactly once and no upload left open.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/layout.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "fault_proxy.h"
#include "itcase_util.h"
#include "s3_itcase_fixture.h"

namespace ckpt::itcase {
namespace {

class EngineS3KillTest : public S3ITCase {
 protected:
  EngineS3KillTest() : S3ITCase("kill") {}

  // Runs the paced keyed-sum job through a proxy that holds the first request matching `rule`
  // after one complete checkpoint exists, kills the engine while that request is held, checks
  // what is on S3, and resumes the job directly against the server.
  void KillWhileHeld(s3::testing::FaultRule rule, const std::string& name) {
    ASSERT_NE(std::string(kEngine), "") << "ckpt-engine was not built";
    testing::TempDir tmp;
    KeyedSumJob job = PacedJob(Uri(name + "-out"), 100000, 16);
    job.rate_per_second = 25000;
    job.job_id = JobIdFor("EngineS3KillTest." + name);
    const std::string spec = tmp.Sub("job.json");
    std::ofstream(spec) << KeyedSumJobJson(job);
    const std::string job_rel = name + "/" + job.job_id;

    ASSERT_OK_AND_ASSIGN(std::unique_ptr<s3::testing::FaultProxy> proxy,
                         s3::testing::FaultProxy::Start(config_.endpoint));
    rule.times = 1;
    rule.action = s3::testing::FaultAction::kDelay;
    rule.delay_ms = 120'000;  // far beyond the kill; the proxy's destructor cuts it short
    const std::string direct = config_.endpoint;
    setenv("AWS_ENDPOINT_URL", proxy->endpoint().c_str(), 1);
    const pid_t pid = Spawn({kEngine, "run", spec, "--checkpoint-dir", Uri(name), "--interval",
                             "100", "--parallelism", "2"},
                            tmp.Sub("run1.log"));
    setenv("AWS_ENDPOINT_URL", direct.c_str(), 1);
    ASSERT_GT(pid, 0);
    size_t complete = 0;
    const bool checkpointed = ckpt::testing::WaitUntil([&] {
      CheckpointDirs(Uri(job_rel), &complete);
      return complete > 0;
    });
    const int id = proxy->AddRule(rule);
    const bool held = checkpointed && ckpt::testing::WaitUntil([&] { return proxy->Faulted(id) > 0; });
    ::kill(pid, SIGKILL);
    const int code = WaitExit(pid);
    proxy.reset();
    ASSERT_TRUE(checkpointed) << ReadFile(tmp.Sub("run1.log"));
    ASSERT_TRUE(held) << "no request matched the rule before the job ended:\n"
                      << ReadFile(tmp.Sub("run1.log"));
    ASSERT_EQ(code, 128 + SIGKILL) << ReadFile(tmp.Sub("run1.log"));

    // No partial snapshot: each `_metadata` present validates deeply.
    std::vector<std::string> dirs = CheckpointDirs(Uri(job_rel), &complete);
    ASSERT_GT(complete, 0u);
    for (const std::string& d : dirs) {
      const std::string chk = base::JoinPath(Uri(job_rel), d);
      if (!fs_->Stat(base::JoinPath(chk, format::kMetadataFileName)).ok()) continue;
      ops::ValidateOptions deep;
      deep.deep = true;
      ASSERT_OK_AND_ASSIGN(ops::ValidateReport report, ops::Validate(*fs_, chk, deep));
      for (const auto& f : report.findings) {
        EXPECT_NE(f.severity, ops::Severity::kError) << d << ": " << f.rule_id << " " << f.message;
      }
    }

    // The killed engine's lease would refuse a restart for its time to live; its holder is known
    // dead, so it is removed (as an operator does after checking).
    ASSERT_OK(fs_->RemoveFile(base::JoinPath(Uri(job_rel), format::kJobLockFileName)));
    KeyedSumJob rest = job;
    rest.rate_per_second = 0;
    const std::string rest_spec = tmp.Sub("job-unpaced.json");
    std::ofstream(rest_spec) << KeyedSumJobJson(rest);
    const int resumed = WaitExit(Spawn({kEngine, "run", rest_spec, "--from-latest", Uri(job_rel),
                                        "--interval", "100", "--parallelism", "2"},
                                       tmp.Sub("run2.log")));
    ASSERT_EQ(resumed, 0) << ReadFile(tmp.Sub("run2.log"));
    auto open = fs_->client().ListMultipartUploads(bucket_, name + "-out/");
    ASSERT_TRUE(open.ok()) << open.status().ToString();
    EXPECT_TRUE(open->empty()) << "a multipart upload outlived the finished job";

    const std::string local = tmp.Sub("out-downloaded");
    std::filesystem::create_directories(local);
    ASSERT_OK_AND_ASSIGN(std::vector<base::DirEntry> entries, fs_->ListDir(Uri(name + "-out")));
    for (const base::DirEntry& e : entries) {
      if (e.is_dir || e.name.rfind("part-", 0) != 0) continue;
      ASSERT_OK_AND_ASSIGN(std::string bytes,
                           base::ReadFileToString(*fs_, base::JoinPath(Uri(name + "-out"), e.name)));
      std::ofstream(base::JoinPath(local, e.name), std::ios::binary) << bytes;
    }
    KeyedSumJob check = job;
    check.sink_dir = local;
    ExpectExact(VerifyCommitted({local}, check, /*check_sums=*/true));
  }
};

TEST_F(EngineS3KillTest, KilledWhilePublishingMetadataLeavesNoPartialCheckpoint) {
  s3::testing::FaultRule rule;
  rule.method = "PUT";
  rule.target_contains = "/_metadata";
  KillWhileHeld(rule, "publish");
}

TEST_F(EngineS3KillTest, KilledDuringAMultipartUploadLosesNoCommittedOutput) {
  s3::testing::FaultRule rule;
  rule.method = "PUT";
  rule.target_contains = "partNumber=";
  KillWhileHeld(rule, "upload");
}

}  // namespace
}  // namespace ckpt::itcase
