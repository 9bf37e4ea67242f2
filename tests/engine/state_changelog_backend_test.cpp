// The changelog backend (engine/src/state/changelog_*.cpp, seed 004): a checkpoint is the last
// materialization plus the log segments since; segments upload only the changes of their
// interval; a materialization truncates the log and the completed-checkpoint store then deletes
// the segments no retained checkpoint references; restore (also after a failure, with an aborted
// checkpoint, rescaled, or with changelog switched off) replays exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/checkpoint/completed_checkpoint_store.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/state/changelog_keyed_state_backend.h"
#include "ckpt/engine/state/keyed_handle_files.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

namespace types = format::types;
using format::Value;

constexpr uint32_t kLogMaxP = 128;

struct LogHandles {
  ValueState v;
  ListState l;
  MapState m;
  ReducingState r;
};

base::Result<LogHandles> RegisterLogStates(KeyedStateBackend* b) {
  CKPT_ASSIGN_OR_RETURN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  CKPT_ASSIGN_OR_RETURN(ListState l, b->GetListState(ListStateDescriptor("l", types::String())));
  CKPT_ASSIGN_OR_RETURN(MapState m,
                        b->GetMapState(MapStateDescriptor("m", types::String(), types::Int64())));
  CKPT_ASSIGN_OR_RETURN(
      ReducingState r,
      b->GetReducingState(ReducingStateDescriptor("r", types::Int64()),
                          [](const Value& a, const Value& c) -> base::Result<Value> {
                            return Value(std::get<int64_t>(a.v) + std::get<int64_t>(c.v));
                          }));
  return LogHandles{std::move(v), std::move(l), std::move(m), std::move(r)};
}

// One interval of changes on keys [from, to): every kind of change, timers included.
base::Status Change(KeyedStateBackend* b, LogHandles& h, int64_t from, int64_t to, int64_t salt) {
  for (int64_t k = from; k < to; ++k) {
    std::string encoded;
    CKPT_RETURN_IF_ERROR(EncodeRecordKey(Value(k), &encoded));
    const uint32_t g = KeyGroupOfEncodedKey(encoded, kLogMaxP);
    if (!b->key_group_range().Contains(g)) continue;
    b->SetCurrentKey(Value(k), encoded, g);
    CKPT_RETURN_IF_ERROR(h.v.Update(Value(k * 100 + salt)));
    CKPT_RETURN_IF_ERROR(h.l.Add(Value("e" + std::to_string(salt))));
    CKPT_RETURN_IF_ERROR(h.m.Put(Value("s" + std::to_string(salt % 3)), Value(salt)));
    if (salt % 2 == 0) CKPT_RETURN_IF_ERROR(h.m.Remove(Value(std::string("s1"))));
    CKPT_RETURN_IF_ERROR(h.r.Add(Value(salt)));
    CKPT_RETURN_IF_ERROR(b->timer_service()->RegisterEventTimeTimer(1000 * salt + k));
    if (salt > 1) CKPT_RETURN_IF_ERROR(b->timer_service()->DeleteEventTimeTimer(1000 * (salt - 1) + k));
    if (k % 7 == 0) CKPT_RETURN_IF_ERROR(h.l.Clear());
  }
  return base::Status::OK();
}

class ChangelogBackendTest : public ::testing::Test {
 protected:
  // Segments are uploaded at checkpoints only unless `upload_interval_ms` or
  // `upload_size_bytes` says otherwise; materializations: the first and forced ones unless
  // `materialization_ms` says otherwise.
  std::unique_ptr<ChangelogKeyedStateBackend> Make(StateBackendKind inner,
                                                   format::KeyGroupRange range = {0, kLogMaxP - 1},
                                                   uint64_t materialization_ms = 24 * 3600 * 1000,
                                                   uint64_t upload_interval_ms = 0,
                                                   uint64_t upload_size_bytes = 0) {
    StateBackendConfig c;
    c.kind = inner;
    c.incremental = inner == StateBackendKind::kRocksDb;
    c.local_dir = tmp_.Sub("local");
    c.changelog = true;
    c.materialization_interval_ms = materialization_ms;
    c.changelog_upload_interval_ms = upload_interval_ms;
    c.changelog_upload_size_bytes = upload_size_bytes;
    auto b = CreateKeyedStateBackend(c, kLogMaxP, range, "t", "op", range.start);
    EXPECT_OK(b.status());
    if (!b.ok()) return nullptr;
    return std::unique_ptr<ChangelogKeyedStateBackend>(
        static_cast<ChangelogKeyedStateBackend*>(b->release()));
  }

