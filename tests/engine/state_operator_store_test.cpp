// Tests of the operator state store (engine/src/state/operator_state_store.cpp and handles):
// split/union list state, broadcast state, registration rules, restore adoption.
#include "ckpt/engine/state/operator_state_store.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/engine/state/operator_state_snapshot.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::engine {
namespace {

using format::Value;
namespace types = format::types;

TEST(OperatorStateStoreTest, ListStateAddUpdateClear) {
  OperatorStateStore store("src (1/2)");
  ASSERT_OK_AND_ASSIGN(OperatorListState l,
                       store.GetListState(OperatorListStateDescriptor("pos", types::Int64())));
  EXPECT_TRUE(l.Get().empty());
  l.Add(Value(int64_t{1}));
  l.Add(Value(int64_t{2}));
  EXPECT_EQ(l.Get(), (std::vector<Value>{Value(int64_t{1}), Value(int64_t{2})}));
  l.Update({Value(int64_t{7})});
  EXPECT_EQ(l.Get(), std::vector<Value>{Value(int64_t{7})});
  l.Clear();
  EXPECT_TRUE(l.Get().empty());
}

TEST(OperatorStateStoreTest, BroadcastStateIsAnOrderedMap) {
  OperatorStateStore store("rules (1/1)");
  ASSERT_OK_AND_ASSIGN(BroadcastState b, store.GetBroadcastState(BroadcastStateDescriptor(
                                             "rules", types::String(), types::Int64())));
  ASSERT_OK(b.Put(Value("b"), Value(int64_t{2})));
  ASSERT_OK(b.Put(Value("a"), Value(int64_t{1})));
  ASSERT_OK(b.Put(Value("a"), Value(int64_t{3})));
  EXPECT_EQ(b.Size(), 2u);
  EXPECT_EQ(std::get<int64_t>(b.Get(Value("a"))->v), 3);
  EXPECT_EQ(b.Get(Value("zz")), nullptr);
  ASSERT_STATUS(b.Put(Value(int64_t{1}), Value(int64_t{1})), kInvalidArgument, "rules");
  std::vector<std::string> keys;
  b.ForEach([&](const Value& k, const Value&) {
    keys.push_back(std::get<std::string>(k.v));
    return true;
  });
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b"}));
  b.Remove(Value("a"));
  EXPECT_EQ(b.Size(), 1u);
  b.Clear();
  EXPECT_EQ(b.Size(), 0u);
}

TEST(OperatorStateStoreTest, RegistrationChecksKindAndTypes) {
  OperatorStateStore store("op");
  ASSERT_OK(store.GetListState(OperatorListStateDescriptor("s", types::Int64())).status());
  ASSERT_STATUS(store.GetUnionListState(OperatorListStateDescriptor("u", types::Int64())),
                kInvalidArgument, "expected STATE_OPERATOR_UNION");
  ASSERT_STATUS(store.GetUnionListState(UnionListStateDescriptor("s", types::Int64())),
                kFailedPrecondition, "STATE_OPERATOR_LIST");
  ASSERT_STATUS(store.GetListState(OperatorListStateDescriptor("s", types::String())),
                kFailedPrecondition, "value type was int64");
  ASSERT_STATUS(store.GetListState(ValueStateDescriptor("k", types::Int64())), kInvalidArgument,
                "STATE_VALUE");
  EXPECT_EQ(store.StateNames(), std::vector<std::string>{"s"});
}

TEST(OperatorStateStoreTest, RestoredStateIsAdoptedOnRegistration) {
  OperatorStateStore store("src");
  ASSERT_OK(store.RestoreListState(OperatorListStateDescriptor("pos", types::Int64()),
                                   {Value(int64_t{4}), Value(int64_t{9})}));
  ASSERT_OK(store.RestoreBroadcastState(
      BroadcastStateDescriptor("cfg", types::String(), types::String()),
      {{Value("mode"), Value("fast")}}));
  ASSERT_OK_AND_ASSIGN(OperatorListState l,
                       store.GetListState(OperatorListStateDescriptor("pos", types::Int64())));
  EXPECT_EQ(l.Get().size(), 2u);
  ASSERT_OK_AND_ASSIGN(BroadcastState b, store.GetBroadcastState(BroadcastStateDescriptor(
                                             "cfg", types::String(), types::String())));
  EXPECT_EQ(std::get<std::string>(b.Get(Value("mode"))->v), "fast");
  // A snapshot carries restored states even if the operator never touched them again.
  auto snap = store.Snapshot();
  ASSERT_EQ(snap->states().size(), 2u);
  EXPECT_EQ(snap->NumEntries(0), 2u);
  EXPECT_EQ(snap->NumEntries(1), 1u);
}

TEST(OperatorStateStoreTest, SnapshotEncodesEntriesInOrder) {
  OperatorStateStore store("src");
  ASSERT_OK_AND_ASSIGN(OperatorListState l,
                       store.GetListState(OperatorListStateDescriptor("pos", types::String())));
  l.Add(Value("x"));
  l.Add(Value("y"));
  l.Add(Value(int64_t{3}));  // wrong type: caught when the snapshot is encoded
  auto snap = store.Snapshot();
  std::vector<std::string> seen;
  ASSERT_STATUS(snap->ForEachRecord(0,
                                    [&](const format::OperatorRecord& r) {
                                      EXPECT_TRUE(r.key.empty());
                                      auto v = format::DecodeValueExact(types::String(), r.value);
                                      EXPECT_TRUE(v.ok());
                                      seen.push_back(std::get<std::string>(v->v));
                                      return base::Status::OK();
                                    }),
                kInvalidArgument, "operator state 'pos'");
  EXPECT_EQ(seen, (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace ckpt::engine
