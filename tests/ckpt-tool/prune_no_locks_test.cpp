// prune on a filesystem without locks (Fs::SupportsLocks false, as an object store): the plan
// (dry run) notes that whether a job runs cannot be told; executing it is refused with
// FailedPrecondition and deletes nothing, instead of taking "no lock" for "no job running".
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/ops/prune.h"
#include "ckpt/testing/forwarding_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ops_write_testutil.h"

namespace ckpt::ops {
namespace {

namespace opsw = testing::opsw;

// The POSIX filesystem with its locks hidden: TryLockFile is Unimplemented (ForwardingFs does
// not forward it) and SupportsLocks says so.
class PruneNoLocksFs final : public testing::ForwardingFs {};

// Claims locks but has none: TryLockFile still Unimplemented.
class PruneClaimsLocksFs final : public testing::ForwardingFs {
 public:
  bool SupportsLocks() const override { return true; }
};

// Every path below `root`, sorted: what a prune must leave untouched.
std::vector<std::string> PruneNoLocksTree(const std::string& root) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// chk-1..chk-4 of the counter job: with --keep-last 1, chk-1..chk-3 would go.
std::string PruneNoLocksRoot(const testing::TempDir& tmp) {
  const std::string root = tmp.Sub("root");
  const std::string job = opsw::CounterJobDir(root);
  for (int64_t id = 1; id <= 4; ++id) EXPECT_OK(opsw::WriteCounterCheckpoint(job, id));
  return root;
}

PruneOptions PruneNoLocksOptions() {
  PruneOptions o;
  o.keep_last = 1;
  o.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count() +
             2 * 3600 * 1000;
  return o;
}

TEST(PruneNoLocksTest, DryRunNotesThatLivenessIsUnknown) {
  testing::TempDir tmp;
  const std::string root = PruneNoLocksRoot(tmp);
  PruneNoLocksFs fs;
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(fs, root, PruneNoLocksOptions()));
  EXPECT_FALSE(plan.steps.empty());
  const bool noted = std::any_of(plan.notes.begin(), plan.notes.end(), [](const std::string& n) {
    return n.find("cannot tell whether job") != std::string::npos &&
           n.find("no file locks") != std::string::npos;
  });
  EXPECT_TRUE(noted) << (plan.notes.empty() ? "no notes" : plan.notes[0]);
}

TEST(PruneNoLocksTest, ExecuteRefusesAndDeletesNothing) {
  testing::TempDir tmp;
  const std::string root = PruneNoLocksRoot(tmp);
  PruneNoLocksFs no_locks;
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(no_locks, root, PruneNoLocksOptions()));
  ASSERT_FALSE(plan.steps.empty());
  const std::vector<std::string> before = PruneNoLocksTree(root);
  base::FaultInjectionFs counted(no_locks);  // counts every mutating call that gets through
  size_t done = 7;
  ASSERT_STATUS(ExecutePrune(counted, plan, {}, &done), kFailedPrecondition, "no file locks");
  EXPECT_EQ(done, 0u);
  EXPECT_EQ(counted.operations(), 0);
  EXPECT_EQ(PruneNoLocksTree(root), before);
  // The same plan on the real filesystem (which has locks) runs.
  ASSERT_OK(ExecutePrune(base::Fs::Default(), plan));
  EXPECT_NE(PruneNoLocksTree(root), before);
}

TEST(PruneNoLocksTest, AnFsClaimingLocksWithoutThemIsRefusedToo) {
  testing::TempDir tmp;
  const std::string root = PruneNoLocksRoot(tmp);
  PruneClaimsLocksFs fs;
  ASSERT_OK_AND_ASSIGN(PrunePlan plan, PlanPrune(fs, root, PruneNoLocksOptions()));
  ASSERT_FALSE(plan.steps.empty());
  const std::vector<std::string> before = PruneNoLocksTree(root);
  ASSERT_STATUS(ExecutePrune(fs, plan), kFailedPrecondition, "running engine cannot be ruled out");
  EXPECT_EQ(PruneNoLocksTree(root), before);
}

}  // namespace
}  // namespace ckpt::ops
