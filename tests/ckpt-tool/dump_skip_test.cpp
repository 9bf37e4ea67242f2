// Tests of DumpOptions::skip_keyed_entries (ops/src/read/dump.cpp): the inspector's state
// browser reads a page of a large key group by passing over the entries before it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/ops/dump.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;

std::vector<std::string> Keys(const Snapshot& s, const DumpOptions& options) {
  std::vector<std::string> keys;
  auto n = Dump(base::Fs::Default(), s, options, [&](const DumpEntry& e) {
    keys.push_back(e.key_json + "=" + e.value_json);
    return base::Status::OK();
  });
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  return keys;
}

TEST(DumpSkipTest, SkippedEntriesAreTheFirstOnesOfTheSameOrder) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  DumpOptions all;
  all.operator_ref = "per-user-aggregate";
  all.state = "spend-by-category";
  const std::vector<std::string> every = Keys(s, all);
  ASSERT_EQ(every.size(), 48u);
  for (uint64_t skip : {uint64_t{0}, uint64_t{1}, uint64_t{17}, uint64_t{47}, uint64_t{48}, uint64_t{100}}) {
    DumpOptions page = all;
    page.skip_keyed_entries = skip;
    const std::vector<std::string> rest = Keys(s, page);
    const size_t from = std::min<size_t>(skip, every.size());
    EXPECT_EQ(rest, std::vector<std::string>(every.begin() + static_cast<std::ptrdiff_t>(from), every.end()))
        << "skip " << skip;
  }
}

TEST(DumpSkipTest, SkipAppliesWithinOneKeyGroup) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  DumpOptions one;
  one.operator_ref = "per-user-aggregate";
  one.state = "spend-by-category";
  std::optional<uint32_t> group;
  ASSERT_TRUE(Dump(base::Fs::Default(), s, one, [&](const DumpEntry& e) {
    if (!group) group = e.key_group;
    return base::Status::OK();
  }).ok());
  ASSERT_TRUE(group.has_value());
  one.key_group = group;
  const std::vector<std::string> in_group = Keys(s, one);
  ASSERT_GE(in_group.size(), 2u);
  one.skip_keyed_entries = 1;
  const std::vector<std::string> rest = Keys(s, one);
  EXPECT_EQ(rest, std::vector<std::string>(in_group.begin() + 1, in_group.end()));
}

}  // namespace
}  // namespace ckpt::ops
