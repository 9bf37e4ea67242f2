// RocksDbKeyedStateBackend: opening the instance, the per-state internals over column families,
// record restore and checkpoint notifications.
#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"

#include <cstdlib>
#include <random>
#include <string>
#include <utility>

#include "ckpt/base/endian.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/state/internal_keyed_state.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/format/value_codec.h"
#include "rocksdb/iterator.h"
#include "rocksdb/perf_level.h"
#include "rocksdb/slice.h"
#include "rocksdb/write_batch.h"
#include "state/backend_core.h"
#include "state/canonical_snapshot.h"
#include "state/rocksdb_backend_impl.h"
#include "state/rocksdb_instance.h"
#include "state/rocksdb_snapshot.h"

namespace ckpt::engine {

using state_internal::BackendCore;
using state_internal::FromRocks;
using state_internal::RocksDbInstance;

namespace {

constexpr size_t kRestoreBatchBytes = 2u << 20;

std::string RandomHex(int digits) {
  static const char* kHex = "0123456789abcdef";
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  std::string s;
  for (int i = 0; i < digits; ++i) s.push_back(kHex[gen() & 15]);
  return s;
}

// RocksDB's default perf level (kEnableCount) counts every key comparison of the memtable's skip
// list in a thread-local PerfContext, which the shared library reaches through __tls_get_addr:
// about a third of the CPU per record of a value state. Nothing reads those counters; the level
// is per thread, so each thread that accesses a state turns them off once (Flink's backend runs
// with the counters off as well).
void DisablePerfCounters() {
  thread_local bool disabled = false;
  if (disabled) return;
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kDisable);
  disabled = true;
}

// Per-state internals over the state's column family. The hot path (value get and put) reuses
// the shared key prefix, a pinned read buffer and one encode buffer: no allocation per access
// beyond RocksDB's own.
class RocksDbInternalState : public state_internal::InternalKeyedState {
 public:
  RocksDbInternalState(BackendCore* core, RocksDbInstance* inst, rocksdb::ColumnFamilyHandle* cf,
                       uint32_t id, state_internal::KeyPrefix* prefix)
      : c_(core), inst_(inst), cf_(cf), id_(id), prefix_(prefix) {}

  const format::Value* Get() override {
    const std::string* key = CurrentKey();
    if (key == nullptr) return nullptr;
    return Read(*key);
  }

  base::Status Put(format::Value value) override {
    const std::string* key = CurrentKey();
    if (key == nullptr) return c_->NotOwned();
    const pb::StateDescriptor& d = desc();
    value_buf_.clear();
    if (d.kind() == pb::STATE_LIST) {
      const auto* list = std::get_if<format::List>(&value.v);
      if (list == nullptr) return Mismatch("a list");
      for (const format::Value& e : list->elements) CKPT_RETURN_IF_ERROR(Encode(e, &value_buf_));
    } else {
      CKPT_RETURN_IF_ERROR(Encode(value, &value_buf_));
    }
    return Write(inst_->db()->Put(inst_->write_options(), cf_, *key, value_buf_));
  }

  base::Status Clear() override {
    const std::string* key = CurrentKey();
    if (key == nullptr) return c_->NotOwned();
    if (desc().kind() != pb::STATE_MAP) {
      return Write(inst_->db()->Delete(inst_->write_options(), cf_, *key));
    }
    rocksdb::WriteBatch batch;
    ForEachMapEntry(*key, [&](const rocksdb::Slice& k, const rocksdb::Slice&) {
      batch.Delete(cf_, k);
      return true;
    });
    return Write(inst_->db()->Write(inst_->write_options(), &batch));
  }

  base::Status AddToList(format::Value element) override {
    const std::string* key = CurrentKey();
    if (key == nullptr) return c_->NotOwned();
    value_buf_.clear();
    CKPT_RETURN_IF_ERROR(Encode(element, &value_buf_));
    return Write(inst_->db()->Merge(inst_->write_options(), cf_, *key, value_buf_));
  }

