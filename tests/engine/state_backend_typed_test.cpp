// The shared keyed-state-backend suite (typed tests): every backend (heap, RocksDB) must pass the
// same semantics of each state kind, iteration, key-group ranges, snapshot isolation, restore
// and rescale, through the KeyedStateBackend interface only.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/state/keyed_handle_files.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

namespace types = format::types;
using format::Value;

constexpr uint32_t kTypedMaxP = 128;

struct HeapBackend {
  static StateBackendConfig Config(const std::string&) { return {}; }
};

template <typename B>
class StateBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<KeyedStateBackend> Make(format::KeyGroupRange range = {0, kTypedMaxP - 1},
                                          uint32_t subtask = 0) {
    auto b = CreateKeyedStateBackend(B::Config(tmp_.Sub("local")), kTypedMaxP, range, "t", "op",
                                     subtask);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    return b.ok() ? std::move(*b) : nullptr;
  }

  // Snapshots `backends` (old subtasks) into one checkpoint directory with `options` and returns
  // the metadata an operator restore reads.
  pb::CheckpointMetadata SnapshotAll(const std::vector<KeyedStateBackend*>& backends,
                                     CheckpointOptions options, const std::string& dir) {
    pb::CheckpointMetadata md;
    EXPECT_OK(base::Fs::Default().CreateDirs(dir));
    options.snapshot_dir = dir;
    pb::OperatorState* os = md.add_operators();
    os->set_operator_id(format::OperatorId::FromUid("op").ToBytes());
    os->set_parallelism(static_cast<uint32_t>(backends.size()));
    os->set_max_parallelism(kTypedMaxP);
    for (uint32_t i = 0; i < backends.size(); ++i) {
      auto snap = TakeOperatorSnapshot(options, format::OperatorId::FromUid("op"), i, backends[i],
                                       nullptr, {});
      EXPECT_OK(snap.status());
      if (!snap.ok()) return md;
      auto st = WriteOperatorSnapshot(base::Fs::Default(), options, *snap);
      EXPECT_OK(st.status());
      if (!st.ok()) return md;
      if (i == 0) {
        for (const auto& d : st->states) *os->add_states() = d;
      }
      const uint32_t base = static_cast<uint32_t>(md.files_size());
      for (const auto& f : st->files) *md.add_files() = f;
      pb::SubtaskState sub = st->subtask;
      for (pb::KeyedStateHandle& h : *sub.mutable_keyed_state()) {
        EXPECT_OK(RebaseKeyedHandleFiles(
            &h, [base](uint32_t index) -> base::Result<uint32_t> { return index + base; }));
      }
      *os->add_subtasks() = std::move(sub);
    }
    return md;
  }

  base::Status RestoreInto(KeyedStateBackend* b, const pb::CheckpointMetadata& md,
                           const std::string& dir) {
    KeyedRestoreSource src;
    src.fs = &base::Fs::Default();
    src.snapshot_dir = dir;
    src.metadata = &md;
    src.operator_state = &md.operators(0);
    return b->Restore(src);
  }

  static CheckpointOptions Checkpoint(int64_t id) {
    CheckpointOptions o;
    o.checkpoint_id = id;
    return o;
  }
  static CheckpointOptions CanonicalSavepoint(int64_t id) {
    CheckpointOptions o;
    o.checkpoint_id = id;
    o.kind = pb::SAVEPOINT;
    o.savepoint_format = pb::CANONICAL;
    o.post_action = pb::POST_ACTION_NONE;
    return o;
  }

  // Every record of every key group, rendered "state|key|ns|user key|value" (hex-free bytes).
  static std::vector<std::string> Dump(const KeyedStateSnapshot& s) {
    std::vector<std::string> out;
    const format::KeyGroupRange r = s.key_group_range();
    for (uint32_t g = r.start; g <= r.end; ++g) {
      EXPECT_OK(s.ForEachRecord(g, [&](const format::KeyedRecord& rec) {
        out.push_back(std::to_string(g) + "|" + s.states()[rec.state_index].name() + "|" +
                      std::string(rec.key) + "|" + std::string(rec.ns) + "|" +
                      std::string(rec.user_key) + "|" + std::string(rec.value));
        return base::Status::OK();
      }));
    }
    return out;
  }

  ckpt::testing::TempDir tmp_;
};