  // Checkpoint `id` of `backends` (old subtasks) into job/chk-<id>, `_metadata` published.
  pb::CheckpointMetadata Take(const std::vector<KeyedStateBackend*>& backends, int64_t id) {
    const std::string dir = Dir(id);
    pb::CheckpointMetadata md;
    md.set_format_version(1);
    md.set_engine_name("test");
    md.set_job_id(std::string(16, '\x01'));
    md.set_checkpoint_id(id);
    md.set_kind(pb::CHECKPOINT);
    EXPECT_OK(base::Fs::Default().CreateDirs(dir));
    CheckpointOptions options;
    options.checkpoint_id = id;
    options.snapshot_dir = dir;
    pb::OperatorState* os = md.add_operators();
    os->set_operator_id(format::OperatorId::FromUid("op").ToBytes());
    os->set_parallelism(static_cast<uint32_t>(backends.size()));
    os->set_max_parallelism(kLogMaxP);
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
      pb::SubtaskState sub = st->subtask;
      const int base = md.files_size();
      for (const auto& f : st->files) *md.add_files() = f;
      for (auto& h : *sub.mutable_keyed_state()) {
        const uint32_t shift = static_cast<uint32_t>(base);
        EXPECT_OK(RebaseKeyedHandleFiles(
            &h, [shift](uint32_t index) -> base::Result<uint32_t> { return index + shift; }));
      }
      *os->add_subtasks() = std::move(sub);
    }
    EXPECT_OK(format::WriteMetadataFile(base::Fs::Default(), dir, md));
    return md;
  }

  base::Status RestoreInto(KeyedStateBackend* b, const pb::CheckpointMetadata& md, int64_t id) {
    KeyedRestoreSource src;
    src.fs = &base::Fs::Default();
    src.snapshot_dir = Dir(id);
    src.metadata = &md;
    src.operator_state = &md.operators(0);
    return b->Restore(src);
  }

  std::string Dir(int64_t id) {
    return base::JoinPath(tmp_.Sub("job"), "chk-" + std::to_string(id));
  }

  static std::vector<std::string> Dump(const KeyedStateSnapshot& s) {
    std::vector<std::string> out;
    for (uint32_t g = 0; g < kLogMaxP; ++g) {
      if (!s.key_group_range().Contains(g)) continue;
      EXPECT_OK(s.ForEachRecord(g, [&](const format::KeyedRecord& r) {
        out.push_back(std::to_string(r.state_index) + "|" + std::string(r.key) + "|" +
                      std::string(r.ns) + "|" + std::string(r.user_key) + "|" +
                      std::string(r.value));
        return base::Status::OK();
      }));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::set<std::string> FilesUnder(const std::string& dir) {
    std::set<std::string> out;
    auto entries = base::Fs::Default().ListDir(dir);
    if (!entries.ok()) return out;
    for (const auto& e : *entries) {
      const std::string p = base::JoinPath(dir, e.name);
      if (e.is_dir) {
        for (const auto& f : FilesUnder(p)) out.insert(f);
      } else {
        out.insert(p);
      }
    }
    return out;
  }

  std::set<std::string> SharedOf(const pb::CheckpointMetadata& md, int64_t id) {
    std::set<std::string> out;
    for (const auto& f : md.files()) {
      if (f.scope() != pb::SHARED) continue;
      auto p = format::ResolveFile(Dir(id), f);
      EXPECT_OK(p.status());
      if (p.ok()) out.insert(*p);
    }
    return out;
  }

  void Complete(CompletedCheckpointStore& store, KeyedStateBackend* b, int64_t id) {
    CompletedCheckpoint c;
    c.checkpoint_id = id;
    c.dir = Dir(id);
    c.metadata_path = base::JoinPath(c.dir, format::kMetadataFileName);
    ASSERT_OK(store.Add(c));
    b->NotifyCheckpointComplete(id);
  }

  ckpt::testing::TempDir tmp_;
};

class ChangelogBackendKindTest : public ChangelogBackendTest,
                                 public ::testing::WithParamInterface<StateBackendKind> {};

const pb::ChangelogStateHandle& HandleOf(const pb::CheckpointMetadata& md) {
  return md.operators(0).subtasks(0).keyed_state(0).changelog();
}

TEST_P(ChangelogBackendKindTest, CheckpointIsMaterializationPlusSegmentsOfTheIntervals) {
  auto b = Make(GetParam());
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  ASSERT_OK(Change(b.get(), h, 0, 2000, 1));
  CompletedCheckpointStore store(base::Fs::Default(), 3, pb::RETAIN_ON_CANCELLATION);
  pb::CheckpointMetadata md1 = Take({b.get()}, 1);
  ASSERT_TRUE(md1.operators(0).subtasks(0).keyed_state(0).has_changelog());
  EXPECT_EQ(HandleOf(md1).materialization_id(), 1);
  EXPECT_EQ(HandleOf(md1).segments_size(), 0);
  EXPECT_GT(HandleOf(md1).materialized_size(), 0);
  Complete(store, b.get(), 1);
  EXPECT_EQ(b->stats().changes_in_memory, 0u);  // truncated by the materialization

  uint64_t full = 0;
  for (const auto& f : md1.files()) full += f.size_bytes();
  std::vector<pb::CheckpointMetadata> mds{md1};
  for (int64_t id = 2; id <= 3; ++id) {
    ASSERT_OK(Change(b.get(), h, id * 10, id * 10 + 20, id));  // 1% of the keys
    mds.push_back(Take({b.get()}, id));
    const pb::ChangelogStateHandle& cl = HandleOf(mds.back());
    EXPECT_EQ(cl.materialization_id(), 1);
    ASSERT_EQ(cl.segments_size(), id - 1);
    uint64_t uploaded = 0;
    for (const auto& f : mds.back().files()) {
      EXPECT_EQ(f.scope(), pb::SHARED) << f.path();
      if (f.created_by_checkpoint_id() == id) uploaded += f.size_bytes();
    }
    EXPECT_GT(uploaded, 0u);
    EXPECT_LT(uploaded * 10, full) << "uploaded " << uploaded << " of " << full;
    const auto& last = cl.segments(cl.segments_size() - 1);
    EXPECT_LE(last.from_sequence(), last.to_sequence());
    Complete(store, b.get(), id);
    EXPECT_EQ(b->stats().segments_referenced, static_cast<uint64_t>(id - 1));
  }
  // Segments are contiguous.
  const pb::ChangelogStateHandle& cl = HandleOf(mds.back());
  EXPECT_EQ(cl.segments(1).from_sequence(), cl.segments(0).to_sequence() + 1);

  const std::vector<std::string> expected = Dump(*b->Snapshot());
  auto restored = Make(GetParam());
  ASSERT_OK(RestoreInto(restored.get(), mds.back(), 3));
  ASSERT_OK_AND_ASSIGN(LogHandles h2, RegisterLogStates(restored.get()));
  EXPECT_EQ(Dump(*restored->Snapshot()), expected);
  ASSERT_OK(restored->SetCurrentKey(Value(int64_t{25})));  // changed by chk-2's interval
  ASSERT_NE(h2.v.Get(), nullptr);
  EXPECT_EQ(std::get<int64_t>(h2.v.Get()->v), 25 * 100 + 2);
  EXPECT_EQ(restored->timer_service()->NumEventTimers(), b->timer_service()->NumEventTimers());

  // Changelog switched off across the restore: the plain backends replay it too (a native
  // RocksDB materialization restores into RocksDB only; heap refuses it, naming the handle).
  for (StateBackendKind kind : {StateBackendKind::kHeap, StateBackendKind::kRocksDb}) {
    StateBackendConfig c;
    c.kind = kind;
    c.local_dir = tmp_.Sub("plain");
    auto plain = CreateKeyedStateBackend(c, kLogMaxP, {0, kLogMaxP - 1}, "p", "op", 0);
    ASSERT_OK(plain.status());
    if (GetParam() == StateBackendKind::kRocksDb && kind == StateBackendKind::kHeap) {
      ASSERT_STATUS(RestoreInto(plain->get(), mds.back(), 3), kUnimplemented, "RocksDB handle");
      continue;
    }
    ASSERT_OK(RestoreInto(plain->get(), mds.back(), 3));
    EXPECT_EQ(Dump(*(*plain)->Snapshot()), expected) << StateBackendKindName(kind);
  }
}

TEST_P(ChangelogBackendKindTest, MaterializationTruncatesTheLogAndTheStoreDeletesOldSegments) {
  auto b = Make(GetParam());
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  CompletedCheckpointStore store(base::Fs::Default(), 2, pb::RETAIN_ON_CANCELLATION);
  const std::string shared = base::JoinPath(tmp_.Sub("job"), "shared");
  std::vector<pb::CheckpointMetadata> mds;
  for (int64_t id = 1; id <= 6; ++id) {
    ASSERT_OK(Change(b.get(), h, id * 50, id * 50 + 100, id));
    if (id == 4) b->MaterializeAtNextCheckpoint();
    mds.push_back(Take({b.get()}, id));
    Complete(store, b.get(), id);
    // shared/ holds exactly what the two retained checkpoints reference.
    std::set<std::string> referenced = SharedOf(mds.back(), id);
    if (id > 1) {
      for (const auto& p : SharedOf(mds[mds.size() - 2], id - 1)) referenced.insert(p);
    }
    EXPECT_EQ(FilesUnder(shared), referenced) << "after chk-" << id;
  }
  EXPECT_EQ(HandleOf(mds[3]).materialization_id(), 4);
  EXPECT_EQ(HandleOf(mds[3]).segments_size(), 0);
  EXPECT_EQ(HandleOf(mds[5]).materialization_id(), 4);
  EXPECT_EQ(HandleOf(mds[5]).segments_size(), 2);
  EXPECT_EQ(b->stats().materializations, 2u);
  // No segment from before materialization 4, and not materialization 1, is left.
  std::set<std::string> before;
  for (int64_t id : {2, 3}) {
    const pb::CheckpointMetadata& md = mds[static_cast<size_t>(id - 1)];
    for (const auto& f : md.files()) {
      if (f.kind() == pb::CHANGELOG) before.insert(*format::ResolveFile(Dir(id), f));
    }
  }
  ASSERT_FALSE(before.empty());
  for (const auto& p : FilesUnder(shared)) EXPECT_EQ(before.count(p), 0u) << p;
  const std::vector<std::string> expected = Dump(*b->Snapshot());
  auto restored = Make(GetParam());
  ASSERT_OK(RestoreInto(restored.get(), mds.back(), 6));
  EXPECT_EQ(Dump(*restored->Snapshot()), expected);
}

TEST_P(ChangelogBackendKindTest, RestoreAfterFailureWithAnAbortedCheckpointInBetween) {
  auto b = Make(GetParam());
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  CompletedCheckpointStore store(base::Fs::Default(), 1, pb::RETAIN_ON_CANCELLATION);
  ASSERT_OK(Change(b.get(), h, 0, 300, 1));
  Take({b.get()}, 1);
  Complete(store, b.get(), 1);
  ASSERT_OK(Change(b.get(), h, 0, 40, 2));
  Take({b.get()}, 2);
  b->NotifyCheckpointAborted(2);  // its segment is never confirmed
  ASSERT_OK(Change(b.get(), h, 20, 60, 3));
  pb::CheckpointMetadata md3 = Take({b.get()}, 3);
  Complete(store, b.get(), 3);
  // The aborted checkpoint's tail was uploaded as a segment of the log: chk-3 references it
  // and its own tail.
  ASSERT_EQ(HandleOf(md3).segments_size(), 2);
  EXPECT_EQ(HandleOf(md3).segments(1).from_sequence(),
            HandleOf(md3).segments(0).to_sequence() + 1);
  const std::vector<std::string> at3 = Dump(*b->Snapshot());
  // More changes, a checkpoint that never completes, and the process "fails".
  ASSERT_OK(Change(b.get(), h, 0, 300, 4));
  Take({b.get()}, 4);
  b.reset();

  auto restored = Make(GetParam());
  ASSERT_OK(RestoreInto(restored.get(), md3, 3));
  ASSERT_OK_AND_ASSIGN(LogHandles h2, RegisterLogStates(restored.get()));
  EXPECT_EQ(Dump(*restored->Snapshot()), at3);
  // The restored backend checkpoints on: its first checkpoint materializes, the next appends.
  ASSERT_OK(Change(restored.get(), h2, 0, 10, 5));
  pb::CheckpointMetadata md5 = Take({restored.get()}, 5);
  EXPECT_EQ(HandleOf(md5).materialization_id(), 5);
  Complete(store, restored.get(), 5);
  ASSERT_OK(Change(restored.get(), h2, 0, 10, 6));
  pb::CheckpointMetadata md6 = Take({restored.get()}, 6);
  EXPECT_EQ(HandleOf(md6).segments_size(), 1);
  const std::vector<std::string> at6 = Dump(*restored->Snapshot());
  auto again = Make(GetParam());
  ASSERT_OK(RestoreInto(again.get(), md6, 6));
  EXPECT_EQ(Dump(*again->Snapshot()), at6);
}

TEST_P(ChangelogBackendKindTest, RescaleTwoToThreeFiltersTheLogByKeyGroup) {
  const format::KeyGroupRange r0 = format::RangeForSubtask(kLogMaxP, 2, 0);
  const format::KeyGroupRange r1 = format::RangeForSubtask(kLogMaxP, 2, 1);
  auto a = Make(GetParam(), r0);
  auto c = Make(GetParam(), r1);
  ASSERT_OK_AND_ASSIGN(LogHandles ha, RegisterLogStates(a.get()));
  ASSERT_OK_AND_ASSIGN(LogHandles hc, RegisterLogStates(c.get()));
  CompletedCheckpointStore store(base::Fs::Default(), 1, pb::RETAIN_ON_CANCELLATION);
  ASSERT_OK(Change(a.get(), ha, 0, 400, 1));
  ASSERT_OK(Change(c.get(), hc, 0, 400, 1));
  Take({a.get(), c.get()}, 1);
  a->NotifyCheckpointComplete(1);
  c->NotifyCheckpointComplete(1);
  ASSERT_OK(Change(a.get(), ha, 100, 300, 2));
  ASSERT_OK(Change(c.get(), hc, 100, 300, 2));
  pb::CheckpointMetadata md = Take({a.get(), c.get()}, 2);
  ASSERT_EQ(HandleOf(md).segments_size(), 1);
  std::vector<std::string> expected = Dump(*a->Snapshot());
  for (const auto& e : Dump(*c->Snapshot())) expected.push_back(e);
  std::sort(expected.begin(), expected.end());

  std::vector<std::string> got;
  for (uint32_t i = 0; i < 3; ++i) {
    auto n = Make(GetParam(), format::RangeForSubtask(kLogMaxP, 3, i));
    ASSERT_OK(RestoreInto(n.get(), md, 2));
    for (const auto& e : Dump(*n->Snapshot())) got.push_back(e);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}


// The background writer uploads segments between checkpoints (time trigger); a checkpoint then
// references them and uploads only its tail; restore replays them exactly.
TEST_P(ChangelogBackendKindTest, WriterUploadsSegmentsBetweenCheckpoints) {
  auto b = Make(GetParam(), {0, kLogMaxP - 1}, 24 * 3600 * 1000, /*upload_interval_ms=*/1);
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  CompletedCheckpointStore store(base::Fs::Default(), 1, pb::RETAIN_ON_CANCELLATION);
  ASSERT_OK(Change(b.get(), h, 0, 200, 1));
  pb::CheckpointMetadata md1 = Take({b.get()}, 1);  // materializes; tells the writer where to go
  Complete(store, b.get(), 1);
  const uint64_t before = b->stats().segments_uploaded;
  ASSERT_OK(Change(b.get(), h, 0, 40, 2));
  // Uploaded without any checkpoint.
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return b->stats().segments_uploaded > before; }));
  const std::string shared = base::JoinPath(tmp_.Sub("job"), "shared");
  std::set<std::string> uploaded_early = FilesUnder(shared);
  for (const auto& p : SharedOf(md1, 1)) uploaded_early.erase(p);
  ASSERT_FALSE(uploaded_early.empty());
  ASSERT_OK(Change(b.get(), h, 40, 60, 3));
  pb::CheckpointMetadata md2 = Take({b.get()}, 2);
  const std::set<std::string> in2 = SharedOf(md2, 2);
  for (const auto& p : uploaded_early) EXPECT_EQ(in2.count(p), 1u) << p;
  // Segments are contiguous from the materialization on.
  const pb::ChangelogStateHandle& cl = HandleOf(md2);
  ASSERT_GE(cl.segments_size(), 1);
  for (int i = 1; i < cl.segments_size(); ++i) {
    EXPECT_EQ(cl.segments(i).from_sequence(), cl.segments(i - 1).to_sequence() + 1);
  }
  Complete(store, b.get(), 2);
  const std::vector<std::string> expected = Dump(*b->Snapshot());
  auto restored = Make(GetParam());
  ASSERT_OK(RestoreInto(restored.get(), md2, 2));
  EXPECT_EQ(Dump(*restored->Snapshot()), expected);
  // The store holds exactly what chk-2 references.
  EXPECT_EQ(FilesUnder(shared), in2);
}