  base::Status Fold(const format::Value& input) override {
    if (!c_->key_in_range) return c_->NotOwned();
    const state_internal::KeyedStateInfo& info = c_->states[id_];
    const format::Value* stored = Get();
    format::Value acc;
    if (info.descriptor.kind() == pb::STATE_AGGREGATING) {
      acc = stored != nullptr ? *stored : info.aggregate.create_accumulator();
      info.aggregate.add(acc, input);
    } else if (stored == nullptr) {
      acc = input;
    } else {
      acc = *stored;
      info.reduce(acc, input);
    }
    return Put(std::move(acc));
  }

  // An INT64 value state: the stored varint is read from the pinned slice and the sum written
  // from the reused encode buffer, no Value decoded or built (and no type shape validated, which
  // the generic decode does per call).
  base::Result<int64_t> AddInt64(int64_t delta) override {
    const pb::StateDescriptor& d = desc();
    if (d.kind() != pb::STATE_VALUE || d.value_type().kind() != pb::TypeDescriptor::INT64) {
      return InternalKeyedState::AddInt64(delta);
    }
    const std::string* key = CurrentKey();
    if (key == nullptr) return c_->NotOwned();
    int64_t result = delta;
    pinned_.Reset();
    if (inst_->db()->Get(read_options_, cf_, *key, &pinned_).ok()) {
      // As Read: bytes that do not decode read as absent.
      std::string_view bytes(pinned_.data(), pinned_.size());
      uint64_t zigzag = 0;
      if (base::GetVarint64(&bytes, &zigzag) && bytes.empty()) {
        result = base::ZigZagDecode(zigzag) + delta;
      }
    }
    pinned_.Reset();
    value_buf_.clear();
    base::PutVarint64(&value_buf_, base::ZigZagEncode(result));
    CKPT_RETURN_IF_ERROR(Write(inst_->db()->Put(inst_->write_options(), cf_, *key, value_buf_)));
    return result;
  }

  const format::Value* MapGet(const format::Value& user_key) override {
    if (!MapKey(user_key)) return nullptr;
    return Read(map_key_);
  }

  base::Status MapPut(const format::Value& user_key, format::Value value) override {
    const std::string* key = CurrentKey();
    if (key == nullptr) return c_->NotOwned();
    map_key_.assign(*key);
    base::Status st = format::EncodeValue(desc().user_key_type(), user_key, &map_key_);
    if (!st.ok()) return st.WithContext(Where() + " user key");
    value_buf_.clear();
    CKPT_RETURN_IF_ERROR(Encode(value, &value_buf_));
    return Write(inst_->db()->Put(inst_->write_options(), cf_, map_key_, value_buf_));
  }

  base::Status MapRemove(const format::Value& user_key) override {
    if (CurrentKey() == nullptr) return c_->NotOwned();
    if (!MapKey(user_key)) return base::Status::OK();  // a key of the wrong type is never stored
    return Write(inst_->db()->Delete(inst_->write_options(), cf_, map_key_));
  }

  size_t MapSize() override {
    const std::string* key = CurrentKey();
    if (key == nullptr) return 0;
    size_t n = 0;
    ForEachMapEntry(*key, [&](const rocksdb::Slice&, const rocksdb::Slice&) {
      ++n;
      return true;
    });
    return n;
  }

  void MapForEach(const std::function<bool(const format::Value& user_key,
                                           const format::Value& value)>& fn) override {
    const std::string* key = CurrentKey();
    if (key == nullptr) return;
    const size_t prefix = key->size();
    ForEachMapEntry(*key, [&](const rocksdb::Slice& k, const rocksdb::Slice& v) {
      std::string_view uk(k.data() + prefix, k.size() - prefix);
      base::Result<format::Value> user_key = format::DecodeValueExact(desc().user_key_type(), uk);
      base::Result<format::Value> value =
          format::DecodeValueExact(desc().value_type(), std::string_view(v.data(), v.size()));
      if (!user_key.ok() || !value.ok()) return true;  // not written by this backend: skipped
      return fn(*user_key, *value);
    });
  }

  const AggregateFunction& aggregate() const override { return c_->states[id_].aggregate; }

