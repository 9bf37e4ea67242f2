// diff: operators paired by ID or (after an ID change) by spec id, state size deltas, files
// shared/added/removed between incremental checkpoints, moved files not counted as differences,
// and DiffKeys' streaming merge (added/removed/changed entries decoded through the types).
#include "ckpt/ops/diff.h"

#include <gtest/gtest.h>

#include "ckpt/ops/relocate.h"
#include "ckpt/ops/remap.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "ops_write_testutil.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::TempDir;
namespace opsw = testing::opsw;

const OperatorDiff* FindOp(const DiffResult& r, const std::string& name) {
  for (const auto& d : r.operators) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::vector<KeyDiff> CollectKeys(const std::string& a, const std::string& b,
                                 KeyDiffSummary* summary) {
  std::vector<KeyDiff> out;
  auto s = DiffKeys(base::Fs::Default(), a, b, [&](const KeyDiff& k) { out.push_back(k); });
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (s.ok()) *summary = *s;
  return out;
}

TEST(DiffTest, ASnapshotEqualsItself) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK_AND_ASSIGN(DiffResult r, Diff(base::Fs::Default(), tmp.Sub("sp"), tmp.Sub("sp")));
  EXPECT_FALSE(r.different);
  EXPECT_EQ(r.files_added + r.files_removed + r.files_changed, 0u);
  EXPECT_GT(r.files_shared, 0u);
  for (const auto& d : r.operators) {
    // Equal metadata and sizes, values not compared by Diff: never "same" (issue 9, defect 7).
    EXPECT_EQ(d.change, DiffChange::kSizeUnchanged) << d.name;
    EXPECT_EQ(d.matched_by, "id");
  }
  // Per-state sizes come from a record scan: the aggregate's states have entries.
  const OperatorDiff* agg = FindOp(r, "Per-user aggregate");
  ASSERT_NE(agg, nullptr);
  ASSERT_FALSE(agg->states.empty());
  uint64_t entries = 0;
  for (const auto& s : agg->states) entries += s.entries_b;
  EXPECT_GT(entries, 0u);
  KeyDiffSummary keys;
  EXPECT_TRUE(CollectKeys(tmp.Sub("sp"), tmp.Sub("sp"), &keys).empty());
  EXPECT_GT(keys.same, 0u);
}

TEST(DiffTest, ARelocatedCopyOnlyMovedFiles) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(Relocate(base::Fs::Default(), tmp.Sub("sp"), tmp.Sub("copy")));
  ASSERT_OK_AND_ASSIGN(DiffResult r, Diff(base::Fs::Default(), tmp.Sub("sp"), tmp.Sub("copy")));
  EXPECT_GT(r.files_added, 0u);
  EXPECT_EQ(r.files_added, r.files_removed);
  EXPECT_FALSE(r.different);
}

TEST(DiffTest, IncrementalCheckpointsShareFiles) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.path());
  for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  ASSERT_OK_AND_ASSIGN(DiffResult r, Diff(base::Fs::Default(), job + "/chk-1", job + "/chk-2"));
  EXPECT_TRUE(r.different);
  bool shared_kept = false;
  for (const auto& f : r.files) {
    if (f.path.find("shared/count-1-0.state") != std::string::npos) {
      shared_kept = f.change == DiffChange::kSame;
    }
    if (f.path.find("shared/count-2-1.state") != std::string::npos) {
      EXPECT_EQ(f.change, DiffChange::kAdded);
    }
    if (f.path.find("shared/count-1-1.state") != std::string::npos) {
      EXPECT_EQ(f.change, DiffChange::kRemoved);
    }
  }
  EXPECT_TRUE(shared_kept);
  EXPECT_EQ(r.files_shared, 1u);
  const OperatorDiff* count = FindOp(r, "Counter");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->change, DiffChange::kSizeUnchanged);  // same sizes; values not compared
}