// The size trigger seals segments while changes are made.
TEST_P(ChangelogBackendKindTest, WriterUploadsASegmentPerSizeThreshold) {
  auto b = Make(GetParam(), {0, kLogMaxP - 1}, 24 * 3600 * 1000, 0, /*upload_size_bytes=*/2048);
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  CompletedCheckpointStore store(base::Fs::Default(), 1, pb::RETAIN_ON_CANCELLATION);
  Take({b.get()}, 1);
  Complete(store, b.get(), 1);
  ASSERT_OK(Change(b.get(), h, 0, 300, 2));
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return b->stats().segments_uploaded >= 3; }));
  pb::CheckpointMetadata md2 = Take({b.get()}, 2);
  EXPECT_GE(HandleOf(md2).segments_size(), 3);
  const std::vector<std::string> expected = Dump(*b->Snapshot());
  auto restored = Make(GetParam());
  ASSERT_OK(RestoreInto(restored.get(), md2, 2));
  EXPECT_EQ(Dump(*restored->Snapshot()), expected);
}

// Periodic materialization runs in the background: the checkpoint that finds it due does not
// include it; a later one references it and no segment it covers; the store and the backend
// then keep exactly what the retained checkpoint references.
TEST_P(ChangelogBackendKindTest, PeriodicMaterializationRunsInTheBackground) {
  auto b = Make(GetParam(), {0, kLogMaxP - 1}, /*materialization_ms=*/0);
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  CompletedCheckpointStore store(base::Fs::Default(), 1, pb::RETAIN_ON_CANCELLATION);
  ASSERT_OK(Change(b.get(), h, 0, 200, 1));
  Take({b.get()}, 1);
  Complete(store, b.get(), 1);
  ASSERT_OK(Change(b.get(), h, 0, 50, 2));
  pb::CheckpointMetadata md2 = Take({b.get()}, 2);
  EXPECT_EQ(HandleOf(md2).materialization_id(), 1);
  EXPECT_EQ(HandleOf(md2).segments_size(), 1);
  Complete(store, b.get(), 2);
  EXPECT_FALSE(b->stats().materialization_in_flight);
  // The first change after chk-2 starts the due materialization (id 2, after that change).
  ASSERT_OK(Change(b.get(), h, 50, 80, 3));
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return b->stats().materialization_ready; }));
  pb::CheckpointMetadata md3 = Take({b.get()}, 3);
  EXPECT_EQ(HandleOf(md3).materialization_id(), 2);
  ASSERT_EQ(HandleOf(md3).segments_size(), 1);  // the changes after the materialization started
  EXPECT_GT(HandleOf(md3).segments(0).from_sequence(), b->stats().last_materialized_sequence);
  EXPECT_EQ(b->stats().materializations, 2u);
  Complete(store, b.get(), 3);
  const std::string shared = base::JoinPath(tmp_.Sub("job"), "shared");
  EXPECT_EQ(FilesUnder(shared), SharedOf(md3, 3));
  const std::vector<std::string> expected = Dump(*b->Snapshot());
  auto restored = Make(GetParam());
  ASSERT_OK(RestoreInto(restored.get(), md3, 3));
  EXPECT_EQ(Dump(*restored->Snapshot()), expected);
}