 private:
  // The current key's prefix (KeyPrefix::Get), with the perf counters of this thread off.
  const std::string* CurrentKey() {
    DisablePerfCounters();
    return prefix_->Get();
  }
  const pb::StateDescriptor& desc() const { return c_->states[id_].descriptor; }
  std::string Where() const { return c_->owner + ": state '" + desc().name() + "'"; }
  base::Status Mismatch(const char* what) const {
    return base::Status::InvalidArgument(Where() + ": value is not " + std::string(what));
  }
  base::Status Write(const rocksdb::Status& s) const {
    if (s.ok()) return base::Status::OK();
    return FromRocks(s, Where());
  }
  base::Status Encode(const format::Value& v, std::string* out) const {
    base::Status st = format::EncodeValue(desc().value_type(), v, out);
    if (!st.ok()) {
      return base::Status::InvalidArgument(Where() + ": value does not match its declared type " +
                                           format::TypeName(desc().value_type()) + ": " +
                                           st.message());
    }
    return base::Status::OK();
  }
  // map_key_ = prefix | encoded user key; false if the key group is not owned or the user key
  // does not match the declared type.
  bool MapKey(const format::Value& user_key) {
    const std::string* key = CurrentKey();
    if (key == nullptr) return false;
    map_key_.assign(*key);
    return format::EncodeValue(desc().user_key_type(), user_key, &map_key_).ok();
  }
  // The decoded value stored under `key`, or nullptr (absent; a storage error or bytes this
  // backend did not write read as absent).
  const format::Value* Read(const std::string& key) {
    pinned_.Reset();
    rocksdb::Status s = inst_->db()->Get(read_options_, cf_, key, &pinned_);
    if (!s.ok()) return nullptr;
    const pb::StateDescriptor& d = desc();
    const std::string_view bytes(pinned_.data(), pinned_.size());
    base::Result<format::Value> v =
        d.kind() == pb::STATE_LIST ? state_internal::DecodeListValue(d.value_type(), bytes, d.name())
                                   : format::DecodeValueExact(d.value_type(), bytes);
    pinned_.Reset();
    if (!v.ok()) return nullptr;
    cache_ = std::move(*v);
    return &cache_;
  }
  // Entries of the (key, namespace) map whose prefix is `prefix`.
  template <typename Fn>
  void ForEachMapEntry(const std::string& prefix, Fn&& fn) {
    std::string upper = prefix;
    upper.back() = static_cast<char>(upper.back() + 1);  // ... 0x00 0x01 -> 0x00 0x02
    rocksdb::Slice upper_slice(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(inst_->db()->NewIterator(ro, cf_));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      if (!fn(it->key(), it->value())) break;
    }
  }

  BackendCore* c_;
  RocksDbInstance* inst_;
  rocksdb::ColumnFamilyHandle* cf_;
  uint32_t id_;
  state_internal::KeyPrefix* prefix_;
  rocksdb::ReadOptions read_options_;
  rocksdb::PinnableSlice pinned_;
  std::string map_key_;
  std::string value_buf_;
  format::Value cache_;
};

}  // namespace

RocksDbKeyedStateBackend::RocksDbKeyedStateBackend(uint32_t max_parallelism,
                                                   format::KeyGroupRange key_groups,
                                                   std::string owner, std::unique_ptr<Impl> impl)
    : KeyedStateBackend(max_parallelism, key_groups, std::move(owner)), impl_(std::move(impl)) {}

RocksDbKeyedStateBackend::~RocksDbKeyedStateBackend() = default;

base::Result<std::unique_ptr<RocksDbKeyedStateBackend>> RocksDbKeyedStateBackend::Open(
    uint32_t max_parallelism, format::KeyGroupRange key_groups, std::string owner,
    RocksDbBackendOptions options) {
  if (max_parallelism > 0x10000) {
    return base::Status::InvalidArgument(owner + ": the rocksdb backend supports a max parallelism "
                                                 "of at most 65536, not " +
                                         std::to_string(max_parallelism));
  }
  auto impl = std::make_unique<Impl>();
  std::string parent = options.local_dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = base::JoinPath(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "ckpt-engine-rocksdb");
  }
  impl->backend_id = RandomHex(16);
  impl->root = base::JoinPath(parent, options.instance_name + "-" + impl->backend_id.substr(0, 8));
  CKPT_RETURN_IF_ERROR_CTX(base::Fs::Default().CreateDirs(impl->root),
                           owner + ": rocksdb working directory");
  // The instance itself is opened on first use: a restore opens the restored one instead.
  impl->options = std::move(options);
  return std::unique_ptr<RocksDbKeyedStateBackend>(new RocksDbKeyedStateBackend(
      max_parallelism, key_groups, std::move(owner), std::move(impl)));
}

