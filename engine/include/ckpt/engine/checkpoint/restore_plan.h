// RestorePlan: restoring a new job graph from a checkpoint or savepoint. Create() reads the
// snapshot's `_metadata` and maps its state to the new graph by operator ID, strictly: state of
// an operator missing from the new graph fails the restore (listing each such operator's name,
// uid and ID and suggesting --allow-non-restored-state / -n) unless allowed, and a different
// max parallelism fails naming the operator, as does keyed state in RocksDB's native format for a
// job whose keyed backend is not RocksDB. Each such refusal is one line: no retry can fix it.
// The Restore* methods then load, for one new subtask,
// the key groups it owns (reading only their sections), its share of split list state
// (unchanged parallelism: its own entries; otherwise dealt round-robin), all union state, the
// broadcast state, the sink committables to re-commit, and the operator's coordinator state.
// Immutable after Create(); every method is const and safe to call from many subtask threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/completed_checkpoint.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

class KeyedStateBackend;
class OperatorStateStore;

struct RestoreOptions {
  // Skip state whose operator is not in the new graph (-n). Default: false (strict).
  bool allow_non_restored_state = false;
  // Default: NO_CLAIM (the snapshot is never deleted by this job).
  pb::ClaimMode claim_mode = pb::NO_CLAIM;
  // The keyed state backend of the new job: native RocksDB keyed state (a RocksDB checkpoint or
  // native savepoint, also as a changelog's materialized base) is restored only by kRocksDb.
  // Default: unset (not checked).
  std::optional<StateBackendKind> keyed_backend;
};

class RestorePlan {
 public:
  // `user_path`: a snapshot directory or its `_metadata`. NotFound if it is not a complete
  // snapshot; Corruption from the metadata reader; InvalidArgument for unmapped state (strict),
  // a max-parallelism mismatch or native RocksDB keyed state for another backend, each one line
  // starting "cannot restore <dir>: " and naming the operator (see IsRestoreRefusal).
  static base::Result<std::shared_ptr<const RestorePlan>> Create(base::Fs& fs,
                                                                const std::string& user_path,
                                                                const pb::JobGraph& new_graph,
                                                                const RestoreOptions& options);

  // Whether `status` is one of Create's refusals to map a snapshot onto a job (unmapped state,
  // max parallelism, backend, in-flight data that cannot be redistributed): the snapshot and
  // the job do not fit, and neither a retry nor a restart changes that.
  static bool IsRestoreRefusal(const base::Status& status);

  const pb::CheckpointMetadata& metadata() const { return metadata_; }
  const std::string& snapshot_dir() const { return snapshot_dir_; }
  // For CheckpointCoordinatorOptions::restored_from.
  pb::RestoreInfo restore_info() const;
  // The restored snapshot as a store entry (owned iff CLAIM mode).
  CompletedCheckpoint AsCompletedCheckpoint() const;
  // Operators of the snapshot skipped because of allow_non_restored_state (hex IDs).
  const std::vector<std::string>& non_restored_operators() const { return non_restored_; }
  // Whether the snapshot has any state for `operator_id`.
  bool HasState(const format::OperatorId& operator_id) const;

  // Loads the keyed state (and timers) of the key groups `backend` owns, from every old subtask
  // whose range intersects, reading only those key-group sections. The backend's max
  // parallelism must equal the snapshot's. Corruption naming the file on bad bytes or
  // checksums. OK (nothing loaded) if the operator has no state.
  base::Status RestoreKeyedState(const format::OperatorId& operator_id,
                                 KeyedStateBackend* backend) const;
  // Loads operator state for `subtask` of `parallelism`: split list state (own entries at the
  // same parallelism, else entry i of the concatenation over old subtasks goes to subtask
  // i % parallelism), union state (all entries), broadcast state (old subtask 0's copy).
  base::Status RestoreOperatorState(const format::OperatorId& operator_id, uint32_t subtask,
                                    uint32_t parallelism, OperatorStateStore* store) const;
  // Sink committables `subtask` of `parallelism` must commit (idempotently) before it starts:
  // those of old subtask j go to new subtask j % parallelism.
  std::vector<pb::SinkCommittable> Committables(const format::OperatorId& operator_id,
                                                uint32_t subtask, uint32_t parallelism) const;
  // In-flight data an unaligned checkpoint persisted for `subtask` of the operator (input
  // channels if it heads a chain, output subpartitions if it ends one), each channel's buffers
  // in order, read through the slices' files with every block checksum verified. Empty if
  // none. Corruption naming the file on bad bytes. (Create refuses a plan whose channel state
  // would need rescaling, so subtask indexes are the snapshot's.)
  struct RestoredChannel {
    bool output = false;
    uint32_t index_a = 0;  // gate / partition
    uint32_t index_b = 0;  // channel / subpartition
    std::vector<std::string> buffers;
  };
  base::Result<std::vector<RestoredChannel>> ReadChannelState(const format::OperatorId& operator_id,
                                                              uint32_t subtask) const;
  // The operator coordinator's state bytes (inline or from its file), or nullopt.
  base::Result<std::optional<std::string>> CoordinatorState(
      const format::OperatorId& operator_id) const;

 private:
  RestorePlan() = default;
  base::Fs* fs_ = nullptr;
  std::string user_path_;
  std::string snapshot_dir_;
  RestoreOptions options_;
  pb::CheckpointMetadata metadata_;
  std::map<format::OperatorId, int> operator_index_;  // into metadata_.operators()
  std::vector<std::string> non_restored_;
};

}  // namespace ckpt::engine
