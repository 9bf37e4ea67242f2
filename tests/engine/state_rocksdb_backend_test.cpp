// RocksDB backend specifics (engine/src/state/rocksdb_*.cpp): incremental checkpoints upload
// only new SSTs into shared/ and reference earlier ones; a chain of 20 incremental checkpoints with
// compactions restores exactly and, through the completed-checkpoint store with num-retained 2,
// shared/ keeps only referenced files; aborted checkpoints leave nothing in shared/; native
// savepoints are self-contained and every SST passes `sst_dump --command=check`; rescaling by
// DeleteRange clipping (hard-linked SSTs) and key by key restore the same state and leave the
// snapshot's files intact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/checkpoint/completed_checkpoint_store.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/engine/record.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

namespace types = format::types;
using format::Value;

constexpr uint32_t kRocksMaxP = 128;

class RocksDbBackendTest : public ::testing::Test {
 protected:
  std::unique_ptr<RocksDbKeyedStateBackend> Make(bool incremental) {
    RocksDbBackendOptions o;
    o.incremental = incremental;
    o.local_dir = tmp_.Sub("local");
    auto b = RocksDbKeyedStateBackend::Open(kRocksMaxP, {0, kRocksMaxP - 1}, "t", o);
    EXPECT_OK(b.status());
    return b.ok() ? std::move(*b) : nullptr;
  }