int64_t Int64Of(const Value* v) { return std::get<int64_t>(v->v); }

// Fills value "count", list "seen", map "by-parity", reducing "sum" and aggregating "avg" for
// keys [0, n) plus one event-time timer per key.
struct TypedHandles {
  ValueState count;
  ListState seen;
  MapState by_parity;
  ReducingState sum;
  AggregatingState max;
};

base::Result<TypedHandles> RegisterTyped(KeyedStateBackend* b) {
  TypedHandles h;
  CKPT_ASSIGN_OR_RETURN(h.count, b->GetValueState(ValueStateDescriptor("count", types::Int64())));
  CKPT_ASSIGN_OR_RETURN(h.seen, b->GetListState(ListStateDescriptor("seen", types::String())));
  CKPT_ASSIGN_OR_RETURN(h.by_parity, b->GetMapState(MapStateDescriptor(
                                         "by-parity", types::String(), types::Int64())));
  CKPT_ASSIGN_OR_RETURN(
      h.sum, b->GetReducingState(ReducingStateDescriptor("sum", types::Int64()),
                                 [](Value& acc, const Value& in) {
                                   acc = Value(std::get<int64_t>(acc.v) + std::get<int64_t>(in.v));
                                 }));
  AggregateFunction f;
  f.create_accumulator = [] { return Value(int64_t{-1}); };
  f.add = [](Value& acc, const Value& in) {
    acc = Value(std::max(std::get<int64_t>(acc.v), std::get<int64_t>(in.v)));
  };
  f.get_result = [](const Value& acc) { return Value(std::get<int64_t>(acc.v) * 2); };
  CKPT_ASSIGN_OR_RETURN(h.max,
                        b->GetAggregatingState(AggregatingStateDescriptor("max", types::Int64()), f));
  return h;
}

base::Status Fill(KeyedStateBackend* b, TypedHandles& h, int64_t n, int64_t salt = 0) {
  for (int64_t k = 0; k < n; ++k) {
    std::string encoded;
    CKPT_RETURN_IF_ERROR(EncodeRecordKey(Value(k), &encoded));
    const uint32_t g = KeyGroupOfEncodedKey(encoded, kTypedMaxP);
    if (!b->key_group_range().Contains(g)) continue;
    b->SetCurrentKey(Value(k), encoded, g);
    CKPT_RETURN_IF_ERROR(h.count.Update(Value(k + salt)));
    CKPT_RETURN_IF_ERROR(h.seen.Add(Value("a" + std::to_string(k))));
    CKPT_RETURN_IF_ERROR(h.seen.Add(Value("b" + std::to_string(k))));
    CKPT_RETURN_IF_ERROR(h.by_parity.Put(Value(k % 2 == 0 ? "even" : "odd"), Value(k)));
    CKPT_RETURN_IF_ERROR(h.by_parity.Put(Value("all"), Value(k + 1)));
    CKPT_RETURN_IF_ERROR(h.sum.Add(Value(k)));
    CKPT_RETURN_IF_ERROR(h.sum.Add(Value(int64_t{1})));
    CKPT_RETURN_IF_ERROR(h.max.Add(Value(k)));
    CKPT_RETURN_IF_ERROR(b->timer_service()->RegisterEventTimeTimer(1000 + k));
  }
  return base::Status::OK();
}