TEST(DiffTest, PairsAnOperatorWhoseIdChangedBySpecId) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  RemapOptions remap;
  remap.mappings = {{"orders-source", "orders-v2"}};
  ASSERT_OK(Remap(base::Fs::Default(), tmp.Sub("sp"), tmp.Sub("v2"), remap));
  ASSERT_OK_AND_ASSIGN(DiffResult r, Diff(base::Fs::Default(), tmp.Sub("sp"), tmp.Sub("v2")));
  EXPECT_TRUE(r.different);
  const OperatorDiff* src = FindOp(r, "Orders source");
  ASSERT_NE(src, nullptr);
  EXPECT_EQ(src->change, DiffChange::kChanged);
  EXPECT_EQ(src->matched_by, "spec id");
  ASSERT_GE(src->changes.size(), 2u);
  EXPECT_EQ(src->changes[0].rfind("id ", 0), 0u);
  EXPECT_EQ(src->changes[1], "uid orders-source -> orders-v2");
  EXPECT_EQ(FindOp(r, "File sink")->change, DiffChange::kSizeUnchanged);
  // The state moved intact: key by key nothing differs.
  KeyDiffSummary keys;
  EXPECT_TRUE(CollectKeys(tmp.Sub("sp"), tmp.Sub("v2"), &keys).empty());
}

// A state whose size is unchanged but whose values changed is never called "same": Diff says
// size-unchanged, DiffKeys compares and finds the changes (issue 9, defect 7).
TEST(DiffTest, EqualSizesWithChangedValuesAreNeverSame) {
  // Both changelog checkpoints share one materialized base (equal entries and bytes); chk-2's
  // log tail changes four values.
  const std::string job = testing::FixturePath("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801");
  ASSERT_OK_AND_ASSIGN(DiffResult r, Diff(base::Fs::Default(), job + "/chk-1", job + "/chk-2"));
  const OperatorDiff* count = FindOp(r, "count");
  ASSERT_NE(count, nullptr);
  ASSERT_EQ(count->states.size(), 1u);
  EXPECT_EQ(count->states[0].bytes_a, count->states[0].bytes_b);
  EXPECT_EQ(count->states[0].entries_a, count->states[0].entries_b);
  EXPECT_EQ(count->states[0].change, DiffChange::kSizeUnchanged);
  EXPECT_EQ(DiffChangeName(count->states[0].change), "size-unchanged");
  KeyDiffSummary keys;
  CollectKeys(job + "/chk-1", job + "/chk-2", &keys);
  EXPECT_EQ(keys.changed, 4u);
  ASSERT_EQ(keys.states.size(), 1u);
  EXPECT_TRUE(keys.states[0].compared);
  EXPECT_EQ(keys.states[0].state, "count");
  EXPECT_EQ(keys.states[0].changed, 4u);
}

// Changelog checkpoints are compared by their replayed values, not skipped with a note.
TEST(DiffKeysTest, ChangelogCheckpointsCompareReplayedValues) {
  const std::string job = testing::FixturePath("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801");
  KeyDiffSummary s;
  auto keys = CollectKeys(job + "/chk-1", job + "/chk-2", &s);
  EXPECT_TRUE(s.any_compared());
  for (const auto& n : s.notes) EXPECT_EQ(n.find("changelog"), std::string::npos) << n;
  EXPECT_EQ(s.changed, 4u);  // keys 0, 4, 8, 12: +100 in chk-2's log segment
  EXPECT_EQ(s.same, 12u);
  bool key0 = false;
  for (const auto& k : keys) {
    if (k.key_json == "0") {
      key0 = true;
      EXPECT_EQ(k.value_a_json, "11");
      EXPECT_EQ(k.value_b_json, "111");
    }
  }
  EXPECT_TRUE(key0);
  KeyDiffSummary self;
  EXPECT_TRUE(CollectKeys(job + "/chk-2", job + "/chk-2", &self).empty());
  EXPECT_EQ(self.same, 16u);
}

