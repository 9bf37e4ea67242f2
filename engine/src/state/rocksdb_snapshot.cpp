// RocksDB backend snapshots: the canonical view (a read-only Checkpoint iterated per key group) and
// the native part (RocksDB Checkpoint in the sync phase, file copies/uploads in the async phase).
#include "state/rocksdb_snapshot.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/format/value_codec.h"
#include "rocksdb/iterator.h"
#include "rocksdb/utilities/checkpoint.h"
#include "state/canonical_snapshot.h"

namespace ckpt::engine::state_internal {

std::vector<rocksdb::ColumnFamilyHandle*> ColumnFamiliesOf(const BackendCore& core,
                                                           const RocksDbInstance& inst) {
  std::vector<rocksdb::ColumnFamilyHandle*> out(core.states.size(), nullptr);
  for (size_t i = 0; i < core.states.size(); ++i) {
    if (core.states[i].descriptor.kind() == pb::STATE_TIMERS) continue;
    out[i] = inst.FindColumnFamily(core.states[i].descriptor.name());
  }
  return out;
}

namespace {

// The instance updates memtable entries in place, so it has no RocksDB snapshots (GetSnapshot
// returns null, see RocksDbInstance::CfOptions): the canonical view reads a RocksDB Checkpoint of
// it (hard links, memtables flushed) opened read-only in `<root>/canonical-<n>`, which no later
// write reaches.
struct CanonicalView {
  std::shared_ptr<RocksDbInstance> db;  // null: no instance, or `status` failed
  std::string dir;
  base::Status status;
};

CanonicalView OpenCanonicalView(RocksDbInstance* inst) {
  static std::atomic<uint64_t> sequence{0};
  CanonicalView v;
  if (inst == nullptr) return v;
  v.dir = base::JoinPath(inst->root(), "canonical-" + std::to_string(sequence.fetch_add(1)));
  rocksdb::Checkpoint* raw = nullptr;
  v.status = FromRocks(rocksdb::Checkpoint::Create(inst->db(), &raw), inst->db_dir());
  if (!v.status.ok()) return v;
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  v.status = FromRocks(checkpoint->CreateCheckpoint(v.dir, 0), "checkpoint into " + v.dir);
  if (!v.status.ok()) return v;
  base::Result<std::shared_ptr<RocksDbInstance>> db = RocksDbInstance::OpenReadOnly(v.dir, {});
  if (!db.ok()) {
    v.status = db.status();
    return v;
  }
  v.db = std::move(*db);
  return v;
}

class RocksDbCanonicalSnapshot : public KeyedStateSnapshot {
 public:
  RocksDbCanonicalSnapshot(std::shared_ptr<RocksDbInstance> inst, BackendCore& core)
      : view_(OpenCanonicalView(inst.get())),
        inst_(view_.db),
        snapshot_(nullptr),
        timers_(std::make_unique<HeapKeyedStateSnapshot>(Freeze(core))),
        cfs_(inst_ != nullptr ? ColumnFamiliesOf(core, *inst_)
                              : std::vector<rocksdb::ColumnFamilyHandle*>(core.states.size())) {}
  ~RocksDbCanonicalSnapshot() override {
    inst_.reset();
    view_.db.reset();
    if (!view_.dir.empty()) base::RemoveAll(base::Fs::Default(), view_.dir).IgnoreError();
  }

  const std::vector<pb::StateDescriptor>& states() const override { return timers_->states(); }
  uint32_t max_parallelism() const override { return timers_->max_parallelism(); }
  format::KeyGroupRange key_group_range() const override { return timers_->key_group_range(); }

  uint64_t NumEntries() const override {
    std::call_once(count_once_, [&] {
      uint64_t n = timers_->NumEntries();
      for (rocksdb::ColumnFamilyHandle* cf : cfs_) {
        if (cf == nullptr) continue;
        rocksdb::ReadOptions ro;
        ro.snapshot = snapshot_;
        std::unique_ptr<rocksdb::Iterator> it(inst_->db()->NewIterator(ro, cf));
        for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
      }
      count_ = n;
    });
    return count_;
  }