// Files no completed checkpoint references are the backend's: an aborted materializing
// checkpoint's and the segments uploaded after the last checkpoint are deleted (when aborted /
// when the backend goes), so only prune-visible leftovers of a kill remain.
TEST_P(ChangelogBackendKindTest, FilesNoCompletedCheckpointReferencesAreDeleted) {
  const std::string shared = base::JoinPath(tmp_.Sub("job"), "shared");
  auto b = Make(GetParam(), {0, kLogMaxP - 1}, 24 * 3600 * 1000, /*upload_interval_ms=*/1);
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  CompletedCheckpointStore store(base::Fs::Default(), 1, pb::RETAIN_ON_CANCELLATION);
  ASSERT_OK(Change(b.get(), h, 0, 200, 1));
  pb::CheckpointMetadata md1 = Take({b.get()}, 1);
  ASSERT_FALSE(SharedOf(md1, 1).empty());
  b->NotifyCheckpointAborted(1);
  EXPECT_TRUE(FilesUnder(shared).empty());
  pb::CheckpointMetadata md2 = Take({b.get()}, 2);  // materializes again
  Complete(store, b.get(), 2);
  const uint64_t uploaded = b->stats().segments_uploaded;
  ASSERT_OK(Change(b.get(), h, 0, 40, 3));
  ASSERT_TRUE(
      ckpt::testing::WaitUntil([&] { return b->stats().segments_uploaded > uploaded; }));
  EXPECT_NE(FilesUnder(shared), SharedOf(md2, 2));
  b.reset();  // e.g. cancelled: nothing references the segments uploaded after chk-2
  EXPECT_EQ(FilesUnder(shared), SharedOf(md2, 2));
}