// Checks what Fill(n, salt) wrote, for the keys `b` owns; returns how many keys it checked.
int64_t Check(KeyedStateBackend* b, TypedHandles& h, int64_t n, int64_t salt = 0) {
  int64_t checked = 0;
  for (int64_t k = 0; k < n; ++k) {
    std::string encoded;
    EXPECT_OK(EncodeRecordKey(Value(k), &encoded));
    const uint32_t g = KeyGroupOfEncodedKey(encoded, kTypedMaxP);
    if (!b->key_group_range().Contains(g)) continue;
    b->SetCurrentKey(Value(k), encoded, g);
    ++checked;
    EXPECT_NE(h.count.Get(), nullptr) << k;
    if (h.count.Get() == nullptr) continue;
    EXPECT_EQ(Int64Of(h.count.Get()), k + salt);
    const std::vector<Value>* seen = h.seen.Get();
    EXPECT_NE(seen, nullptr);
    if (seen != nullptr) {
      EXPECT_EQ(*seen, (std::vector<Value>{Value("a" + std::to_string(k)),
                                           Value("b" + std::to_string(k))}));
    }
    EXPECT_EQ(h.by_parity.Size(), 2u);
    EXPECT_EQ(Int64Of(h.by_parity.Get(Value("all"))), k + 1);
    EXPECT_EQ(Int64Of(h.sum.Get()), k + 1);
    EXPECT_EQ(std::get<int64_t>(h.max.Get()->v), 2 * k);
  }
  return checked;
}

struct RocksDbFullBackend {
  static StateBackendConfig Config(const std::string& local) {
    StateBackendConfig c;
    c.kind = StateBackendKind::kRocksDb;
    c.local_dir = local;
    return c;
  }
};
struct RocksDbIncrementalBackend {
  static StateBackendConfig Config(const std::string& local) {
    StateBackendConfig c = RocksDbFullBackend::Config(local);
    c.incremental = true;
    return c;
  }
};

// The changelog backend over heap and over RocksDB (its snapshots here are materializations).
struct ChangelogHeapBackend {
  static StateBackendConfig Config(const std::string&) {
    StateBackendConfig c;
    c.changelog = true;
    return c;
  }
};
struct ChangelogRocksDbBackend {
  static StateBackendConfig Config(const std::string& local) {
    StateBackendConfig c = RocksDbIncrementalBackend::Config(local);
    c.changelog = true;
    return c;
  }
};

using Backends = ::testing::Types<HeapBackend, RocksDbFullBackend, RocksDbIncrementalBackend,
                                  ChangelogHeapBackend, ChangelogRocksDbBackend>;
TYPED_TEST_SUITE(StateBackendTest, Backends);

TYPED_TEST(StateBackendTest, ValueStateIsPerKeyAndNamespace) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(ValueState s, b->GetValueState(ValueStateDescriptor(
                                         "v", types::Int64(), {}, types::Int64())));
  ASSERT_OK_AND_ASSIGN(std::string ns1, format::EncodeValue(types::Int64(), Value(int64_t{1})));
  ASSERT_OK_AND_ASSIGN(std::string ns2, format::EncodeValue(types::Int64(), Value(int64_t{2})));
  for (int64_t k = 0; k < 50; ++k) {
    ASSERT_OK(b->SetCurrentKey(Value(k)));
    b->SetCurrentNamespace(ns1);
    EXPECT_EQ(s.Get(), nullptr);
    ASSERT_OK(s.Update(Value(k)));
    b->SetCurrentNamespace(ns2);
    ASSERT_OK(s.Update(Value(k * 100)));
  }
  ASSERT_OK(b->SetCurrentKey(Value(int64_t{7})));
  b->SetCurrentNamespace(ns1);
  EXPECT_EQ(Int64Of(s.Get()), 7);
  ASSERT_OK(s.Clear());
  EXPECT_EQ(s.Get(), nullptr);
  b->SetCurrentNamespace(ns2);
  EXPECT_EQ(Int64Of(s.Get()), 700);
  EXPECT_EQ(b->NumEntries(), 99u);
}