  // Takes checkpoint/savepoint `options` of `b` into `dir` and publishes its `_metadata`.
  pb::CheckpointMetadata Take(KeyedStateBackend* b, CheckpointOptions options,
                              const std::string& dir) {
    pb::CheckpointMetadata md;
    md.set_format_version(1);
    md.set_engine_name("test");
    md.set_job_id(std::string(16, '\x01'));
    md.set_checkpoint_id(options.checkpoint_id);
    md.set_kind(options.kind);
    if (options.is_savepoint()) md.set_savepoint_format(options.savepoint_format);
    EXPECT_OK(base::Fs::Default().CreateDirs(dir));
    options.snapshot_dir = dir;
    auto snap = TakeOperatorSnapshot(options, format::OperatorId::FromUid("op"), 0, b, nullptr, {});
    EXPECT_OK(snap.status());
    if (!snap.ok()) return md;
    auto st = WriteOperatorSnapshot(base::Fs::Default(), options, *snap);
    EXPECT_OK(st.status());
    if (!st.ok()) return md;
    pb::OperatorState* os = md.add_operators();
    os->set_operator_id(format::OperatorId::FromUid("op").ToBytes());
    os->set_parallelism(1);
    os->set_max_parallelism(kRocksMaxP);
    for (const auto& d : st->states) *os->add_states() = d;
    for (const auto& f : st->files) *md.add_files() = f;
    *os->add_subtasks() = st->subtask;
    EXPECT_OK(format::WriteMetadataFile(base::Fs::Default(), dir, md));
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

  static std::vector<std::string> Dump(const KeyedStateSnapshot& s) {
    std::vector<std::string> out;
    for (uint32_t g = 0; g < kRocksMaxP; ++g) {
      if (!s.key_group_range().Contains(g)) continue;
      EXPECT_OK(s.ForEachRecord(g, [&](const format::KeyedRecord& r) {
        out.push_back(std::to_string(r.state_index) + "|" + std::string(r.key) + "|" +
                      std::string(r.ns) + "|" + std::string(r.user_key) + "|" +
                      std::string(r.value));
        return base::Status::OK();
      }));
    }
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

  static std::set<std::string> SharedOf(const pb::CheckpointMetadata& md, const std::string& dir) {
    std::set<std::string> out;
    for (const auto& f : md.files()) {
      if (f.scope() != pb::SHARED) continue;
      auto p = format::ResolveFile(dir, f);
      EXPECT_OK(p.status());
      if (p.ok()) out.insert(*p);
    }
    return out;
  }

  static CheckpointOptions Checkpoint(int64_t id) {
    CheckpointOptions o;
    o.checkpoint_id = id;
    return o;
  }

  ckpt::testing::TempDir tmp_;
};

base::Status WriteRange(KeyedStateBackend* b, ValueState& v, MapState& m, int64_t from, int64_t to,
                        int64_t salt) {
  for (int64_t k = from; k < to; ++k) {
    CKPT_RETURN_IF_ERROR(b->SetCurrentKey(Value(k)));
    CKPT_RETURN_IF_ERROR(v.Update(Value(k * 1000 + salt)));
    CKPT_RETURN_IF_ERROR(m.Put(Value(std::string("s") + std::to_string(salt % 3)), Value(salt)));
  }
  return base::Status::OK();
}

TEST_F(RocksDbBackendTest, IncrementalChainOfTwentyWithCompactionsRestoresExactly) {
  auto b = Make(true);
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(MapState m, b->GetMapState(MapStateDescriptor("m", types::String(),
                                                                     types::Int64())));
  CompletedCheckpointStore store(base::Fs::Default(), 2, pb::RETAIN_ON_CANCELLATION);
  const std::string job = tmp_.Sub("job");
  std::vector<pb::CheckpointMetadata> mds;
  uint64_t uploaded_total = 0;
  uint64_t referenced_total = 0;
  for (int64_t id = 1; id <= 20; ++id) {
    // Each interval changes a small slice of the keys and adds a few new ones.
    ASSERT_OK(WriteRange(b.get(), v, m, (id * 37) % 500, (id * 37) % 500 + 40, id));
    ASSERT_OK(WriteRange(b.get(), v, m, 500 + id * 10, 510 + id * 10, id));
    if (id % 5 == 0) ASSERT_OK(b->CompactAll());
    const std::string dir = base::JoinPath(job, "chk-" + std::to_string(id));
    mds.push_back(Take(b.get(), Checkpoint(id), dir));
    for (const auto& f : mds.back().files()) {
      if (f.scope() != pb::SHARED) continue;
      if (f.created_by_checkpoint_id() == id) {
        uploaded_total += f.size_bytes();
      } else {
        EXPECT_LT(f.created_by_checkpoint_id(), id);
        referenced_total += f.size_bytes();
      }
    }
    CompletedCheckpoint c;
    c.checkpoint_id = id;
    c.dir = dir;
    c.metadata_path = base::JoinPath(dir, format::kMetadataFileName);
    ASSERT_OK(store.Add(c));
    b->NotifyCheckpointComplete(id);
    // shared/ holds exactly the files the retained checkpoints reference.
    std::set<std::string> referenced = SharedOf(mds.back(), dir);
    if (id > 1) {
      for (const auto& p :
           SharedOf(mds[mds.size() - 2], base::JoinPath(job, "chk-" + std::to_string(id - 1)))) {
        referenced.insert(p);
      }
    }
    EXPECT_EQ(FilesUnder(base::JoinPath(job, "shared")), referenced) << "after chk-" << id;
    for (const auto& p : referenced) EXPECT_GE(store.shared_state().ReferenceCount(p), 1u);
  }
  EXPECT_GT(referenced_total, 0u);  // later checkpoints did reuse earlier uploads
  EXPECT_GT(uploaded_total, 0u);

  const std::vector<std::string> expected = Dump(*b->Snapshot());
  auto restored = Make(true);
  ASSERT_OK(RestoreInto(restored.get(), mds.back(), base::JoinPath(job, "chk-20")));
  ASSERT_OK_AND_ASSIGN(ValueState v2,
                       restored->GetValueState(ValueStateDescriptor("v", types::Int64())));
  EXPECT_EQ(Dump(*restored->Snapshot()), expected);
  ASSERT_OK(restored->SetCurrentKey(Value(int64_t{700})));
  ASSERT_NE(v2.Get(), nullptr);
  EXPECT_EQ(std::get<int64_t>(v2.Get()->v), 700 * 1000 + 20);
}

// Rescaling 1 -> 3 from a native savepoint: DeleteRange clipping (SSTs hard-linked from the
// snapshot) and the key-by-key baseline (rescale_by_clipping = false) restore the same state;
// the restored instances then write and compact without touching the snapshot's files.
TEST_F(RocksDbBackendTest, RescaleByClippingAndKeyByKeyRestoreTheSameStateAndLeaveTheSnapshot) {
  auto b = Make(false);
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(MapState m, b->GetMapState(MapStateDescriptor("m", types::String(),
                                                                     types::Int64())));
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 3000, 1));
  ASSERT_OK(b->CompactAll());
  ASSERT_OK(WriteRange(b.get(), v, m, 1000, 1500, 2));
  CheckpointOptions o = Checkpoint(1);
  o.kind = pb::SAVEPOINT;
  o.savepoint_format = pb::NATIVE;
  o.post_action = pb::POST_ACTION_NONE;
  const std::string dir = tmp_.Sub("sp");
  const pb::CheckpointMetadata md = Take(b.get(), o, dir);
  const std::vector<std::string> expected = Dump(*b->Snapshot());
  b.reset();

