// Tests of the heap keyed backend (engine/src/state/keyed_state_backend.cpp and handles):
// semantics of each state kind, namespaces, key-group ownership, registration rules.
#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_backend.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ckpt/engine/record.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::engine {
namespace {

namespace types = format::types;
using format::Value;

constexpr uint32_t kKeyedMaxP = 128;

int64_t AsInt(const Value* v) { return std::get<int64_t>(v->v); }

TEST(KeyedStateBackendTest, ValueStateIsPerKey) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, kKeyedMaxP - 1}, "t");
  ASSERT_OK_AND_ASSIGN(ValueState s, b.GetValueState(ValueStateDescriptor("sum", types::Int64())));
  for (int64_t k = 0; k < 100; ++k) {
    ASSERT_OK(b.SetCurrentKey(Value(k)));
    EXPECT_EQ(s.Get(), nullptr);
    ASSERT_OK(s.Update(Value(k * 10)));
  }
  for (int64_t k = 0; k < 100; ++k) {
    ASSERT_OK(b.SetCurrentKey(Value(k)));
    ASSERT_NE(s.Get(), nullptr);
    EXPECT_EQ(AsInt(s.Get()), k * 10);
  }
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{7})));
  ASSERT_OK(s.Clear());
  EXPECT_EQ(s.Get(), nullptr);
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{8})));
  EXPECT_EQ(AsInt(s.Get()), 80);
  EXPECT_EQ(b.NumEntries(), 99u);
}

TEST(KeyedStateBackendTest, NamespacesAreSeparate) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, kKeyedMaxP - 1}, "t");
  ASSERT_OK_AND_ASSIGN(ValueState s, b.GetValueState(ValueStateDescriptor(
                                         "v", types::Int64(), {}, types::Int64())));
  ASSERT_OK(b.SetCurrentKey(Value("k")));
  ASSERT_OK_AND_ASSIGN(std::string ns1, format::EncodeValue(types::Int64(), Value(int64_t{1})));
  ASSERT_OK_AND_ASSIGN(std::string ns2, format::EncodeValue(types::Int64(), Value(int64_t{2})));
  b.SetCurrentNamespace(ns1);
  ASSERT_OK(s.Update(Value(int64_t{11})));
  b.SetCurrentNamespace(ns2);
  EXPECT_EQ(s.Get(), nullptr);
  ASSERT_OK(s.Update(Value(int64_t{22})));
  b.SetCurrentNamespace(ns1);
  EXPECT_EQ(AsInt(s.Get()), 11);
}

TEST(KeyedStateBackendTest, ListStateAddUpdateClear) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, kKeyedMaxP - 1}, "t");
  ASSERT_OK_AND_ASSIGN(ListState s, b.GetListState(ListStateDescriptor("l", types::String())));
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{1})));
  EXPECT_EQ(s.Get(), nullptr);
  ASSERT_OK(s.Add(Value("a")));
  ASSERT_OK(s.Add(Value("b")));
  ASSERT_NE(s.Get(), nullptr);
  EXPECT_EQ(*s.Get(), (std::vector<Value>{Value("a"), Value("b")}));
  ASSERT_OK(s.Update({Value("z")}));
  EXPECT_EQ(*s.Get(), (std::vector<Value>{Value("z")}));
  ASSERT_OK(s.Update({}));
  EXPECT_EQ(s.Get(), nullptr);
}

TEST(KeyedStateBackendTest, MapStatePutGetRemoveIterateInByteOrder) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, kKeyedMaxP - 1}, "t");
  ASSERT_OK_AND_ASSIGN(MapState s,
                       b.GetMapState(MapStateDescriptor("m", types::String(), types::Int64())));
  ASSERT_OK(b.SetCurrentKey(Value("user")));
  EXPECT_TRUE(s.IsEmpty());
  ASSERT_OK(s.Put(Value("b"), Value(int64_t{2})));
  ASSERT_OK(s.Put(Value("a"), Value(int64_t{1})));
  ASSERT_OK(s.Put(Value("b"), Value(int64_t{3})));
  EXPECT_EQ(s.Size(), 2u);
  EXPECT_EQ(AsInt(s.Get(Value("b"))), 3);
  EXPECT_TRUE(s.Contains(Value("a")));
  EXPECT_FALSE(s.Contains(Value(int64_t{5})));  // wrong type: simply absent
  std::vector<std::string> keys;
  s.ForEach([&](const Value& k, const Value&) {
    keys.push_back(std::get<std::string>(k.v));
    return true;
  });
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b"}));
  ASSERT_STATUS(s.Put(Value(int64_t{1}), Value(int64_t{1})), kInvalidArgument, "user key");
  ASSERT_OK(s.Remove(Value("a")));
  ASSERT_OK(s.Remove(Value("a")));
  EXPECT_EQ(s.Size(), 1u);
  ASSERT_OK(s.Remove(Value("b")));
  EXPECT_TRUE(s.IsEmpty());
  EXPECT_EQ(b.NumEntries(), 0u);
}