INSTANTIATE_TEST_SUITE_P(Inner, ChangelogBackendKindTest,
                         ::testing::Values(StateBackendKind::kHeap, StateBackendKind::kRocksDb),
                         [](const auto& param_info) {
                           return std::string(StateBackendKindName(param_info.param));
                         });

TEST_F(ChangelogBackendTest, SavepointIsTheInnerBackendsAndSelfContained) {
  auto b = Make(StateBackendKind::kHeap);
  ASSERT_OK_AND_ASSIGN(LogHandles h, RegisterLogStates(b.get()));
  ASSERT_OK(Change(b.get(), h, 0, 50, 1));
  CheckpointOptions o;
  o.checkpoint_id = 7;
  o.kind = pb::SAVEPOINT;
  o.savepoint_format = pb::CANONICAL;
  o.post_action = pb::POST_ACTION_NONE;
  o.snapshot_dir = tmp_.Sub("sp");
  ASSERT_OK(base::Fs::Default().CreateDirs(o.snapshot_dir));
  auto snap = TakeOperatorSnapshot(o, format::OperatorId::FromUid("op"), 0, b.get(), nullptr, {});
  ASSERT_OK(snap.status());
  ASSERT_OK_AND_ASSIGN(OperatorSubtaskState st,
                       WriteOperatorSnapshot(base::Fs::Default(), o, *snap));
  ASSERT_EQ(st.subtask.keyed_state_size(), 1);
  EXPECT_TRUE(st.subtask.keyed_state(0).has_key_groups());
  for (const auto& f : st.files) EXPECT_EQ(f.scope(), pb::EXCLUSIVE);
}

}  // namespace
}  // namespace ckpt::engine
