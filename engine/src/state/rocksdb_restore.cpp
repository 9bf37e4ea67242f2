// RocksDbKeyedStateBackend::Restore: native handles by "DB rebuild": the instance of
// the overlapping handle with the most owned key groups is fetched (hard links when the snapshot
// is on the local filesystem) and opened as ours, then clipped to our key-group range with
// DeleteRange; the owned ranges of the other overlapping instances are bulk-loaded from
// read-only copies (SstFileWriter + IngestExternalFile). Canonical handles (timers, heap
// snapshots, canonical savepoints) are inserted record by record afterwards, in write batches.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"
#include "ckpt/format/layout.h"
#include "rocksdb/iterator.h"
#include "rocksdb/sst_file_writer.h"
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

// Places the files of `h` in `dir` (created): SSTs are hard-linked from the snapshot when it is
// on the local filesystem and the link succeeds (same filesystem: RocksDB never writes into an
// SST, it only unlinks obsolete ones, so the snapshot's file stays intact), and copied otherwise
// (without fsync: the working directory is scratch, rebuilt from the snapshot after a crash).
// Meta files (MANIFEST, CURRENT, OPTIONS) are always copied. Every file's size and XXH3 are
// checked against the metadata (a linked file is read once for it).
base::Status Fetch(const KeyedRestoreSource& source, const pb::RocksDbStateHandle& h,
                   const std::string& dir, RocksDbRestoreStats* stats) {
  base::Fs& local = base::Fs::Default();
  CKPT_RETURN_IF_ERROR(local.CreateDirs(dir));
  const pb::CheckpointMetadata& md = *source.metadata;
  const bool same_fs = source.fs == &local;
  for (const auto* files : {&h.sst_files(), &h.meta_files()}) {
    const bool sst = files == &h.sst_files();
    for (const pb::RocksDbFile& f : *files) {
      if (f.file_index() >= static_cast<uint32_t>(md.files_size()) ||
          f.local_name().empty() || f.local_name().find('/') != std::string::npos) {
        return base::Status::Corruption(source.snapshot_dir + "/_metadata: RocksDB file '" +
                                        f.local_name() + "' has a bad name or file index");
      }
      const pb::FileEntry& entry = md.files(static_cast<int>(f.file_index()));
      CKPT_ASSIGN_OR_RETURN(std::string src, format::ResolveFile(source.snapshot_dir, entry));
      const std::string dst = base::JoinPath(dir, f.local_name());
      uint64_t size = 0;
      uint64_t sum = 0;
      if (sst && same_fs && ::link(src.c_str(), dst.c_str()) == 0) {
        CKPT_ASSIGN_OR_RETURN(sum, state_internal::HashFile(local, dst, &size));
        ++stats->files_linked;
      } else {
        CKPT_ASSIGN_OR_RETURN(sum, state_internal::CopyFileBetween(*source.fs, src, local, dst,
                                                                   &size, /*sync=*/false));
        ++stats->files_copied;
        stats->bytes_copied += size;
      }
      if (size != entry.size_bytes() || sum != entry.checksum_xxh3()) {
        return base::Status::Corruption(src + ": size/checksum differ from the metadata's (" +
                                        std::to_string(size) + " bytes, the metadata records " +
                                        std::to_string(entry.size_bytes()) + ")");
      }
    }
  }
  return base::Status::OK();
}

// Deletes every key outside `mine` from every column family of `inst`: at most two DeleteRange
// tombstones per column family, whatever the number of keys.
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

// The keys of key groups `mine` in one column family of `from`, positioned at the first; each
// block read once (not cached), with readahead. Not movable: the iterator points at its bound.
class OwnedRange {
 public:
  OwnedRange(RocksDbInstance& from, rocksdb::ColumnFamilyHandle* cf, format::KeyGroupRange mine) {
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    ro.readahead_size = 2u << 20;
    if (mine.end < 0xFFFF) {
      upper_ = KeyGroupStart(mine.end + 1);
      upper_slice_ = rocksdb::Slice(upper_);
      ro.iterate_upper_bound = &upper_slice_;
    }
    it_.reset(from.db()->NewIterator(ro, cf));
    it_->Seek(KeyGroupStart(mine.start));
  }
  OwnedRange(const OwnedRange&) = delete;
  OwnedRange& operator=(const OwnedRange&) = delete;