TEST(KeyedStateBackendTest, ReducingAndAggregatingState) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, kKeyedMaxP - 1}, "t");
  ASSERT_OK_AND_ASSIGN(
      ReducingState sum,
      b.GetReducingState(ReducingStateDescriptor("sum", types::Int64()),
                         [](Value& acc, const Value& in) {
                           std::get<int64_t>(acc.v) += std::get<int64_t>(in.v);
                         }));
  AggregateFunction avg;
  avg.create_accumulator = [] {
    return Value(format::Tuple{{Value(int64_t{0}), Value(int64_t{0})}});
  };
  avg.add = [](Value& acc, const Value& in) {
    auto& f = std::get<format::Tuple>(acc.v).fields;
    std::get<int64_t>(f[0].v) += std::get<int64_t>(in.v);
    std::get<int64_t>(f[1].v) += 1;
  };
  avg.get_result = [](const Value& acc) {
    const auto& f = std::get<format::Tuple>(acc.v).fields;
    return Value(static_cast<double>(std::get<int64_t>(f[0].v)) /
                 static_cast<double>(std::get<int64_t>(f[1].v)));
  };
  ASSERT_OK_AND_ASSIGN(AggregatingState mean,
                       b.GetAggregatingState(AggregatingStateDescriptor(
                                                 "avg", types::Tuple({types::Int64(), types::Int64()})),
                                             avg));
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{3})));
  EXPECT_EQ(sum.Get(), nullptr);
  EXPECT_FALSE(mean.Get().has_value());
  for (int64_t v : {1, 2, 3, 6}) {
    ASSERT_OK(sum.Add(Value(v)));
    ASSERT_OK(mean.Add(Value(v)));
  }
  EXPECT_EQ(AsInt(sum.Get()), 12);
  EXPECT_EQ(std::get<double>(mean.Get()->v), 3.0);
  ASSERT_OK(sum.Clear());
  EXPECT_EQ(sum.Get(), nullptr);
}

TEST(KeyedStateBackendTest, RejectsKeyOfAnotherSubtask) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, 9}, "op (1/13)");
  ASSERT_OK_AND_ASSIGN(ValueState s, b.GetValueState(ValueStateDescriptor("v", types::Int64())));
  // Find a key whose group is outside [0, 9].
  int64_t k = 0;
  std::string enc;
  for (;; ++k) {
    enc.clear();
    ASSERT_OK(EncodeRecordKey(Value(k), &enc));
    if (KeyGroupOfEncodedKey(enc, kKeyedMaxP) > 9) break;
  }
  ASSERT_STATUS(b.SetCurrentKey(Value(k)), kFailedPrecondition, "op (1/13)");
  EXPECT_EQ(s.Get(), nullptr);
  ASSERT_STATUS(s.Update(Value(int64_t{1})), kFailedPrecondition, "not in this subtask's range");
}

TEST(KeyedStateBackendTest, RegistrationIsIdempotentAndChecked) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, kKeyedMaxP - 1}, "t");
  ASSERT_OK_AND_ASSIGN(ValueState a, b.GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(ValueState again, b.GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK(b.SetCurrentKey(Value(int64_t{1})));
  ASSERT_OK(a.Update(Value(int64_t{5})));
  EXPECT_EQ(AsInt(again.Get()), 5);
  ASSERT_STATUS(b.GetValueState(ValueStateDescriptor("v", types::String())), kFailedPrecondition,
                "value type was int64");
  ASSERT_STATUS(b.GetListState(ValueStateDescriptor("w", types::Int64())), kInvalidArgument,
                "expected STATE_LIST");
  ASSERT_STATUS(b.GetListState(ListStateDescriptor("v", types::Int64())), kFailedPrecondition,
                "STATE_VALUE");
}

TEST(KeyedStateBackendTest, ManyInsertsAndErasesKeepEveryOtherKey) {
  HeapKeyedStateBackend b(kKeyedMaxP, {0, kKeyedMaxP - 1}, "t");
  ASSERT_OK_AND_ASSIGN(ValueState s, b.GetValueState(ValueStateDescriptor("v", types::Int64())));
  constexpr int64_t kKeys = 20000;
  for (int64_t k = 0; k < kKeys; ++k) {
    ASSERT_OK(b.SetCurrentKey(Value(k)));
    ASSERT_OK(s.Update(Value(k)));
  }
  for (int64_t k = 0; k < kKeys; k += 2) {
    ASSERT_OK(b.SetCurrentKey(Value(k)));
    ASSERT_OK(s.Clear());
  }
  EXPECT_EQ(b.NumEntries(), static_cast<uint64_t>(kKeys / 2));
  for (int64_t k = 0; k < kKeys; ++k) {
    ASSERT_OK(b.SetCurrentKey(Value(k)));
    if (k % 2 == 0) {
      ASSERT_EQ(s.Get(), nullptr) << k;
    } else {
      ASSERT_NE(s.Get(), nullptr) << k;
      ASSERT_EQ(AsInt(s.Get()), k);
    }
  }
}

}  // namespace
}  // namespace ckpt::engine