  base::Status ForEachRecord(
      uint32_t key_group,
      const std::function<base::Status(const format::KeyedRecord&)>& emit) const override {
    CKPT_RETURN_IF_ERROR(view_.status);
    // Timers are the first two states (declared when the backend is created).
    CKPT_RETURN_IF_ERROR(timers_->ForEachRecord(key_group, emit));
    const std::string lower = KeyGroupStart(key_group);
    const std::string upper = KeyGroupStart(key_group + 1);
    std::string list_buf;
    for (size_t i = 0; i < cfs_.size(); ++i) {
      if (cfs_[i] == nullptr) continue;
      const pb::StateDescriptor& d = states()[i];
      rocksdb::Slice upper_slice(upper);
      rocksdb::ReadOptions ro;
      ro.snapshot = snapshot_;
      ro.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it(inst_->db()->NewIterator(ro, cfs_[i]));
      ParsedKey pk;
      for (it->Seek(lower); it->Valid(); it->Next()) {
        const std::string_view k(it->key().data(), it->key().size());
        const std::string_view v(it->value().data(), it->value().size());
        if (!ParseStateKey(k, &pk)) {
          return base::Status::Corruption("state '" + d.name() + "': malformed RocksDB key");
        }
        format::KeyedRecord rec;
        rec.state_index = static_cast<uint32_t>(i);
        rec.key = pk.key;
        rec.ns = pk.ns;
        rec.user_key = d.kind() == pb::STATE_MAP ? pk.user_key : std::string_view();
        rec.value = v;
        if (d.kind() == pb::STATE_LIST) {
          CKPT_ASSIGN_OR_RETURN(format::Value list, DecodeListValue(d.value_type(), v, d.name()));
          list_buf.clear();
          CKPT_RETURN_IF_ERROR(
              format::EncodeValue(format::types::List(d.value_type()), list, &list_buf));
          rec.value = list_buf;
        }
        CKPT_RETURN_IF_ERROR(emit(rec));
      }
      CKPT_RETURN_IF_ERROR(FromRocks(it->status(), "state '" + d.name() + "'"));
    }
    return base::Status::OK();
  }