TYPED_TEST(StateBackendTest, AddInt64IsOneReadModifyWrite) {
  auto b = this->Make({0, 63});
  ASSERT_OK_AND_ASSIGN(ValueState s, b->GetValueState(ValueStateDescriptor("sum", types::Int64())));
  std::map<int64_t, int64_t> expected;
  int refused = 0;
  for (int64_t i = 0; i < 600; ++i) {
    const int64_t k = i % 120;
    std::string encoded;
    ASSERT_OK(EncodeRecordKey(Value(k), &encoded));
    const uint32_t g = KeyGroupOfEncodedKey(encoded, kTypedMaxP);
    b->SetCurrentKey(Value(k), encoded, g);
    if (g >= 64) {
      ++refused;
      ASSERT_STATUS(s.AddInt64(i).status(), kFailedPrecondition, "key group");
      continue;
    }
    ASSERT_OK_AND_ASSIGN(int64_t sum, s.AddInt64(i - 300));
    expected[k] += i - 300;
    EXPECT_EQ(sum, expected[k]) << "key " << k;
    EXPECT_EQ(Int64Of(s.Get()), expected[k]) << "key " << k;
  }
  EXPECT_GT(refused, 0);
  // Copy-on-write: a snapshot keeps the sums it saw while later adds go on.
  auto snap = b->Snapshot();
  const std::vector<std::string> before = this->Dump(*snap);
  for (const auto& [k, sum] : expected) {
    ASSERT_OK(b->SetCurrentKey(Value(k)));
    ASSERT_OK_AND_ASSIGN(int64_t now, s.AddInt64(1));
    EXPECT_EQ(now, sum + 1);
  }
  EXPECT_EQ(this->Dump(*snap), before);
  // Cleared: the next add starts from its delta.
  ASSERT_OK(b->SetCurrentKey(Value(expected.begin()->first)));
  ASSERT_OK(s.Clear());
  ASSERT_OK_AND_ASSIGN(int64_t fresh, s.AddInt64(5));
  EXPECT_EQ(fresh, 5);
}

TYPED_TEST(StateBackendTest, ListStateAddUpdateClear) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(ListState l, b->GetListState(ListStateDescriptor("l", types::Int64())));
  ASSERT_OK(b->SetCurrentKey(Value("k")));
  EXPECT_EQ(l.Get(), nullptr);
  ASSERT_OK(l.Add(Value(int64_t{1})));
  ASSERT_OK(l.Add(Value(int64_t{2})));
  EXPECT_EQ(*l.Get(), (std::vector<Value>{Value(int64_t{1}), Value(int64_t{2})}));
  ASSERT_OK(l.Update({Value(int64_t{9})}));
  EXPECT_EQ(*l.Get(), (std::vector<Value>{Value(int64_t{9})}));
  ASSERT_OK(l.Update({}));
  EXPECT_EQ(l.Get(), nullptr);
  ASSERT_OK(l.Add(Value(int64_t{3})));
  ASSERT_OK(l.Clear());
  EXPECT_EQ(l.Get(), nullptr);
}

TYPED_TEST(StateBackendTest, MapStateIteratesInUserKeyByteOrder) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(MapState m, b->GetMapState(MapStateDescriptor("m", types::String(),
                                                                     types::Int64())));
  ASSERT_OK(b->SetCurrentKey(Value("k1")));
  EXPECT_TRUE(m.IsEmpty());
  for (const char* uk : {"c", "a", "b", "a"}) ASSERT_OK(m.Put(Value(uk), Value(int64_t{uk[0]})));
  EXPECT_EQ(m.Size(), 3u);
  EXPECT_TRUE(m.Contains(Value("b")));
  EXPECT_FALSE(m.Contains(Value("z")));
  EXPECT_EQ(m.Get(Value(int64_t{1})), nullptr);  // wrong user-key type: absent
  EXPECT_FALSE(m.Put(Value(int64_t{1}), Value(int64_t{1})).ok());
  std::vector<std::string> order;
  m.ForEach([&](const Value& k, const Value&) {
    order.push_back(std::get<std::string>(k.v));
    return true;
  });
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_OK(m.Remove(Value("b")));
  ASSERT_OK(m.Remove(Value("zz")));
  EXPECT_EQ(m.Size(), 2u);
  ASSERT_OK(b->SetCurrentKey(Value("k2")));
  EXPECT_TRUE(m.IsEmpty());
  ASSERT_OK(m.Put(Value("x"), Value(int64_t{1})));
  ASSERT_OK(b->SetCurrentKey(Value("k1")));
  ASSERT_OK(m.Clear());
  EXPECT_TRUE(m.IsEmpty());
  ASSERT_OK(b->SetCurrentKey(Value("k2")));
  EXPECT_EQ(m.Size(), 1u);
}