  std::vector<std::string> got[2];
  for (int clip = 0; clip < 2; ++clip) {
    for (uint32_t i = 0; i < 3; ++i) {
      RocksDbBackendOptions ro;
      ro.local_dir = tmp_.Sub("local");
      ro.rescale_by_clipping = clip == 1;
      ASSERT_OK_AND_ASSIGN(auto n,
                           RocksDbKeyedStateBackend::Open(
                               kRocksMaxP, format::RangeForSubtask(kRocksMaxP, 3, i), "t", ro));
      ASSERT_OK(RestoreInto(n.get(), md, dir));
      const RocksDbRestoreStats& st = n->last_restore_stats();
      if (clip == 1) {
        EXPECT_GT(st.files_linked, 0u);
        EXPECT_EQ(st.keys_inserted, 0u);  // one overlapping instance: clipped, nothing inserted
      } else {
        EXPECT_EQ(st.files_linked + st.files_copied > 0, true);
        EXPECT_GT(st.keys_inserted, 0u);
      }
      for (const auto& e : Dump(*n->Snapshot())) got[clip].push_back(e);
      // The restored instance lives on: writes and full compactions.
      ASSERT_OK_AND_ASSIGN(ValueState v2,
                           n->GetValueState(ValueStateDescriptor("v", types::Int64())));
      ASSERT_OK_AND_ASSIGN(MapState m2, n->GetMapState(MapStateDescriptor("m", types::String(),
                                                                          types::Int64())));
      for (int64_t k = 0; k < 3000; ++k) {
        if (!n->SetCurrentKey(Value(k)).ok()) continue;  // another subtask's key
        ASSERT_OK(v2.Update(Value(k)));
        ASSERT_OK(m2.Put(Value("written-after-restore"), Value(k)));
      }
      ASSERT_OK(n->CompactAll());
    }
    std::sort(got[clip].begin(), got[clip].end());
  }
  std::vector<std::string> sorted = expected;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(got[0], sorted);
  EXPECT_EQ(got[1], sorted);
  // Every file of the savepoint is as its metadata recorded it.
  for (const auto& f : md.files()) {
    ASSERT_OK_AND_ASSIGN(std::string p, format::ResolveFile(dir, f));
    ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(base::Fs::Default(), p));
    EXPECT_EQ(bytes.size(), f.size_bytes()) << p;
    EXPECT_EQ(base::Xxh3(bytes), f.checksum_xxh3()) << p;
  }
}

TEST_F(RocksDbBackendTest, IncrementalCheckpointUploadsOnlyNewFiles) {
  auto b = Make(true);
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(MapState m, b->GetMapState(MapStateDescriptor("m", types::String(),
                                                                     types::Int64())));
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 5000, 1));
  const std::string job = tmp_.Sub("job");
  pb::CheckpointMetadata first = Take(b.get(), Checkpoint(1), base::JoinPath(job, "chk-1"));
  b->NotifyCheckpointComplete(1);
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 50, 2));  // 1% of the keys change
  pb::CheckpointMetadata second = Take(b.get(), Checkpoint(2), base::JoinPath(job, "chk-2"));
  uint64_t full = 0, increment = 0;
  for (const auto& f : second.files()) {
    if (f.kind() != pb::ROCKSDB_SST) continue;
    EXPECT_EQ(f.scope(), pb::SHARED);
    full += f.size_bytes();
    if (f.created_by_checkpoint_id() == 2) increment += f.size_bytes();
  }
  EXPECT_GT(full, 0u);
  EXPECT_LT(increment, full / 4) << "increment " << increment << " of " << full;
  const auto& subtask = second.operators(0).subtasks(0);
  ASSERT_TRUE(subtask.keyed_state(0).has_rocksdb());
  EXPECT_EQ(subtask.keyed_state(0).rocksdb().column_families().count("v"), 1u);
}

TEST_F(RocksDbBackendTest, AbortedIncrementalCheckpointLeavesNothingInShared) {
  auto b = Make(true);
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(MapState m, b->GetMapState(MapStateDescriptor("m", types::String(),
                                                                     types::Int64())));
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 100, 1));
  const std::string job = tmp_.Sub("job");
  pb::CheckpointMetadata md = Take(b.get(), Checkpoint(1), base::JoinPath(job, "chk-1"));
  EXPECT_FALSE(FilesUnder(base::JoinPath(job, "shared")).empty());
  b->NotifyCheckpointAborted(1);
  EXPECT_TRUE(FilesUnder(base::JoinPath(job, "shared")).empty());
  // The next checkpoint does not reference the aborted one's files.
  pb::CheckpointMetadata md2 = Take(b.get(), Checkpoint(2), base::JoinPath(job, "chk-2"));
  for (const auto& f : md2.files()) {
    if (f.scope() == pb::SHARED) {
      EXPECT_EQ(f.created_by_checkpoint_id(), 2) << f.path();
    }
  }
}

