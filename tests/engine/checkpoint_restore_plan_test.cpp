// Tests of the strict restore rules (engine/src/checkpoint/restore_plan.cpp): unmapped state,
// --allow-non-restored-state, max parallelism mismatch, native RocksDB state for a heap job,
// claim mode, coordinator state.
#include "ckpt/engine/checkpoint/restore_plan.h"

#include <gtest/gtest.h>

#include <string>

#include "checkpoint_test_support.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"
#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

using format::Value;
using testing::Id;
using testing::MakeGraph;
namespace types = format::types;

class RestorePlanTest : public ::testing::Test {
 protected:
  // Savepoint of src (operator state, coordinator state) -> sum (keyed, maxP 128) -> sink
  // (stateless).
  void SetUp() override {
    ManualClock clock;
    runtime_.coordinators.push_back({Id("src"), "split-assignment"});
    CheckpointCoordinatorOptions o;
    o.job_id = testing::JobId();
    o.job_graph = Graph(128);
    o.savepoint_dir = dir_.Sub("sp");
    auto c = CheckpointCoordinator::Create(fs_, clock, runtime_, o);
    ASSERT_TRUE(c.ok());
    auto future = (*c)->TriggerSavepoint("");
    const CheckpointOptions options = runtime_.injected.at(0);
    OperatorStateStore src("src");
    auto list = src.GetListState(OperatorListStateDescriptor("pos", types::Int64()));
    list->Add(Value(int64_t{5}));
    ASSERT_OK_AND_ASSIGN(auto s1, testing::SnapshotSubtask(fs_, options, "src", 0, nullptr, &src));
    (*c)->AcknowledgeCheckpoint(options.checkpoint_id, std::move(s1), {});
    HeapKeyedStateBackend sum(128, {0, 127}, "sum");
    ASSERT_OK(sum.SetCurrentKey(Value("k")));
    ASSERT_OK(sum.GetValueState(ValueStateDescriptor("total", types::Int64()))->Update(Value(int64_t{9})));
    ASSERT_OK_AND_ASSIGN(auto s2, testing::SnapshotSubtask(fs_, options, "sum", 0, &sum, nullptr));
    (*c)->AcknowledgeCheckpoint(options.checkpoint_id, std::move(s2), {});
    testing::AckEmpty(**c, options.checkpoint_id, "sink", 0);
    ASSERT_OK_AND_ASSIGN(CompletedCheckpoint done, future.get());
    savepoint_ = done.dir;
  }
  static pb::JobGraph Graph(uint32_t sum_max_p, bool with_sum = true, bool with_src = true) {
    std::vector<testing::OpDef> ops;
    if (with_src) ops.push_back({"src", "Sequence Source", 1, 128});
    if (with_sum) ops.push_back({"sum", "Keyed Sum", 1, sum_max_p});
    ops.push_back({"sink", "File Sink", 1, 128});
    return MakeGraph(ops);
  }

  base::Fs& fs_ = base::Fs::Default();
  ckpt::testing::TempDir dir_;
  testing::FakeRuntime runtime_;
  std::string savepoint_;
};

TEST_F(RestorePlanTest, UnmappedStateFailsListingEveryOperator) {
  auto plan = RestorePlan::Create(fs_, savepoint_, Graph(128, false, false), {});
  ASSERT_STATUS(plan, kInvalidArgument, "2 operator(s)");
  const std::string msg = plan.status().message();
  for (const std::string& needle :
       {std::string("'Keyed Sum' (uid 'sum', id ") + Id("sum").ToHex() + ")",
        std::string("'Sequence Source' (uid 'src', id ") + Id("src").ToHex() + ")",
        std::string("--allow-non-restored-state (-n)"), savepoint_}) {
    EXPECT_NE(msg.find(needle), std::string::npos) << "missing '" << needle << "' in " << msg;
  }
  // The stateless sink is not mentioned.
  EXPECT_EQ(msg.find("File Sink"), std::string::npos);
  // One line, and a refusal no restart can fix.
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_TRUE(RestorePlan::IsRestoreRefusal(plan.status())) << msg;
}

// The savepoint with the keyed sum's handle replaced by a native RocksDB one (`in_changelog`: as
// the materialized base of a changelog handle).
std::string WithNativeRocksDbHandle(const std::string& savepoint, const std::string& dir,
                                    bool in_changelog) {
  base::Fs& fs = base::Fs::Default();
  base::Result<pb::CheckpointMetadata> md =
      format::ReadMetadataFile(fs, base::JoinPath(savepoint, "_metadata"));
  EXPECT_OK(md.status());
  if (!md.ok()) return "";
  for (pb::OperatorState& op : *md->mutable_operators()) {
    if (op.operator_id() != Id("sum").ToBytes()) continue;
    pb::KeyedStateHandle* h = op.mutable_subtasks(0)->mutable_keyed_state(0);
    pb::KeyedStateHandle native;
    native.mutable_rocksdb()->set_key_group_end(127);
    if (in_changelog) {
      *h->mutable_changelog()->add_materialized() = native;
    } else {
      *h = native;
    }
  }
  EXPECT_OK(fs.CreateDirs(dir));
  EXPECT_OK(format::WriteMetadataFile(fs, dir, *md));
  return dir;
}

