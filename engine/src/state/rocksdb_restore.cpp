// RocksDbKeyedStateBackend::Restore: native handles by "DB rebuild" (seed 003): the instance of
// the overlapping handle with the most owned key groups is downloaded and opened as ours, then
// clipped to our key-group range with DeleteRange; the owned ranges of the other overlapping
// instances are copied in from read-only copies. Canonical handles (timers, heap snapshots,
// canonical savepoints) are inserted record by record afterwards.
#include <algorithm>
#include <string>
#include <vector>

#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"
#include "ckpt/format/layout.h"
#include "rocksdb/iterator.h"
#include "rocksdb/write_batch.h"
#include "state/backend_core.h"
#include "state/canonical_snapshot.h"
#include "state/rocksdb_backend_impl.h"
#include "state/rocksdb_instance.h"
#include "state/rocksdb_snapshot.h"

namespace ckpt::engine {

using state_internal::FromRocks;
using state_internal::KeyGroupStart;
using state_internal::RocksDbInstance;

namespace {

uint32_t Overlap(const pb::RocksDbStateHandle& h, format::KeyGroupRange mine) {
  const uint32_t from = std::max(h.key_group_start(), mine.start);
  const uint32_t to = std::min(h.key_group_end(), mine.end);
  return from > to ? 0 : to - from + 1;
}

// Copies the files of `h` into `dir` (created), checking sizes and checksums.
base::Status Download(const KeyedRestoreSource& source, const pb::RocksDbStateHandle& h,
                      const std::string& dir) {
  base::Fs& local = base::Fs::Default();
  CKPT_RETURN_IF_ERROR(local.CreateDirs(dir));
  const pb::CheckpointMetadata& md = *source.metadata;
  for (const auto* files : {&h.sst_files(), &h.meta_files()}) {
    for (const pb::RocksDbFile& f : *files) {
      if (f.file_index() >= static_cast<uint32_t>(md.files_size()) ||
          f.local_name().empty() || f.local_name().find('/') != std::string::npos) {
        return base::Status::Corruption(source.snapshot_dir + "/_metadata: RocksDB file '" +
                                        f.local_name() + "' has a bad name or file index");
      }
      const pb::FileEntry& entry = md.files(static_cast<int>(f.file_index()));
      CKPT_ASSIGN_OR_RETURN(std::string src, format::ResolveFile(source.snapshot_dir, entry));
      uint64_t size = 0;
      CKPT_ASSIGN_OR_RETURN(uint64_t sum,
                            state_internal::CopyFileBetween(*source.fs, src, local,
                                                            base::JoinPath(dir, f.local_name()),
                                                            &size));
      if (size != entry.size_bytes() || sum != entry.checksum_xxh3()) {
        return base::Status::Corruption(src + ": size/checksum differ from the metadata's (" +
                                        std::to_string(size) + " bytes, the metadata records " +
                                        std::to_string(entry.size_bytes()) + ")");
      }
    }
  }
  return base::Status::OK();
}

// Deletes every key outside `mine` from every column family of `inst`.
base::Status ClipTo(RocksDbInstance& inst, format::KeyGroupRange mine) {
  for (const std::string& name : inst.ColumnFamilyNames()) {
    rocksdb::ColumnFamilyHandle* cf = inst.FindColumnFamily(name);
    if (mine.start > 0) {
      CKPT_RETURN_IF_ERROR(FromRocks(inst.db()->DeleteRange(inst.write_options(), cf,
                                                            KeyGroupStart(0),
                                                            KeyGroupStart(mine.start)),
                                     "clipping " + name));
    }
    if (mine.end >= 0xFFFF) continue;
    std::unique_ptr<rocksdb::Iterator> it(inst.db()->NewIterator(rocksdb::ReadOptions(), cf));
    it->SeekToLast();
    if (!it->Valid()) continue;
    const std::string begin = KeyGroupStart(mine.end + 1);
    std::string last = it->key().ToString();
    if (last < begin) continue;
    last.push_back('\0');  // just past the last key
    CKPT_RETURN_IF_ERROR(FromRocks(
        inst.db()->DeleteRange(inst.write_options(), cf, begin, last), "clipping " + name));
  }
  return base::Status::OK();
}

// Copies the keys of key groups `mine` of every column family of `from` into `to`.
base::Status CopyOwned(RocksDbInstance& from, RocksDbInstance& to, format::KeyGroupRange mine) {
  for (const std::string& name : from.ColumnFamilyNames()) {
    if (name == rocksdb::kDefaultColumnFamilyName) continue;
    rocksdb::ColumnFamilyHandle* src = from.FindColumnFamily(name);
    CKPT_ASSIGN_OR_RETURN(rocksdb::ColumnFamilyHandle * dst, to.ColumnFamily(name));
    const std::string lower = KeyGroupStart(mine.start);
    std::string upper;
    rocksdb::Slice upper_slice;
    rocksdb::ReadOptions ro;
    if (mine.end < 0xFFFF) {
      upper = KeyGroupStart(mine.end + 1);
      upper_slice = rocksdb::Slice(upper);
      ro.iterate_upper_bound = &upper_slice;
    }
    std::unique_ptr<rocksdb::Iterator> it(from.db()->NewIterator(ro, src));
    rocksdb::WriteBatch batch;
    for (it->Seek(lower); it->Valid(); it->Next()) {
      batch.Put(dst, it->key(), it->value());
      if (batch.GetDataSize() > (4u << 20)) {
        CKPT_RETURN_IF_ERROR(FromRocks(to.db()->Write(to.write_options(), &batch), name));
        batch.Clear();
      }
    }
    CKPT_RETURN_IF_ERROR(FromRocks(it->status(), from.db_dir()));
    CKPT_RETURN_IF_ERROR(FromRocks(to.db()->Write(to.write_options(), &batch), name));
  }
  return base::Status::OK();
}

}  // namespace

base::Status RocksDbKeyedStateBackend::Restore(const KeyedRestoreSource& source) {
  if (HasChangelogHandles(source)) return RestoreWithChangelog(source);
  CKPT_ASSIGN_OR_RETURN(std::vector<int64_t> local_of,
                        state_internal::DeclareSnapshotStates(this, source));
  const format::KeyGroupRange mine = key_group_range();
  std::vector<const pb::RocksDbStateHandle*> native;
  std::vector<const pb::KeyGroupsStateHandle*> canonical;
  for (const pb::SubtaskState& st : source.operator_state->subtasks()) {
    for (const pb::KeyedStateHandle& h : st.keyed_state()) {
      if (h.has_key_groups()) {
        canonical.push_back(&h.key_groups());
      } else if (h.has_rocksdb()) {
        if (Overlap(h.rocksdb(), mine) > 0) native.push_back(&h.rocksdb());
      } else {
        return base::Status::Unimplemented(owner() + ": subtask " +
                                           std::to_string(st.subtask_index()) +
                                           " of the snapshot has a changelog handle; the "
                                           "changelog backend is not implemented yet");
      }
    }
  }
  if (!native.empty()) {
    std::stable_sort(native.begin(), native.end(), [&](const auto* a, const auto* b) {
      return Overlap(*a, mine) > Overlap(*b, mine);
    });
    const std::string base_dir = base::JoinPath(impl_->root, "db-restored");
    CKPT_RETURN_IF_ERROR_CTX(Download(source, *native[0], base_dir), owner() + ": restore");
    // The empty instance opened at creation gives way to the restored one.
    const std::string old_dir = impl_->inst->db_dir();
    impl_->inst->ReleaseRoot();
    impl_->inst.reset();
    base::RemoveAll(base::Fs::Default(), old_dir).IgnoreError();
    CKPT_ASSIGN_OR_RETURN(impl_->inst,
                          RocksDbInstance::Open(impl_->root, base_dir,
                                                state_internal::ListColumnFamilies(base_dir)));
    if (native[0]->key_group_start() < mine.start || native[0]->key_group_end() > mine.end) {
      CKPT_RETURN_IF_ERROR_CTX(ClipTo(*impl_->inst, mine), owner() + ": restore");
    }
    for (size_t i = 1; i < native.size(); ++i) {
      const std::string dir = base::JoinPath(impl_->root, "restore-" + std::to_string(i));
      base::Status st = Download(source, *native[i], dir);
      if (st.ok()) {
        base::Result<std::shared_ptr<RocksDbInstance>> other = RocksDbInstance::OpenReadOnly(dir, {});
        st = other.ok() ? CopyOwned(**other, *impl_->inst, mine) : other.status();
      }
      base::RemoveAll(base::Fs::Default(), dir).IgnoreError();
      CKPT_RETURN_IF_ERROR_CTX(st, owner() + ": restore");
    }
  }
  for (const pb::KeyGroupsStateHandle* kg : canonical) {
    CKPT_RETURN_IF_ERROR(state_internal::RestoreCanonicalHandle(this, source, *kg, local_of));
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