TYPED_TEST(StateBackendTest, ReducingAndAggregatingFold) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(TypedHandles h, RegisterTyped(b.get()));
  ASSERT_OK(b->SetCurrentKey(Value("k")));
  EXPECT_EQ(h.sum.Get(), nullptr);
  EXPECT_FALSE(h.max.Get().has_value());
  for (int64_t v : {5, 3, 9}) {
    ASSERT_OK(h.sum.Add(Value(v)));
    ASSERT_OK(h.max.Add(Value(v)));
  }
  EXPECT_EQ(Int64Of(h.sum.Get()), 17);
  EXPECT_EQ(Int64Of(h.max.GetAccumulator()), 9);
  EXPECT_EQ(std::get<int64_t>(h.max.Get()->v), 18);
  ASSERT_OK(h.sum.Clear());
  ASSERT_OK(h.max.Clear());
  EXPECT_EQ(h.sum.Get(), nullptr);
  EXPECT_EQ(h.max.GetAccumulator(), nullptr);
}

TYPED_TEST(StateBackendTest, KeyGroupsOutsideTheRangeAreRefused) {
  auto b = this->Make({0, 63});
  ASSERT_OK_AND_ASSIGN(ValueState s, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  int refused = 0;
  for (int64_t k = 0; k < 200; ++k) {
    std::string encoded;
    ASSERT_OK(EncodeRecordKey(Value(k), &encoded));
    const uint32_t g = KeyGroupOfEncodedKey(encoded, kTypedMaxP);
    b->SetCurrentKey(Value(k), encoded, g);
    if (g < 64) {
      ASSERT_OK(s.Update(Value(k)));
    } else {
      ++refused;
      ASSERT_STATUS(s.Update(Value(k)), kFailedPrecondition, "key group");
      EXPECT_EQ(s.Get(), nullptr);
    }
  }
  EXPECT_GT(refused, 0);
  // The snapshot holds only owned key groups, in canonical order within each.
  auto snap = b->Snapshot();
  EXPECT_EQ(snap->key_group_range().start, 0u);
  EXPECT_EQ(snap->key_group_range().end, 63u);
  EXPECT_EQ(snap->NumEntries(), static_cast<uint64_t>(200 - refused));
  ASSERT_STATUS(snap->ForEachRecord(64, [](const format::KeyedRecord&) {
    return base::Status::OK();
  }), kInvalidArgument, "");
  for (uint32_t g = 0; g < 64; ++g) {
    std::string last;
    ASSERT_OK(snap->ForEachRecord(g, [&](const format::KeyedRecord& r) {
      EXPECT_LT(last, std::string(r.key));
      last = std::string(r.key);
      return base::Status::OK();
    }));
  }
}

TYPED_TEST(StateBackendTest, SnapshotIsIsolatedFromLaterWrites) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(TypedHandles h, RegisterTyped(b.get()));
  ASSERT_OK(Fill(b.get(), h, 100));
  auto snap = b->Snapshot();
  const std::vector<std::string> before = this->Dump(*snap);
  const uint64_t entries = snap->NumEntries();
  ASSERT_OK(Fill(b.get(), h, 150, 7));  // overwrite and add
  ASSERT_OK(b->SetCurrentKey(Value(int64_t{3})));
  ASSERT_OK(h.by_parity.Clear());
  EXPECT_EQ(this->Dump(*snap), before);
  EXPECT_EQ(snap->NumEntries(), entries);
  // 5 records per key (value, list, 2 map entries, reducing, aggregating) + 1 timer.
  EXPECT_EQ(entries, 100u * 7u);
}