  rocksdb::Iterator& it() { return *it_; }

 private:
  std::string upper_;
  rocksdb::Slice upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// Inserts the keys of key groups `mine` of every column family of `from` into `to`, in write
// batches of about 2 MiB (Flink's RocksDBWriteBatchWrapper). Returns the number of keys.
base::Result<uint64_t> CopyOwned(RocksDbInstance& from, RocksDbInstance& to,
                                 format::KeyGroupRange mine) {
  uint64_t keys = 0;
  for (const std::string& name : from.ColumnFamilyNames()) {
    if (name == rocksdb::kDefaultColumnFamilyName) continue;
    CKPT_ASSIGN_OR_RETURN(rocksdb::ColumnFamilyHandle * dst, to.ColumnFamily(name));
    OwnedRange range(from, from.FindColumnFamily(name), mine);
    rocksdb::Iterator& it = range.it();
    rocksdb::WriteBatch batch;
    for (; it.Valid(); it.Next()) {
      batch.Put(dst, it.key(), it.value());
      ++keys;
      if (batch.GetDataSize() > (2u << 20)) {
        CKPT_RETURN_IF_ERROR(FromRocks(to.db()->Write(to.write_options(), &batch), name));
        batch.Clear();
      }
    }
    CKPT_RETURN_IF_ERROR(FromRocks(it.status(), from.db_dir()));
    CKPT_RETURN_IF_ERROR(FromRocks(to.db()->Write(to.write_options(), &batch), name));
  }
  return keys;
}

// As CopyOwned, but bulk-loaded: the keys (already sorted, merge operands resolved by the
// iterator) are written into one SST file per column family with SstFileWriter and ingested into
// `to` (moved, no memtable inserts). Used when `to` is a clipped instance: the ingested range
// (owned key groups `from` had) overlaps neither its keys nor its DeleteRange tombstones.
base::Result<uint64_t> IngestOwned(RocksDbInstance& from, RocksDbInstance& to,
                                   format::KeyGroupRange mine, const std::string& scratch_dir) {
  uint64_t keys = 0;
  int n = 0;
  for (const std::string& name : from.ColumnFamilyNames()) {
    if (name == rocksdb::kDefaultColumnFamilyName) continue;
    CKPT_ASSIGN_OR_RETURN(rocksdb::ColumnFamilyHandle * dst, to.ColumnFamily(name));
    OwnedRange range(from, from.FindColumnFamily(name), mine);
    rocksdb::Iterator& it = range.it();
    if (!it.Valid()) {
      CKPT_RETURN_IF_ERROR(FromRocks(it.status(), from.db_dir()));
      continue;
    }
    const std::string file = base::JoinPath(scratch_dir, "ingest-" + std::to_string(n++) + ".sst");
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), to.db()->GetOptions(dst), dst);
    CKPT_RETURN_IF_ERROR(FromRocks(writer.Open(file), file));
    for (; it.Valid(); it.Next()) {
      CKPT_RETURN_IF_ERROR(FromRocks(writer.Put(it.key(), it.value()), file));
      ++keys;
    }
    CKPT_RETURN_IF_ERROR(FromRocks(it.status(), from.db_dir()));
    CKPT_RETURN_IF_ERROR(FromRocks(writer.Finish(), file));
    rocksdb::IngestExternalFileOptions io;
    io.move_files = true;
    CKPT_RETURN_IF_ERROR(
        FromRocks(to.db()->IngestExternalFile(dst, {file}, io), "ingesting " + file));
  }
  return keys;
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

base::Status RocksDbKeyedStateBackend::Restore(const KeyedRestoreSource& source) {
  if (HasChangelogHandles(source)) return RestoreWithChangelog(source);
  impl_->in_restore = true;
  const auto t0 = std::chrono::steady_clock::now();
  base::Status st = RestoreImpl(source);
  const auto t1 = std::chrono::steady_clock::now();
  impl_->in_restore = false;
  if (st.ok()) st = FlushRestoreBatch();
  impl_->restore_batch.Clear();
  impl_->restore_stats.finish_seconds = SecondsSince(t1);
  impl_->restore_stats.total_seconds = SecondsSince(t0);
  return st;
}