 private:
  CanonicalView view_;
  std::shared_ptr<RocksDbInstance> inst_;  // the view's read-only instance
  const rocksdb::Snapshot* snapshot_;      // none: the view never changes
  std::unique_ptr<HeapKeyedStateSnapshot> timers_;
  std::vector<rocksdb::ColumnFamilyHandle*> cfs_;
  mutable std::once_flag count_once_;
  mutable uint64_t count_ = 0;
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class RocksDbNativePart : public SnapshotAsyncPart {
 public:
  RocksDbNativePart(std::shared_ptr<RocksDbInstance> inst, std::string local_dir,
                    std::unique_ptr<HeapKeyedStateSnapshot> timers,
                    std::map<std::string, std::string> column_families, std::string backend_id,
                    bool incremental, std::map<std::string, pb::FileEntry> confirmed,
                    std::shared_ptr<UploadTracker> tracker)
      : inst_(std::move(inst)),
        local_dir_(std::move(local_dir)),
        timers_(std::move(timers)),
        column_families_(std::move(column_families)),
        backend_id_(std::move(backend_id)),
        incremental_(incremental),
        confirmed_(std::move(confirmed)),
        tracker_(std::move(tracker)) {}

  ~RocksDbNativePart() override {
    base::RemoveAll(base::Fs::Default(), local_dir_).IgnoreError();
  }

  const std::vector<pb::StateDescriptor>& states() const override { return timers_->states(); }
  bool empty() const override { return false; }

  base::Result<KeyedSnapshotResult> Run(base::Fs& fs, const CheckpointOptions& options,
                                        const SnapshotWriteOptions& write,
                                        const std::string& stem) override {
    std::vector<std::string> written;  // removed on failure
    base::Result<KeyedSnapshotResult> r = RunImpl(fs, options, write, stem, &written);
    base::RemoveAll(base::Fs::Default(), local_dir_).IgnoreError();
    if (!r.ok()) {
      for (const std::string& p : written) fs.RemoveFile(p).IgnoreError();
      std::lock_guard<std::mutex> lock(tracker_->mu);
      tracker_->pending.erase(options.checkpoint_id);
    }
    return r;
  }

 private:
  base::Result<KeyedSnapshotResult> RunImpl(base::Fs& fs, const CheckpointOptions& options,
                                            const SnapshotWriteOptions& write,
                                            const std::string& stem,
                                            std::vector<std::string>* written) {
    base::Fs& local = base::Fs::Default();
    const int64_t id = options.checkpoint_id;
    KeyedSnapshotResult out;
    const format::KeyGroupRange range = timers_->key_group_range();
    pb::RocksDbStateHandle handle;
    handle.set_key_group_start(range.start);
    handle.set_key_group_end(range.end);
    handle.set_backend_id(backend_id_);
    for (const auto& [state, cf] : column_families_) (*handle.mutable_column_families())[state] = cf;

    CKPT_ASSIGN_OR_RETURN(std::vector<base::DirEntry> entries, local.ListDir(local_dir_));
    std::sort(entries.begin(), entries.end(),
              [](const base::DirEntry& a, const base::DirEntry& b) { return a.name < b.name; });
    const std::string shared_rel = stem;
    const std::string shared_dir =
        base::JoinPath(options.SharedDir(), shared_rel);
    UploadTracker::Pending pending;
    pending.fs = &fs;
    for (const base::DirEntry& e : entries) {
      if (e.is_dir) continue;
      const std::string src = base::JoinPath(local_dir_, e.name);
      const bool sst = EndsWith(e.name, ".sst");
      pb::FileEntry entry;
      entry.set_kind(sst ? pb::ROCKSDB_SST : pb::ROCKSDB_META);
      entry.set_compression(pb::COMPRESSION_NONE);
      if (sst && incremental_) {
        // A FULL checkpoint re-uploads every SST (self-contained).
        auto known = options.full ? confirmed_.end() : confirmed_.find(e.name);
        if (known != confirmed_.end()) {
          entry = known->second;  // uploaded by an earlier, completed checkpoint
        } else {
          CKPT_RETURN_IF_ERROR(fs.CreateDirs(shared_dir));
          const std::string name = backend_id_ + "-" + std::to_string(id) + "-" + e.name;
          const std::string dst = base::JoinPath(shared_dir, name);
          uint64_t size = 0;
          written->push_back(dst);
          CKPT_ASSIGN_OR_RETURN(uint64_t sum, CopyFileBetween(local, src, fs, dst, &size));
          pending.uploaded.push_back(dst);
          entry.set_path(shared_rel + "/" + name);
          entry.set_scope(pb::SHARED);
          entry.set_size_bytes(size);
          entry.set_checksum_xxh3(sum);
          entry.set_created_by_checkpoint_id(id);
          out.checkpointed_size_bytes += size;
        }
        pending.ssts[e.name] = entry;
      } else {
        const std::string name = stem + "-" + e.name;
        const std::string dst = base::JoinPath(options.snapshot_dir, name);
        uint64_t size = 0;
        written->push_back(dst);
        CKPT_ASSIGN_OR_RETURN(uint64_t sum, CopyFileBetween(local, src, fs, dst, &size));
        entry.set_path(name);
        entry.set_scope(pb::EXCLUSIVE);
        entry.set_size_bytes(size);
        entry.set_checksum_xxh3(sum);
        entry.set_created_by_checkpoint_id(id);
        out.checkpointed_size_bytes += size;
      }
      out.state_size_bytes += entry.size_bytes();
      pb::RocksDbFile* f = sst ? handle.add_sst_files() : handle.add_meta_files();
      f->set_local_name(e.name);
      f->set_file_index(static_cast<uint32_t>(out.files.size()));
      out.files.push_back(std::move(entry));
    }
    *out.handles.emplace_back().mutable_rocksdb() = std::move(handle);

    // Timers (heap) in the canonical format beside the SSTs.
    if (timers_->NumEntries() > 0) {
      const std::string name = stem + "-timers.state";
      const std::string path = base::JoinPath(options.snapshot_dir, name);
      format::StateFileSummary summary;
      written->push_back(path);
      CKPT_ASSIGN_OR_RETURN(pb::KeyGroupsStateHandle kg,
                            WriteCanonicalKeyedState(fs, path, *timers_, write, &summary));
      kg.set_file_index(static_cast<uint32_t>(out.files.size()));
      *out.handles.emplace_back().mutable_key_groups() = std::move(kg);
      out.files.push_back(ExclusiveFileEntry(name, pb::KEYED_STATE, summary, id));
      out.state_size_bytes += summary.size_bytes;
      out.checkpointed_size_bytes += summary.size_bytes;
    }
    if (incremental_) {
      std::lock_guard<std::mutex> lock(tracker_->mu);
      tracker_->pending[id] = std::move(pending);
    }
    return out;
  }

  std::shared_ptr<RocksDbInstance> inst_;  // keeps the instance (and its root) alive
  std::string local_dir_;
  std::unique_ptr<HeapKeyedStateSnapshot> timers_;
  std::map<std::string, std::string> column_families_;
  std::string backend_id_;
  bool incremental_;
  std::map<std::string, pb::FileEntry> confirmed_;
  std::shared_ptr<UploadTracker> tracker_;
};

}  // namespace

std::unique_ptr<KeyedStateSnapshot> MakeRocksDbCanonicalSnapshot(
    std::shared_ptr<RocksDbInstance> inst, BackendCore& core) {
  return std::make_unique<RocksDbCanonicalSnapshot>(std::move(inst), core);
}

base::Result<std::unique_ptr<SnapshotAsyncPart>> MakeRocksDbNativePart(
    std::shared_ptr<RocksDbInstance> inst, BackendCore& core, const std::string& backend_id,
    bool incremental, int64_t checkpoint_id, std::shared_ptr<UploadTracker> tracker) {
  static std::atomic<uint64_t> sequence{0};
  const std::string local_dir =
      base::JoinPath(inst->root(), "chk-" + std::to_string(checkpoint_id) + "-" +
                                       std::to_string(sequence.fetch_add(1)));
  rocksdb::Checkpoint* raw = nullptr;
  CKPT_RETURN_IF_ERROR(FromRocks(rocksdb::Checkpoint::Create(inst->db(), &raw), inst->db_dir()));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush = 0: memtables are always flushed (the WAL is off), so the checkpoint's
  // SSTs hold everything.
  CKPT_RETURN_IF_ERROR(
      FromRocks(checkpoint->CreateCheckpoint(local_dir, 0), "checkpoint into " + local_dir));
  std::map<std::string, std::string> cfs;
  for (const auto& s : core.states) {
    if (s.descriptor.kind() == pb::STATE_TIMERS) continue;
    if (inst->FindColumnFamily(s.descriptor.name()) != nullptr) {
      cfs[s.descriptor.name()] = s.descriptor.name();
    }
  }
  std::map<std::string, pb::FileEntry> confirmed;
  if (incremental) {
    std::lock_guard<std::mutex> lock(tracker->mu);
    confirmed = tracker->confirmed;
    tracker->last_started = std::max(tracker->last_started, checkpoint_id);
  }
  std::unique_ptr<SnapshotAsyncPart> part = std::make_unique<RocksDbNativePart>(
      std::move(inst), local_dir, std::make_unique<HeapKeyedStateSnapshot>(Freeze(core)),
      std::move(cfs), backend_id, incremental, std::move(confirmed), std::move(tracker));
  return part;
}

}  // namespace ckpt::engine::state_internal
