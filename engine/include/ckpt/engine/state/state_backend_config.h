// StateBackendConfig: which keyed state backend a job's keyed operators use, from the job spec
// (`state_backend`, `incremental`, `changelog`, `state_local_dir`) and the `ckpt-engine run`
// flags (--state-backend, --incremental, --changelog, --state-local-dir), and the factory that
// creates one backend per keyed operator subtask. Plain value type; the factory is thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

class KeyedStateBackend;

enum class StateBackendKind { kHeap, kRocksDb };

struct StateBackendConfig {
  // Default: heap (Flink's HashMapStateBackend).
  StateBackendKind kind = StateBackendKind::kHeap;
  // RocksDB only: checkpoints upload only SST files not uploaded before and reference the
  // earlier ones in the job's shared/ directory. Default: false (every checkpoint is full).
  // Savepoints are never incremental.
  bool incremental = false;
  // The changelog backend (changelog_keyed_state_backend.h) wrapping the chosen one.
  // Default: false.
  bool changelog = false;
  // Changelog only: minimum time between two materializations of the wrapped backend (checked
  // at each checkpoint, run in the background; the first checkpoint always materializes).
  // Default: 10000.
  uint64_t materialization_interval_ms = 10000;
  // Changelog only: the background writer uploads a segment when this many bytes of changes
  // accumulated (Default: 5 MiB; 0: no size trigger) or when the oldest is
  // changelog_upload_interval_ms old (Default: 500; 0: no time trigger).
  uint64_t changelog_upload_size_bytes = 5u << 20;
  uint64_t changelog_upload_interval_ms = 500;
  // RocksDB only: local working directory for the instances (one subdirectory per operator
  // subtask, removed when the backend is destroyed). Default: "" = <system temp>/ckpt-engine-rocksdb.
  std::string local_dir;
};

// The backend fields of a parsed job spec (state_backend, incremental, changelog,
// state_local_dir, changelog_materialization_interval_ms), defaults for the absent ones.
// InvalidArgument naming the field for an unknown state_backend.
base::Result<StateBackendConfig> StateBackendConfigFromSpec(const pb::JobSpec& spec);

// "heap" or "rocksdb" (case-sensitive). InvalidArgument naming `where` and the accepted values.
base::Result<StateBackendKind> ParseStateBackendKind(std::string_view name, std::string_view where);
std::string_view StateBackendKindName(StateBackendKind kind);

// Creates the keyed backend of one operator subtask. `owner` (e.g. "keyed-sum (2/4)") is used in
// error messages and, with `operator_id_hex`, names the RocksDB working directory.
// InvalidArgument for an incremental heap backend; IOError if the RocksDB instance cannot be
// opened.
base::Result<std::unique_ptr<KeyedStateBackend>> CreateKeyedStateBackend(
    const StateBackendConfig& config, uint32_t max_parallelism, format::KeyGroupRange key_groups,
    std::string owner, const std::string& operator_id_hex = "", uint32_t subtask_index = 0);

}  // namespace ckpt::engine
