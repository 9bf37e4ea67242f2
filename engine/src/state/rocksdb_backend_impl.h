// RocksDbKeyedStateBackend::Impl: the backend's private members, shared by its source files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"
#include "state/backend_core.h"
#include "state/rocksdb_instance.h"
#include "rocksdb/write_batch.h"
#include "state/rocksdb_snapshot.h"

namespace ckpt::engine {

namespace state_internal {

// The (key group, key, namespace) prefix of the current key, shared by every state of the
// backend and rebuilt only when the current key or namespace changed (Flink's
// SerializedCompositeKeyBuilder): a get+put pair, or a record touching several states, builds it
// once.
class KeyPrefix {
 public:
  explicit KeyPrefix(const BackendCore* core) : c_(core) {}
  // The prefix, or nullptr if the current key group is not owned.
  const std::string* Get() {
    if (!c_->key_in_range) return nullptr;
    if (version_ != c_->key_version || !valid_) {
      bytes_.clear();
      AppendKeyGroup(c_->current_key_group, &bytes_);
      AppendEscaped(c_->current_encoded_key, &bytes_);
      AppendEscaped(c_->current_ns, &bytes_);
      version_ = c_->key_version;
      valid_ = true;
    }
    return &bytes_;
  }

 private:
  const BackendCore* c_;
  uint64_t version_ = 0;
  bool valid_ = false;
  std::string bytes_;
};

}  // namespace state_internal

struct RocksDbKeyedStateBackend::Impl {
  ~Impl();
  RocksDbBackendOptions options;
  std::string root;  // working directory (removed by the instance that owns it)
  // Opened on first use (EnsureInstance) or by a restore; null until then.
  std::shared_ptr<state_internal::RocksDbInstance> inst;
  std::string backend_id;  // random, stable across the backend's checkpoints
  std::shared_ptr<state_internal::UploadTracker> tracker =
      std::make_shared<state_internal::UploadTracker>();
  // Shared by the states' internals (created with the first state).
  std::unique_ptr<state_internal::KeyPrefix> key_prefix;
  // Restore in progress: records are batched into restore_batch (FlushRestoreBatch).
  bool in_restore = false;
  rocksdb::WriteBatch restore_batch;
  RocksDbRestoreStats restore_stats;
};

}  // namespace ckpt::engine