TEST_F(RestorePlanTest, NativeRocksDbStateForAHeapJobIsRefusedNamingTheOperator) {
  for (bool in_changelog : {false, true}) {
    SCOPED_TRACE(in_changelog ? "changelog over RocksDB" : "RocksDB");
    const std::string native = WithNativeRocksDbHandle(
        savepoint_, dir_.Sub(in_changelog ? "native-changelog" : "native"), in_changelog);
    RestoreOptions heap;
    heap.keyed_backend = StateBackendKind::kHeap;
    auto plan = RestorePlan::Create(fs_, native, Graph(128), heap);
    ASSERT_STATUS(plan, kInvalidArgument, "operator 'Keyed Sum' (uid 'sum'");
    const std::string msg = plan.status().message();
    EXPECT_NE(msg.find("RocksDB's native format"), std::string::npos) << msg;
    EXPECT_NE(msg.find("state backend is heap"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--state-backend rocksdb"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(RestorePlan::IsRestoreRefusal(plan.status())) << msg;
    // The rocksdb backend takes it; without a backend named nothing is checked.
    RestoreOptions rocksdb;
    rocksdb.keyed_backend = StateBackendKind::kRocksDb;
    EXPECT_OK(RestorePlan::Create(fs_, native, Graph(128), rocksdb).status());
    EXPECT_OK(RestorePlan::Create(fs_, native, Graph(128), {}).status());
  }
  // Canonical keyed state restores into either backend.
  RestoreOptions heap;
  heap.keyed_backend = StateBackendKind::kHeap;
  EXPECT_OK(RestorePlan::Create(fs_, savepoint_, Graph(128), heap).status());
}

TEST_F(RestorePlanTest, AllowNonRestoredStateSkipsIt) {
  RestoreOptions opts;
  opts.allow_non_restored_state = true;
  ASSERT_OK_AND_ASSIGN(auto plan, RestorePlan::Create(fs_, savepoint_, Graph(128, false), opts));
  EXPECT_EQ(plan->non_restored_operators(), std::vector<std::string>{Id("sum").ToHex()});
  EXPECT_FALSE(plan->HasState(Id("sum")));
  EXPECT_TRUE(plan->HasState(Id("src")));
  EXPECT_TRUE(plan->restore_info().allow_non_restored_state());
}

TEST_F(RestorePlanTest, MaxParallelismMismatchNamesTheOperator) {
  ASSERT_STATUS(RestorePlan::Create(fs_, savepoint_, Graph(256), {}), kInvalidArgument,
                "operator 'Keyed Sum' (uid 'sum'");
  auto plan = RestorePlan::Create(fs_, savepoint_, Graph(256), {});
  EXPECT_NE(plan.status().message().find("max parallelism 256"), std::string::npos);
  EXPECT_NE(plan.status().message().find("128"), std::string::npos);
  EXPECT_TRUE(RestorePlan::IsRestoreRefusal(plan.status())) << plan.status().ToString();
  // Other errors (a missing snapshot) are not refusals.
  EXPECT_FALSE(RestorePlan::IsRestoreRefusal(
      RestorePlan::Create(fs_, dir_.Sub("none"), Graph(128), {}).status()));
}

TEST_F(RestorePlanTest, RestoresFromMetadataPathWithClaimInfoAndCoordinatorState) {
  RestoreOptions opts;
  opts.claim_mode = pb::CLAIM;
  ASSERT_OK_AND_ASSIGN(auto plan, RestorePlan::Create(fs_, savepoint_ + "/_metadata", Graph(128),
                                                      opts));
  EXPECT_EQ(plan->snapshot_dir(), savepoint_);
  EXPECT_EQ(plan->restore_info().claim_mode(), pb::CLAIM);
  EXPECT_EQ(plan->restore_info().kind(), pb::SAVEPOINT);
  EXPECT_TRUE(plan->AsCompletedCheckpoint().owned);
  ASSERT_OK_AND_ASSIGN(auto coordinator, plan->CoordinatorState(Id("src")));
  ASSERT_TRUE(coordinator.has_value());
  EXPECT_EQ(*coordinator, "split-assignment");
  ASSERT_OK_AND_ASSIGN(auto none, plan->CoordinatorState(Id("sum")));
  EXPECT_FALSE(none.has_value());
  HeapKeyedStateBackend sum(128, {0, 127}, "sum (1/1)");
  ASSERT_OK(plan->RestoreKeyedState(Id("sum"), &sum));
  ASSERT_OK(sum.SetCurrentKey(Value("k")));
  ASSERT_OK_AND_ASSIGN(ValueState total,
                       sum.GetValueState(ValueStateDescriptor("total", types::Int64())));
  ASSERT_NE(total.Get(), nullptr);
  EXPECT_EQ(std::get<int64_t>(total.Get()->v), 9);
  // Re-registering with another type is refused.
  HeapKeyedStateBackend again(128, {0, 127}, "sum (1/1)");
  ASSERT_OK(plan->RestoreKeyedState(Id("sum"), &again));
  ASSERT_STATUS(again.GetValueState(ValueStateDescriptor("total", types::String())),
                kFailedPrecondition, "total");
}

TEST_F(RestorePlanTest, IncompleteSnapshotIsNotFound) {
  ASSERT_OK(fs_.CreateDirs(dir_.Sub("chk-9")));
  ASSERT_STATUS(RestorePlan::Create(fs_, dir_.Sub("chk-9"), Graph(128), {}), kNotFound, "chk-9");
}

TEST_F(RestorePlanTest, CorruptStateFileFailsNamingIt) {
  ASSERT_OK_AND_ASSIGN(auto plan, RestorePlan::Create(fs_, savepoint_, Graph(128), {}));
  const std::string file = savepoint_ + "/" + Id("sum").ToHex() + "-0-keyed.state";
  ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(fs_, file));
  bytes[20] ^= 0x01;  // inside the first block
  ASSERT_OK(base::WriteFileAtomic(fs_, file, bytes));
  HeapKeyedStateBackend sum(128, {0, 127}, "sum");
  ASSERT_STATUS(plan->RestoreKeyedState(Id("sum"), &sum), kCorruption, "keyed.state");
}

}  // namespace
}  // namespace ckpt::engine