TYPED_TEST(StateBackendTest, CheckpointRestoresExactly) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(TypedHandles h, RegisterTyped(b.get()));
  ASSERT_OK(Fill(b.get(), h, 300));
  const std::vector<std::string> expected = this->Dump(*b->Snapshot());
  const std::string dir = this->tmp_.Sub("job/chk-1");
  pb::CheckpointMetadata md = this->SnapshotAll({b.get()}, this->Checkpoint(1), dir);
  ASSERT_EQ(md.operators(0).subtasks_size(), 1);

  auto restored = this->Make();
  ASSERT_OK(this->RestoreInto(restored.get(), md, dir));
  ASSERT_OK_AND_ASSIGN(TypedHandles h2, RegisterTyped(restored.get()));
  EXPECT_EQ(Check(restored.get(), h2, 300), 300);
  EXPECT_EQ(restored->timer_service()->NumEventTimers(), 300u);
  EXPECT_EQ(this->Dump(*restored->Snapshot()), expected);
}

// A subtask that has seen no key yet records its states with the placeholder key type (bytes).
// Restoring that must not fix the key type to bytes: the keys that arrive later are int64, and
// the next checkpoint must record them (and their timers) as int64, or it cannot be restored.
TYPED_TEST(StateBackendTest, KeyTypeIsLearntAfterRestoringASnapshotThatSawNoKey) {
  auto idle = this->Make();
  ASSERT_OK(RegisterTyped(idle.get()).status());
  const std::string dir1 = this->tmp_.Sub("job/chk-1");
  pb::CheckpointMetadata md1 = this->SnapshotAll({idle.get()}, this->Checkpoint(1), dir1);

  auto resumed = this->Make();
  ASSERT_OK(this->RestoreInto(resumed.get(), md1, dir1));
  ASSERT_OK_AND_ASSIGN(TypedHandles h1, RegisterTyped(resumed.get()));
  ASSERT_OK(Fill(resumed.get(), h1, 40));
  const std::string dir2 = this->tmp_.Sub("job/chk-2");
  pb::CheckpointMetadata md2 = this->SnapshotAll({resumed.get()}, this->Checkpoint(2), dir2);
  for (const pb::StateDescriptor& d : md2.operators(0).states()) {
    EXPECT_EQ(d.key_type().kind(), pb::TypeDescriptor::INT64) << d.name();
  }

  auto again = this->Make();
  ASSERT_OK(this->RestoreInto(again.get(), md2, dir2));
  ASSERT_OK_AND_ASSIGN(TypedHandles h2, RegisterTyped(again.get()));
  EXPECT_EQ(Check(again.get(), h2, 40), 40);
  EXPECT_EQ(again->timer_service()->NumEventTimers(), 40u);
}

TYPED_TEST(StateBackendTest, CanonicalSavepointRestoresIntoEveryBackend) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(TypedHandles h, RegisterTyped(b.get()));
  ASSERT_OK(Fill(b.get(), h, 120));
  const std::string dir = this->tmp_.Sub("sp/savepoint-1");
  pb::CheckpointMetadata md = this->SnapshotAll({b.get()}, this->CanonicalSavepoint(1), dir);
  for (const auto& f : md.files()) EXPECT_EQ(f.kind(), pb::KEYED_STATE) << f.path();
  const std::vector<std::string> expected = this->Dump(*b->Snapshot());
  for (StateBackendKind kind : {StateBackendKind::kHeap, StateBackendKind::kRocksDb}) {
    StateBackendConfig config;
    config.kind = kind;
    config.local_dir = this->tmp_.Sub("other");
    auto other = CreateKeyedStateBackend(config, kTypedMaxP, {0, kTypedMaxP - 1}, "o", "op", 0);
    ASSERT_OK(other.status());
    ASSERT_OK(this->RestoreInto(other->get(), md, dir));
    ASSERT_OK_AND_ASSIGN(TypedHandles h2, RegisterTyped(other->get()));
    EXPECT_EQ(Check(other->get(), h2, 120), 120);
    EXPECT_EQ(this->Dump(*(*other)->Snapshot()), expected) << StateBackendKindName(kind);
  }
}

