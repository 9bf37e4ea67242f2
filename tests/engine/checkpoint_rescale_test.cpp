// Snapshot -> restore round trips through the coordinator and the restore plan
// (engine/src/checkpoint/{operator_snapshot,restore_plan,restore_state}.cpp): keyed state,
// timers and operator state at the same and at a different parallelism.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "checkpoint_test_support.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::Id;
using testing::MakeGraph;
namespace types = format::types;

constexpr uint32_t kRescaleMaxP = 128;
constexpr int64_t kKeys = 1000;

// "prefix" + number, built with append: GCC 12 at -O3 warns falsely (-Wrestrict) on
// `"literal" + std::to_string(n)`.
std::string Cat(const char* prefix, int64_t n, const char* suffix = "") {
  std::string s(prefix);
  s.append(std::to_string(n)).append(suffix);
  return s;
}

uint32_t GroupOf(int64_t key) {
  std::string enc;
  EXPECT_OK(EncodeRecordKey(Value(key), &enc));
  return KeyGroupOfEncodedKey(enc, kRescaleMaxP);
}

// The state one subtask of the "sum" operator holds.
struct Subtask {
  std::unique_ptr<KeyedStateBackend> keyed;
  std::unique_ptr<OperatorStateStore> ops;
};

Subtask MakeSubtask(uint32_t p, uint32_t i) {
  Subtask s;
  s.keyed = std::make_unique<HeapKeyedStateBackend>(
      kRescaleMaxP, format::RangeForSubtask(kRescaleMaxP, p, i),
      Cat("sum (", i + 1, "/").append(Cat("", p, ")")));
  s.ops = std::make_unique<OperatorStateStore>("sum");
  return s;
}

class CheckpointRescaleTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  // Runs p=4 subtasks, fills state, takes checkpoint 1 through the coordinator.
  std::string TakeSnapshot() {
    testing::FakeRuntime runtime;
    ManualClock clock;
    CheckpointCoordinatorOptions o;
    o.job_id = testing::JobId();
    o.job_name = "rescale";
    o.job_graph = MakeGraph({{"sum", "Keyed Sum", 4, kRescaleMaxP}});
    o.checkpoint_dir = dir_.Sub("chk");
    auto coordinator = CheckpointCoordinator::Create(fs_, clock, runtime, o);
    EXPECT_TRUE(coordinator.ok());
    std::vector<Subtask> subtasks;
    for (uint32_t i = 0; i < 4; ++i) subtasks.push_back(MakeSubtask(4, i));
    for (int64_t k = 0; k < kKeys; ++k) {
      Subtask& s = subtasks[format::SubtaskForKeyGroup(kRescaleMaxP, 4, GroupOf(k))];
      EXPECT_OK(s.keyed->SetCurrentKey(Value(k)));
      auto v = s.keyed->GetValueState(ValueStateDescriptor("sum", types::Int64()));
      EXPECT_OK(v->Update(Value(k * 2)));
      auto l = s.keyed->GetListState(ListStateDescriptor("seen", types::String()));
      EXPECT_OK(l->Add(Value(Cat("a", k))));
      if (k % 10 == 0) EXPECT_OK(s.keyed->timer_service()->RegisterEventTimeTimer(k));
    }
    for (uint32_t i = 0; i < 4; ++i) {
      auto list = subtasks[i].ops->GetListState(OperatorListStateDescriptor("split", types::String()));
      for (int j = 0; j < 3; ++j) list->Add(Value(Cat("s", i, "-").append(std::to_string(j))));
      auto uni = subtasks[i].ops->GetUnionListState(UnionListStateDescriptor("union", types::Int64()));
      uni->Add(Value(static_cast<int64_t>(i)));
      auto bc = subtasks[i].ops->GetBroadcastState(
          BroadcastStateDescriptor("rules", types::String(), types::Int64()));
      EXPECT_OK(bc->Put(Value("limit"), Value(int64_t{42})));
    }
    auto id = (*coordinator)->TriggerCheckpoint();
    EXPECT_TRUE(id.ok());
    const CheckpointOptions options = runtime.injected.at(0);
    for (uint32_t i = 0; i < 4; ++i) {
      pb::SinkCommittable c;
      c.set_pending_path(Cat("/out/.part-sum-", i, "-0.inprogress"));
      c.set_final_path(Cat("/out/part-sum-", i, "-0"));
      auto st = testing::SnapshotSubtask(fs_, options, "sum", i, subtasks[i].keyed.get(),
                                         subtasks[i].ops.get(), {c});
      EXPECT_TRUE(st.ok()) << st.status().ToString();
      (*coordinator)->AcknowledgeCheckpoint(*id, std::move(*st), {});
    }
    EXPECT_EQ(runtime.completed, std::vector<int64_t>{1});
    testing::ReadBackVerified(fs_, options.snapshot_dir);
    return options.snapshot_dir;
  }

  base::Fs& fs_ = base::Fs::Default();
  ckpt::testing::TempDir dir_;
};

