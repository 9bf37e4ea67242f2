// ls (ListRoot) and prune (PlanPrune) see the same snapshots: both use
// format::DiscoverSnapshots (issue 9, defect 10).
#include <gtest/gtest.h>

#include <set>

#include "ckpt/ops/ls.h"
#include "ckpt/ops/prune.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::ops {
namespace {

std::set<std::string> LsPaths(const std::string& root) {
  std::set<std::string> out;
  auto jobs = ListRoot(base::Fs::Default(), root);
  EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
  if (!jobs.ok()) return out;
  for (const auto& job : *jobs) {
    for (const auto& s : job.snapshots) out.insert(s.path);
  }
  return out;
}

std::set<std::string> PrunePaths(const std::string& root) {
  std::set<std::string> out;
  PruneOptions options;
  options.keep_last = 100;  // a plan that deletes nothing; only what it sees matters
  auto plan = PlanPrune(base::Fs::Default(), root, options);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  if (!plan.ok()) return out;
  for (const auto& s : plan->snapshots) out.insert(s.path);
  return out;
}

TEST(DiscoveryTest, LsAndPruneSeeTheSameSnapshots) {
  for (const char* rel : {"v1", "v1/checkpoints", "engine-v1", "engine-v1/checkpoints"}) {
    const std::string root = testing::FixturePath(rel);
    const auto ls = LsPaths(root);
    EXPECT_FALSE(ls.empty()) << rel;
    EXPECT_EQ(ls, PrunePaths(root)) << rel;
  }
  EXPECT_EQ(LsPaths(testing::FixturePath("v1")).size(), 4u);  // chk-1, chk-2, chk-5, savepoint
}

TEST(DiscoveryTest, LsCountsCorruptSnapshots) {
  ASSERT_OK_AND_ASSIGN(auto jobs, ListRoot(base::Fs::Default(), testing::FixturePath("corrupt")));
  EXPECT_GE(CorruptCount(jobs), 5u);
  ASSERT_OK_AND_ASSIGN(auto clean, ListRoot(base::Fs::Default(), testing::FixturePath("v1")));
  EXPECT_EQ(CorruptCount(clean), 0u);
}

}  // namespace
}  // namespace ckpt::ops