TYPED_TEST(StateBackendTest, RescaleTwoToThreeAndBack) {
  const format::KeyGroupRange r0 = format::RangeForSubtask(kTypedMaxP, 2, 0);
  const format::KeyGroupRange r1 = format::RangeForSubtask(kTypedMaxP, 2, 1);
  auto a = this->Make(r0, 0);
  auto c = this->Make(r1, 1);
  ASSERT_OK_AND_ASSIGN(TypedHandles ha, RegisterTyped(a.get()));
  ASSERT_OK_AND_ASSIGN(TypedHandles hc, RegisterTyped(c.get()));
  ASSERT_OK(Fill(a.get(), ha, 400));
  ASSERT_OK(Fill(c.get(), hc, 400));
  const std::string dir = this->tmp_.Sub("job/chk-2");
  pb::CheckpointMetadata md = this->SnapshotAll({a.get(), c.get()}, this->Checkpoint(2), dir);

  int64_t total = 0;
  uint64_t timers = 0;
  std::vector<std::unique_ptr<KeyedStateBackend>> three;
  for (uint32_t i = 0; i < 3; ++i) {
    three.push_back(this->Make(format::RangeForSubtask(kTypedMaxP, 3, i), i));
    ASSERT_OK(this->RestoreInto(three.back().get(), md, dir));
    ASSERT_OK_AND_ASSIGN(TypedHandles h, RegisterTyped(three.back().get()));
    total += Check(three.back().get(), h, 400);
    timers += three.back()->timer_service()->NumEventTimers();
    // Nothing of another subtask's key groups survived the restore.
    auto snap = three.back()->Snapshot();
    EXPECT_EQ(snap->NumEntries(), static_cast<uint64_t>(Check(three.back().get(), h, 400)) * 7u);
  }
  EXPECT_EQ(total, 400);
  EXPECT_EQ(timers, 400u);

  // 3 -> 1: everything comes back together.
  const std::string dir2 = this->tmp_.Sub("job/chk-3");
  pb::CheckpointMetadata md2 = this->SnapshotAll({three[0].get(), three[1].get(), three[2].get()},
                                                 this->Checkpoint(3), dir2);
  auto one = this->Make();
  ASSERT_OK(this->RestoreInto(one.get(), md2, dir2));
  ASSERT_OK_AND_ASSIGN(TypedHandles h1, RegisterTyped(one.get()));
  EXPECT_EQ(Check(one.get(), h1, 400), 400);
  EXPECT_EQ(one->NumEntries(), 400u * 7u);
}

TYPED_TEST(StateBackendTest, RestoreChecksMaxParallelism) {
  auto b = this->Make();
  ASSERT_OK_AND_ASSIGN(TypedHandles h, RegisterTyped(b.get()));
  ASSERT_OK(Fill(b.get(), h, 10));
  const std::string dir = this->tmp_.Sub("job/chk-4");
  pb::CheckpointMetadata md = this->SnapshotAll({b.get()}, this->Checkpoint(4), dir);
  md.mutable_operators(0)->set_max_parallelism(256);
  auto r = this->Make();
  ASSERT_STATUS(this->RestoreInto(r.get(), md, dir), kInvalidArgument, "max parallelism");
}

}  // namespace
}  // namespace ckpt::engine