base::Status RocksDbKeyedStateBackend::RestoreImpl(const KeyedRestoreSource& source) {
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
  RocksDbRestoreStats& stats = impl_->restore_stats;
  stats = RocksDbRestoreStats();
  if (!native.empty()) {
    std::stable_sort(native.begin(), native.end(), [&](const auto* a, const auto* b) {
      return Overlap(*a, mine) > Overlap(*b, mine);
    });
    // DB rebuild: the handle with the most owned key groups becomes our instance (clipped);
    // without clipping (the baseline Flink had before), every owned key is inserted into the
    // fresh instance, from every overlapping handle.
    const size_t first_copied = impl_->options.rescale_by_clipping ? 1 : 0;
    if (impl_->options.rescale_by_clipping) {
      const std::string base_dir = base::JoinPath(impl_->root, "db-restored");
      auto t0 = std::chrono::steady_clock::now();
      CKPT_RETURN_IF_ERROR_CTX(Fetch(source, *native[0], base_dir, &stats),
                               owner() + ": restore");
      stats.fetch_seconds += SecondsSince(t0);
      // The restored instance becomes ours (an instance opened before gives way to it).
      t0 = std::chrono::steady_clock::now();
      if (impl_->inst != nullptr) {
        const std::string old_dir = impl_->inst->db_dir();
        impl_->inst->ReleaseRoot();
        impl_->inst.reset();
        base::RemoveAll(base::Fs::Default(), old_dir).IgnoreError();
      }
      CKPT_ASSIGN_OR_RETURN(impl_->inst,
                            RocksDbInstance::Open(impl_->root, base_dir,
                                                  state_internal::ListColumnFamilies(base_dir)));
      stats.open_seconds += SecondsSince(t0);
      t0 = std::chrono::steady_clock::now();
      if (native[0]->key_group_start() < mine.start || native[0]->key_group_end() > mine.end) {
        CKPT_RETURN_IF_ERROR_CTX(ClipTo(*impl_->inst, mine), owner() + ": restore");
      }
      stats.clip_seconds += SecondsSince(t0);
    } else {
      auto t0 = std::chrono::steady_clock::now();
      CKPT_RETURN_IF_ERROR_CTX(EnsureInstance(), owner() + ": restore");
      stats.open_seconds += SecondsSince(t0);
    }
    for (size_t i = first_copied; i < native.size(); ++i) {
      const std::string dir = base::JoinPath(impl_->root, "restore-" + std::to_string(i));
      auto t0 = std::chrono::steady_clock::now();
      base::Status st = Fetch(source, *native[i], dir, &stats);
      stats.fetch_seconds += SecondsSince(t0);
      if (st.ok()) {
        t0 = std::chrono::steady_clock::now();
        base::Result<std::shared_ptr<RocksDbInstance>> other =
            RocksDbInstance::OpenReadOnly(dir, {});
        stats.open_seconds += SecondsSince(t0);
        t0 = std::chrono::steady_clock::now();
        // Into a clipped instance: bulk-loaded; into a fresh one (the baseline): key by key.
        base::Result<uint64_t> keys =
            !other.ok() ? base::Result<uint64_t>(other.status())
            : impl_->options.rescale_by_clipping ? IngestOwned(**other, *impl_->inst, mine, dir)
                                                 : CopyOwned(**other, *impl_->inst, mine);
        if (keys.ok()) stats.keys_inserted += *keys;
        st = keys.status();
        stats.insert_seconds += SecondsSince(t0);
      }
      base::RemoveAll(base::Fs::Default(), dir).IgnoreError();
      CKPT_RETURN_IF_ERROR_CTX(st, owner() + ": restore");
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (const pb::KeyGroupsStateHandle* kg : canonical) {
    CKPT_RETURN_IF_ERROR(state_internal::RestoreCanonicalHandle(this, source, *kg, local_of));
  }
  if (!canonical.empty()) stats.canonical_seconds += SecondsSince(t0);
  return base::Status::OK();
}

}  // namespace ckpt::engine
