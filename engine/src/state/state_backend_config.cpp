// StateBackendConfig parsing and the backend factory.
#include "ckpt/engine/state/state_backend_config.h"

#include <string>
#include <utility>

#include "ckpt/engine/state/heap_keyed_state_backend.h"
#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"

namespace ckpt::engine {

base::Result<StateBackendKind> ParseStateBackendKind(std::string_view name,
                                                     std::string_view where) {
  if (name == "heap") return StateBackendKind::kHeap;
  if (name == "rocksdb") return StateBackendKind::kRocksDb;
  return base::Status::InvalidArgument(std::string(where) + ": unknown state backend '" +
                                       std::string(name) + "' (expected heap or rocksdb)");
}

std::string_view StateBackendKindName(StateBackendKind kind) {
  switch (kind) {
    case StateBackendKind::kHeap:
      return "heap";
    case StateBackendKind::kRocksDb:
      return "rocksdb";
  }
  return "unknown";
}

base::Result<std::unique_ptr<KeyedStateBackend>> CreateKeyedStateBackend(
    const StateBackendConfig& config, uint32_t max_parallelism, format::KeyGroupRange key_groups,
    std::string owner, const std::string& operator_id_hex, uint32_t subtask_index) {
  if (config.changelog) {
    return base::Status::Unimplemented(
        "state backend: the changelog backend (changelog: true) is not implemented yet");
  }
  switch (config.kind) {
    case StateBackendKind::kHeap:
      if (config.incremental) {
        return base::Status::InvalidArgument(
            "state backend: incremental checkpoints need the rocksdb backend (the heap backend "
            "takes full snapshots only)");
      }
      return std::unique_ptr<KeyedStateBackend>(
          std::make_unique<HeapKeyedStateBackend>(max_parallelism, key_groups, std::move(owner)));
    case StateBackendKind::kRocksDb: {
      RocksDbBackendOptions o;
      o.incremental = config.incremental;
      o.local_dir = config.local_dir;
      o.instance_name = (operator_id_hex.empty() ? std::string("op") : operator_id_hex) + "-" +
                        std::to_string(subtask_index);
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<RocksDbKeyedStateBackend> b,
                            RocksDbKeyedStateBackend::Open(max_parallelism, key_groups,
                                                           std::move(owner), std::move(o)));
      return std::unique_ptr<KeyedStateBackend>(std::move(b));
    }
  }
  return base::Status::InvalidArgument("state backend: unknown kind");
}

}  // namespace ckpt::engine