StateBackendKind RocksDbKeyedStateBackend::kind() const { return StateBackendKind::kRocksDb; }

const std::string& RocksDbKeyedStateBackend::working_dir() const { return impl_->root; }

const RocksDbRestoreStats& RocksDbKeyedStateBackend::last_restore_stats() const {
  return impl_->restore_stats;
}

base::Status RocksDbKeyedStateBackend::EnsureInstance() {
  if (impl_->inst != nullptr) return base::Status::OK();
  CKPT_ASSIGN_OR_RETURN(impl_->inst,
                        RocksDbInstance::Open(impl_->root, base::JoinPath(impl_->root, "db"), {}));
  return base::Status::OK();
}

RocksDbKeyedStateBackend::Impl::~Impl() {
  // Without an instance nobody else removes the working directory.
  if (inst == nullptr && !root.empty()) base::RemoveAll(base::Fs::Default(), root).IgnoreError();
}

base::Result<std::unique_ptr<state_internal::InternalKeyedState>>
RocksDbKeyedStateBackend::CreateInternalState(uint32_t id) {
  CKPT_RETURN_IF_ERROR_CTX(EnsureInstance(), owner());
  CKPT_ASSIGN_OR_RETURN(rocksdb::ColumnFamilyHandle * cf,
                        impl_->inst->ColumnFamily(core()->states[id].descriptor.name()));
  if (impl_->key_prefix == nullptr) impl_->key_prefix = std::make_unique<state_internal::KeyPrefix>(core());
  std::unique_ptr<state_internal::InternalKeyedState> s = std::make_unique<RocksDbInternalState>(
      core(), impl_->inst.get(), cf, id, impl_->key_prefix.get());
  return s;
}

base::Status RocksDbKeyedStateBackend::RestoreStateRecord(uint32_t id, uint32_t key_group,
                                                          const format::KeyedRecord& record) {
  const pb::StateDescriptor& d = core()->states[id].descriptor;
  const std::string where = owner() + ": state '" + d.name() + "'";
  CKPT_RETURN_IF_ERROR_CTX(EnsureInstance(), where);
  CKPT_ASSIGN_OR_RETURN(rocksdb::ColumnFamilyHandle * cf, impl_->inst->ColumnFamily(d.name()));
  std::string key;
  state_internal::AppendKeyGroup(key_group, &key);
  state_internal::AppendEscaped(record.key, &key);
  state_internal::AppendEscaped(record.ns, &key);
  std::string value;
  switch (d.kind()) {
    case pb::STATE_MAP: {
      CKPT_RETURN_IF_ERROR_CTX(format::DecodeValueExact(d.user_key_type(), record.user_key).status(),
                               where + " (user key)");
      CKPT_RETURN_IF_ERROR_CTX(format::DecodeValueExact(d.value_type(), record.value).status(),
                               where);
      key.append(record.user_key);
      value.assign(record.value);
      break;
    }
    case pb::STATE_LIST: {
      // Canonical: one list<element> value; stored: the concatenated elements.
      base::Result<format::Value> list =
          format::DecodeValueExact(format::types::List(d.value_type()), record.value);
      if (!list.ok()) return list.status().WithContext(where);
      for (const format::Value& e : std::get<format::List>(list->v).elements) {
        CKPT_RETURN_IF_ERROR_CTX(format::EncodeValue(d.value_type(), e, &value), where);
      }
      break;
    }
    case pb::STATE_VALUE:
    case pb::STATE_REDUCING:
    case pb::STATE_AGGREGATING:
      CKPT_RETURN_IF_ERROR_CTX(format::DecodeValueExact(d.value_type(), record.value).status(),
                               where);
      value.assign(record.value);
      break;
    default:
      return base::Status::Corruption(where + ": kind " + pb::StateKind_Name(d.kind()) +
                                      " is not keyed state");
  }
  if (!impl_->in_restore) {
    return FromRocks(impl_->inst->db()->Put(impl_->inst->write_options(), cf, key, value), where);
  }
  // Inside Restore: batched (Flink's RocksDBWriteBatchWrapper), written every ~2 MiB and at
  // the end of Restore.
  impl_->restore_batch.Put(cf, key, value);
  if (impl_->restore_batch.GetDataSize() < kRestoreBatchBytes) return base::Status::OK();
  return FlushRestoreBatch();
}