TEST_P(CheckpointRescaleTest, EveryKeyRestoredExactlyOnceInItsSubtask) {
  const uint32_t p = GetParam();
  const std::string snapshot = TakeSnapshot();
  ASSERT_OK_AND_ASSIGN(
      auto plan,
      RestorePlan::Create(fs_, snapshot, MakeGraph({{"sum", "Keyed Sum", p, kRescaleMaxP}}), {}));
  std::vector<Subtask> restored;
  for (uint32_t i = 0; i < p; ++i) {
    restored.push_back(MakeSubtask(p, i));
    ASSERT_OK(plan->RestoreKeyedState(Id("sum"), restored[i].keyed.get()));
    ASSERT_OK(plan->RestoreOperatorState(Id("sum"), i, p, restored[i].ops.get()));
  }
  uint64_t entries = 0;
  size_t timers = 0;
  for (auto& s : restored) {
    entries += s.keyed->NumEntries();
    timers += s.keyed->timer_service()->NumEventTimers();
  }
  EXPECT_EQ(entries, 2 * kKeys + kKeys / 10);  // value + list per key, plus the timers
  EXPECT_EQ(timers, static_cast<size_t>(kKeys / 10));
  for (int64_t k = 0; k < kKeys; ++k) {
    const uint32_t owner = format::SubtaskForKeyGroup(kRescaleMaxP, p, GroupOf(k));
    Subtask& s = restored[owner];
    ASSERT_OK(s.keyed->SetCurrentKey(Value(k)));
    ASSERT_OK_AND_ASSIGN(ValueState v,
                         s.keyed->GetValueState(ValueStateDescriptor("sum", types::Int64())));
    ASSERT_NE(v.Get(), nullptr) << "key " << k;
    EXPECT_EQ(std::get<int64_t>(v.Get()->v), k * 2);
    ASSERT_OK_AND_ASSIGN(ListState l,
                         s.keyed->GetListState(ListStateDescriptor("seen", types::String())));
    ASSERT_NE(l.Get(), nullptr);
    EXPECT_EQ(*l.Get(), std::vector<Value>{Value(Cat("a", k))});
  }
  // Timers fire in the subtask owning their key.
  for (uint32_t i = 0; i < p; ++i) {
    ASSERT_OK(restored[i].keyed->timer_service()->AdvanceWatermark(kKeys, [&](const Timer& t) {
      EXPECT_EQ(format::SubtaskForKeyGroup(kRescaleMaxP, p, restored[i].keyed->current_key_group()),
                i);
      EXPECT_EQ(std::get<int64_t>(restored[i].keyed->current_key().v), t.timestamp);
      return base::Status::OK();
    }));
  }

  // Split list state: every entry exactly once; unchanged parallelism keeps each subtask's own.
  std::multiset<std::string> split;
  for (uint32_t i = 0; i < p; ++i) {
    ASSERT_OK_AND_ASSIGN(auto list, restored[i].ops->GetListState(
                                        OperatorListStateDescriptor("split", types::String())));
    for (const auto& v : list.Get()) {
      const std::string& s = std::get<std::string>(v.v);
      split.insert(s);
      if (p == 4) {
        EXPECT_EQ(s.substr(0, 2), Cat("s", i));
      }
    }
    EXPECT_LE(list.Get().size(), (12 + p - 1) / p);
    ASSERT_OK_AND_ASSIGN(auto uni, restored[i].ops->GetUnionListState(
                                       UnionListStateDescriptor("union", types::Int64())));
    EXPECT_EQ(uni.Get().size(), 4u);
    ASSERT_OK_AND_ASSIGN(auto bc, restored[i].ops->GetBroadcastState(BroadcastStateDescriptor(
                                      "rules", types::String(), types::Int64())));
    ASSERT_NE(bc.Get(Value("limit")), nullptr);
    EXPECT_EQ(std::get<int64_t>(bc.Get(Value("limit"))->v), 42);
  }
  EXPECT_EQ(split.size(), 12u);
  EXPECT_EQ(std::set<std::string>(split.begin(), split.end()).size(), 12u);

  // Committables: each old subtask's pending file goes to exactly one new subtask.
  std::multiset<std::string> pending;
  for (uint32_t i = 0; i < p; ++i) {
    for (const auto& c : plan->Committables(Id("sum"), i, p)) pending.insert(c.pending_path());
  }
  EXPECT_EQ(pending.size(), 4u);
  EXPECT_EQ(std::set<std::string>(pending.begin(), pending.end()).size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(Parallelism, CheckpointRescaleTest, ::testing::Values(4u, 2u, 7u, 1u));

}  // namespace
}  // namespace ckpt::engine
