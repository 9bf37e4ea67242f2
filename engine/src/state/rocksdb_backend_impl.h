// RocksDbKeyedStateBackend::Impl: the backend's private members, shared by its source files.
#pragma once

#include <memory>
#include <string>

#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"
#include "state/rocksdb_instance.h"
#include "state/rocksdb_snapshot.h"

namespace ckpt::engine {

struct RocksDbKeyedStateBackend::Impl {
  RocksDbBackendOptions options;
  std::string root;  // working directory (removed by the instance that owns it)
  std::shared_ptr<state_internal::RocksDbInstance> inst;
  std::string backend_id;  // random, stable across the backend's checkpoints
  std::shared_ptr<state_internal::UploadTracker> tracker =
      std::make_shared<state_internal::UploadTracker>();
};

}  // namespace ckpt::engine