base::Status RocksDbKeyedStateBackend::FlushRestoreBatch() {
  if (impl_->restore_batch.Count() == 0) return base::Status::OK();
  base::Status st = FromRocks(
      impl_->inst->db()->Write(impl_->inst->write_options(), &impl_->restore_batch),
      owner() + ": restore");
  impl_->restore_batch.Clear();
  return st;
}

std::unique_ptr<KeyedStateSnapshot> RocksDbKeyedStateBackend::Snapshot() {
  // No instance yet: no state was ever written, the snapshot holds the timers only.
  return state_internal::MakeRocksDbCanonicalSnapshot(impl_->inst, *core());
}

base::Result<std::unique_ptr<SnapshotAsyncPart>> RocksDbKeyedStateBackend::SnapshotSync(
    const CheckpointOptions& options) {
  if (options.is_savepoint() && options.savepoint_format != pb::NATIVE) {
    return KeyedStateBackend::SnapshotSync(options);  // canonical: iterate into format/ files
  }
  const bool incremental = impl_->options.incremental && !options.is_savepoint();
  CKPT_RETURN_IF_ERROR_CTX(EnsureInstance(), owner());
  return state_internal::MakeRocksDbNativePart(impl_->inst, *core(), impl_->backend_id,
                                               incremental, options.checkpoint_id,
                                               impl_->tracker);
}

void RocksDbKeyedStateBackend::NotifyCheckpointComplete(int64_t checkpoint_id) {
  state_internal::UploadTracker& t = *impl_->tracker;
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.pending.find(checkpoint_id);
  // Adopted only if no later checkpoint was started on the previous set (see last_started).
  if (it != t.pending.end() && t.last_started <= checkpoint_id) {
    t.confirmed = std::move(it->second.ssts);
  }
  // Older pending checkpoints are subsumed; their uploads belong to the registry now (if they
  // completed) or to prune (if they never did).
  t.pending.erase(t.pending.begin(), t.pending.upper_bound(checkpoint_id));
}

void RocksDbKeyedStateBackend::NotifyCheckpointAborted(int64_t checkpoint_id) {
  state_internal::UploadTracker& t = *impl_->tracker;
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.pending.find(checkpoint_id);
  if (it == t.pending.end()) return;
  // Nothing else references what an aborted checkpoint uploaded: no orphans in shared/.
  if (it->second.fs != nullptr) {
    for (const std::string& p : it->second.uploaded) it->second.fs->RemoveFile(p).IgnoreError();
  }
  t.pending.erase(it);
}

uint64_t RocksDbKeyedStateBackend::NumEntries() const {
  uint64_t n = core()->event_timers.table->size() + core()->processing_timers.table->size();
  if (impl_->inst == nullptr) return n;
  for (rocksdb::ColumnFamilyHandle* cf : state_internal::ColumnFamiliesOf(*core(), *impl_->inst)) {
    if (cf == nullptr) continue;
    std::unique_ptr<rocksdb::Iterator> it(impl_->inst->db()->NewIterator(rocksdb::ReadOptions(), cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  }
  return n;
}

base::Status RocksDbKeyedStateBackend::CompactAll() {
  if (impl_->inst == nullptr) return base::Status::OK();
  rocksdb::DB* db = impl_->inst->db();
  for (const std::string& name : impl_->inst->ColumnFamilyNames()) {
    rocksdb::ColumnFamilyHandle* cf = impl_->inst->FindColumnFamily(name);
    CKPT_RETURN_IF_ERROR(FromRocks(db->Flush(rocksdb::FlushOptions(), cf), "flush " + name));
    rocksdb::CompactRangeOptions o;
    o.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    CKPT_RETURN_IF_ERROR(FromRocks(db->CompactRange(o, cf, nullptr, nullptr), "compact " + name));
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
