// StateBackendConfig parsing and the backend factory.
#include "ckpt/engine/state/state_backend_config.h"

#include <string>
#include <utility>

#include "ckpt/engine/state/changelog_keyed_state_backend.h"
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

base::Result<StateBackendConfig> StateBackendConfigFromSpec(const pb::JobSpec& spec) {
  StateBackendConfig c;
  if (!spec.state_backend().empty()) {
    CKPT_ASSIGN_OR_RETURN(c.kind, ParseStateBackendKind(spec.state_backend(),
                                                        "job spec: state_backend"));
  }
  c.incremental = spec.incremental();
  c.changelog = spec.changelog();
  c.local_dir = spec.state_local_dir();
  if (spec.changelog_materialization_interval_ms() != 0) {
    c.materialization_interval_ms = spec.changelog_materialization_interval_ms();
  }
  return c;
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
    StateBackendConfig plain = config;
    plain.changelog = false;
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<KeyedStateBackend> inner,
                          CreateKeyedStateBackend(plain, max_parallelism, key_groups,
                                                  std::move(owner), operator_id_hex,
                                                  subtask_index));
    ChangelogBackendOptions o;
    o.materialization_interval_ms = config.materialization_interval_ms;
    o.upload_size_bytes = config.changelog_upload_size_bytes;
    o.upload_interval_ms = config.changelog_upload_interval_ms;
    return std::unique_ptr<KeyedStateBackend>(
        std::make_unique<ChangelogKeyedStateBackend>(std::move(inner), o));
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
