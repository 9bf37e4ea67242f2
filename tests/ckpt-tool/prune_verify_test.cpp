// prune's verify_output: after the steps, the root is scanned again; every kept snapshot must
// open and each job's newest retained checkpoint restore. Plans are damaged on purpose (an
// extra step deleting what a kept snapshot needs) to show the check can fail.
#include <gtest/gtest.h>

#include <chrono>

#include "ckpt/base/fs.h"
#include "ckpt/ops/prune.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "ops_write_testutil.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::TempDir;
namespace opsw = testing::opsw;

// chk-1..chk-3 of the counter job: chk-2 and chk-3 reference shared/count-1-0.state.
std::string WriteVerifyRoot(TempDir& tmp) {
  const std::string root = tmp.Sub("root");
  const std::string job = opsw::CounterJobDir(root);
  for (int64_t id = 1; id <= 3; ++id) EXPECT_OK(opsw::WriteCounterCheckpoint(job, id));
  return root;
}

PruneOptions VerifyingOptions(uint32_t keep_last) {
  PruneOptions o;
  o.keep_last = keep_last;
  o.verify_output = true;
  return o;
}

std::string PruneVerifyJobRel() { return testing::SampleJobIdHex(); }

TEST(PruneVerifyTest, KeptSnapshotsOpenAndTheNewestRestores) {
  TempDir tmp;
  const std::string root = WriteVerifyRoot(tmp);
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(fs, root, VerifyingOptions(2)));
  EXPECT_TRUE(plan.options.verify_output);
  ASSERT_FALSE(plan.steps.empty());
  PruneVerification v;
  ASSERT_OK(ExecutePrune(fs, plan, {}, nullptr, &v));
  EXPECT_TRUE(v.ok());
  ASSERT_EQ(v.snapshots.size(), 2u);
  EXPECT_EQ(v.snapshots[0].path, PruneVerifyJobRel() + "/chk-2");
  EXPECT_TRUE(v.snapshots[0].opens);
  EXPECT_FALSE(v.snapshots[0].restorable.has_value()) << "only the newest is checked for restore";
  EXPECT_EQ(v.snapshots[1].path, PruneVerifyJobRel() + "/chk-3");
  ASSERT_TRUE(v.snapshots[1].restorable.has_value());
  EXPECT_TRUE(*v.snapshots[1].restorable);
  EXPECT_EQ(v.restore_checked, std::vector<std::string>{PruneVerifyJobRel() + "/chk-3"});
}

TEST(PruneVerifyTest, ANewestCheckpointThatNoLongerRestoresIsCorruptionNamingIt) {
  TempDir tmp;
  const std::string root = WriteVerifyRoot(tmp);
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(fs, root, VerifyingOptions(1)));
  // A wrong plan: it also deletes a shared file the retained chk-3 references.
  plan.steps.push_back(
      {PruneAction::kRemoveFile, PruneVerifyJobRel() + "/shared/count-1-0.state", "wrong", 0, {}});
  PruneVerification v;
  base::Status st = ExecutePrune(fs, plan, {}, nullptr, &v);
  ASSERT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("chk-3"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("count-1-0.state"), std::string::npos) << st.message();
  EXPECT_FALSE(v.ok());
  ASSERT_EQ(v.snapshots.size(), 1u);
  EXPECT_TRUE(v.snapshots[0].opens);
  EXPECT_EQ(v.snapshots[0].restorable, std::optional<bool>(false));
}

TEST(PruneVerifyTest, AKeptSnapshotThatNoLongerOpensFailsTheCheck) {
  TempDir tmp;
  const std::string root = WriteVerifyRoot(tmp);
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(fs, root, VerifyingOptions(2)));
  plan.steps.push_back(
      {PruneAction::kRemoveFile, PruneVerifyJobRel() + "/chk-2/_metadata", "wrong", 0, {}});
  PruneVerification v;
  base::Status st = ExecutePrune(fs, plan, {}, nullptr, &v);
  ASSERT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.message().find("chk-2"), std::string::npos) << st.message();
  ASSERT_EQ(v.snapshots.size(), 2u);
  EXPECT_FALSE(v.snapshots[0].opens);
  EXPECT_FALSE(v.snapshots[0].problem.empty());
  EXPECT_TRUE(v.snapshots[1].opens);
  EXPECT_EQ(v.snapshots[1].restorable, std::optional<bool>(true));
}

TEST(PruneVerifyTest, WithoutVerifyOutputNothingIsChecked) {
  TempDir tmp;
  const std::string root = WriteVerifyRoot(tmp);
  base::Fs& fs = base::Fs::Default();
  PruneOptions options = VerifyingOptions(1);
  options.verify_output = false;
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(fs, root, options));
  plan.steps.push_back(
      {PruneAction::kRemoveFile, PruneVerifyJobRel() + "/shared/count-1-0.state", "wrong", 0, {}});
  PruneVerification v;
  ASSERT_OK(ExecutePrune(fs, plan, {}, nullptr, &v));
  EXPECT_TRUE(v.snapshots.empty());
  // VerifyPrune on its own still sees the damage.
  ASSERT_OK_AND_ASSIGN(PruneVerification later, VerifyPrune(fs, plan));
  EXPECT_FALSE(later.ok());
}

TEST(PruneVerifyCliTest, YesVerifyReportsWhatWasChecked) {
  TempDir tmp;
  WriteVerifyRoot(tmp);
  for (const std::string f : {"text", "json"}) {
    SCOPED_TRACE(f);
    TempDir run_dir;
    testing::CopyTree(tmp.Sub("root"), run_dir.Sub("root"));
    auto run = testing::RunTool({"prune", "root", "--keep-last", "2", "--yes", "--verify", "-q",
                                 "--format", f},
                                run_dir.path());
    EXPECT_EQ(run.exit_code, 0) << run.err;
    testing::ExpectGolden("prune-yes-verify." + f, run.out);
  }
  auto usage = testing::RunTool({"prune", "root", "--verify"}, tmp.path());
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_NE(usage.err.find("--yes"), std::string::npos) << usage.err;
}

}  // namespace
}  // namespace ckpt::ops