// The task may see checkpoint 1's completion notice after it already took checkpoint 2 (the
// notice is a mail; the next barrier can come first). Checkpoint 2 references the set before 1;
// when 2 completes and subsumes 1, the store deletes what only 1 uploaded. So checkpoint 3 must
// not reference files only checkpoint 1 uploaded.
TEST_F(RocksDbBackendTest, LateCompletionNoticeDoesNotMakeTheNextCheckpointReferenceSubsumedFiles) {
  auto b = Make(true);
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(MapState m, b->GetMapState(MapStateDescriptor("m", types::String(),
                                                                     types::Int64())));
  const std::string job = tmp_.Sub("job");
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 1000, 1));
  pb::CheckpointMetadata first = Take(b.get(), Checkpoint(1), base::JoinPath(job, "chk-1"));
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 100, 2));
  pb::CheckpointMetadata second = Take(b.get(), Checkpoint(2), base::JoinPath(job, "chk-2"));
  b->NotifyCheckpointComplete(1);  // late: checkpoint 2 was already taken
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 100, 3));
  pb::CheckpointMetadata third = Take(b.get(), Checkpoint(3), base::JoinPath(job, "chk-3"));
  std::set<std::string> kept;  // what survives once checkpoint 2 subsumes checkpoint 1
  for (const auto& f : second.files()) {
    if (f.scope() == pb::SHARED) kept.insert(f.path());
  }
  for (const auto& f : third.files()) {
    if (f.scope() != pb::SHARED || f.created_by_checkpoint_id() == 3) continue;
    EXPECT_EQ(kept.count(f.path()), 1u) << f.path() << " (created by checkpoint "
                                        << f.created_by_checkpoint_id() << ")";
  }
  EXPECT_GT(first.files_size(), 0);
  // A notice that is not late is adopted: checkpoint 4 reuses what checkpoint 3 uploaded.
  b->NotifyCheckpointComplete(3);
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 10, 4));
  pb::CheckpointMetadata fourth = Take(b.get(), Checkpoint(4), base::JoinPath(job, "chk-4"));
  size_t reused = 0;
  for (const auto& f : fourth.files()) {
    if (f.scope() == pb::SHARED && f.created_by_checkpoint_id() == 3) ++reused;
  }
  EXPECT_GT(reused, 0u);
}

TEST_F(RocksDbBackendTest, NativeSavepointIsSelfContainedAndSstDumpAcceptsEverySst) {
  auto b = Make(true);
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(MapState m, b->GetMapState(MapStateDescriptor("m", types::String(),
                                                                     types::Int64())));
  ASSERT_OK(WriteRange(b.get(), v, m, 0, 2000, 1));
  CheckpointOptions o;
  o.checkpoint_id = 3;
  o.kind = pb::SAVEPOINT;
  o.savepoint_format = pb::NATIVE;
  o.post_action = pb::POST_ACTION_NONE;
  const std::string dir = tmp_.Sub("sp/savepoint-native");
  pb::CheckpointMetadata md = Take(b.get(), o, dir);
  int ssts = 0;
  for (const auto& f : md.files()) {
    EXPECT_EQ(f.scope(), pb::EXCLUSIVE) << f.path();
    if (f.kind() != pb::ROCKSDB_SST) continue;
    ++ssts;
    const std::string cmd = "sst_dump --file=" + base::JoinPath(dir, f.path()) +
                            " --command=check > /dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  EXPECT_GT(ssts, 0);
  // It restores into a fresh instance exactly.
  const std::vector<std::string> expected = Dump(*b->Snapshot());
  auto restored = Make(false);
  ASSERT_OK(RestoreInto(restored.get(), md, dir));
  EXPECT_EQ(Dump(*restored->Snapshot()), expected);
}

TEST_F(RocksDbBackendTest, NativeSnapshotIsRefusedByTheHeapBackend) {
  auto b = Make(false);
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK(b->SetCurrentKey(Value(int64_t{1})));
  ASSERT_OK(v.Update(Value(int64_t{1})));
  const std::string dir = tmp_.Sub("job/chk-1");
  pb::CheckpointMetadata md = Take(b.get(), Checkpoint(1), dir);
  auto heap = CreateKeyedStateBackend({}, kRocksMaxP, {0, kRocksMaxP - 1}, "heap", "op", 0);
  ASSERT_OK(heap.status());
  ASSERT_STATUS(RestoreInto(heap->get(), md, dir), kUnimplemented, "RocksDB");
}

TEST_F(RocksDbBackendTest, WorkingDirectoryIsRemovedWithTheBackend) {
  std::string wd;
  {
    auto b = Make(false);
    wd = b->working_dir();
    EXPECT_TRUE(base::Fs::Default().Stat(wd).ok());
  }
  EXPECT_FALSE(base::Fs::Default().Stat(wd).ok());
}

}  // namespace
}  // namespace ckpt::engine
