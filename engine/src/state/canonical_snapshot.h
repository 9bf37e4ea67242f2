// The canonical keyed snapshot shared by every backend: the async part that encodes a
// KeyedStateSnapshot into one KEYED_STATE container (format/docs/state-files.md), and the restore
// of canonical handles record by record.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/state_file_writer.h"

namespace ckpt::engine::state_internal {

// Writes every record of `snapshot` (one section per non-empty key group) to `path`.
base::Result<pb::KeyGroupsStateHandle> WriteCanonicalKeyedState(
    base::Fs& fs, const std::string& path, const KeyedStateSnapshot& snapshot,
    const SnapshotWriteOptions& write, format::StateFileSummary* summary);

// An EXCLUSIVE file entry of checkpoint `checkpoint_id`.
pb::FileEntry ExclusiveFileEntry(const std::string& name, pb::FileKind kind,
                                 const format::StateFileSummary& summary, int64_t checkpoint_id);

// The async part writing `<stem>-keyed.state` (nothing if the snapshot has no entries).
std::unique_ptr<SnapshotAsyncPart> MakeCanonicalAsyncPart(
    std::unique_ptr<KeyedStateSnapshot> snapshot);

// Opens the state file `file_index` of `md`, checking kind, size and every block checksum.
base::Result<std::unique_ptr<format::StateFileReader>> OpenVerifiedStateFile(
    base::Fs& fs, const std::string& snapshot_dir, const pb::CheckpointMetadata& md,
    uint32_t file_index, pb::FileKind kind);

// Checks the max parallelism and declares every keyed state of `source.operator_state` in
// `backend`; returns the local state id per index of OperatorState.states (-1 if not keyed).
base::Result<std::vector<int64_t>> DeclareSnapshotStates(KeyedStateBackend* backend,
                                                         const KeyedRestoreSource& source);

// Inserts the records of the key groups of `handle` that `backend` owns.
base::Status RestoreCanonicalHandle(KeyedStateBackend* backend, const KeyedRestoreSource& source,
                                    const pb::KeyGroupsStateHandle& handle,
                                    const std::vector<int64_t>& local_of);

}  // namespace ckpt::engine::state_internal