TEST(DiffKeysTest, ReportsChangedValuesDecodedInKeyGroupOrder) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.path());
  for (int64_t id = 1; id <= 4; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  KeyDiffSummary s;
  auto keys = CollectKeys(job + "/chk-1", job + "/chk-4", &s);
  // Values are key*1 in chk-1 and key*4 in chk-4: key 0 is unchanged, 39 keys changed.
  EXPECT_EQ(s.changed, 39u);
  EXPECT_EQ(s.same, 1u);
  EXPECT_EQ(s.added + s.removed, 0u);
  ASSERT_EQ(keys.size(), 39u);
  bool found = false;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(keys[i - 1].key_group, keys[i].key_group);
    }
    EXPECT_EQ(keys[i].state, "count");
    EXPECT_EQ(keys[i].namespace_json, "null");
    if (keys[i].key_json == "5") {
      found = true;
      EXPECT_EQ(keys[i].value_a_json, "5");
      EXPECT_EQ(keys[i].value_b_json, "20");
      EXPECT_EQ(keys[i].change, DiffChange::kChanged);
      EXPECT_EQ(keys[i].operator_name, "Counter");
    }
  }
  EXPECT_TRUE(found);
}

TEST(DiffKeysTest, ReportsAddedAndRemovedKeys) {
  TempDir tmp;
  ASSERT_OK(opsw::WriteCounterCheckpoint(opsw::CounterJobDir(tmp.Sub("a")), 1, 40));
  ASSERT_OK(opsw::WriteCounterCheckpoint(opsw::CounterJobDir(tmp.Sub("b")), 1, 45));
  const std::string a = opsw::CounterJobDir(tmp.Sub("a")) + "/chk-1";
  const std::string b = opsw::CounterJobDir(tmp.Sub("b")) + "/chk-1";
  KeyDiffSummary s;
  auto keys = CollectKeys(a, b, &s);
  EXPECT_EQ(s.added, 5u);
  EXPECT_EQ(s.removed, 0u);
  EXPECT_EQ(s.same, 40u);
  for (const auto& k : keys) {
    EXPECT_EQ(k.change, DiffChange::kAdded);
    EXPECT_TRUE(k.value_a_json.empty());
    int64_t key = std::stoll(k.key_json);
    EXPECT_GE(key, 40);
    EXPECT_EQ(k.value_b_json, std::to_string(key));
  }
  KeyDiffSummary back;
  auto reverse = CollectKeys(b, a, &back);
  EXPECT_EQ(back.removed, 5u);
  ASSERT_FALSE(reverse.empty());
  EXPECT_TRUE(reverse[0].value_b_json.empty());
}

TEST(DiffKeysTest, CorruptStateFileIsAnErrorNamingIt) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.path());
  for (int64_t id = 1; id <= 2; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  testing::FlipByte(job + "/shared/count-2-1.state", 40);
  auto s = DiffKeys(base::Fs::Default(), job + "/chk-1", job + "/chk-2", [](const KeyDiff&) {});
  ASSERT_STATUS(s, kCorruption, "count-2-1.state");
}

TEST(DiffCliTest, TextJsonAndExitCodes) {
  TempDir tmp;
  const std::string job = opsw::CounterJobDir(tmp.Sub("root"));
  for (int64_t id = 1; id <= 4; ++id) ASSERT_OK(opsw::WriteCounterCheckpoint(job, id));
  const std::string rel = "root/" + testing::SampleJobIdHex();
  auto text = testing::RunTool({"diff", rel + "/chk-1", rel + "/chk-2"}, tmp.path());
  EXPECT_EQ(text.exit_code, 1) << text.err;
  testing::ExpectGolden("diff-checkpoints.text", text.out);
  auto keys = testing::RunTool({"diff", rel + "/chk-3", rel + "/chk-4", "--keys", "--format",
                                "json"},
                               tmp.path());
  EXPECT_EQ(keys.exit_code, 1) << keys.err;
  testing::ExpectGolden("diff-checkpoints-keys.json", keys.out);
  auto same = testing::RunTool({"diff", rel + "/chk-2", rel + "/chk-2", "--keys"}, tmp.path());
  EXPECT_EQ(same.exit_code, 0) << same.err;
  auto missing = testing::RunTool({"diff", rel + "/chk-2", rel + "/chk-9"}, tmp.path());
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace ckpt::ops
