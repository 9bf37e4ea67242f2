// Private to ckpt::ops: validate's rule groups for snapshots of our format (validate_*.cpp in
// this folder), run by ValidateOwnSnapshot. Each adds findings to `ctx` and never fails on bad
// snapshot bytes; a non-OK status means the work was cancelled or an I/O error other than
// absence occurred.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "ckpt/base/status.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/ops/snapshot.h"
#include "validate/validate_internal.h"

namespace ckpt::ops::internal {

// Who uses a file of the file table: the operator state, the subtask and the handle.
struct FileUse {
  const pb::OperatorState* op = nullptr;
  const OperatorInfo* info = nullptr;
  uint32_t subtask = 0;
  const pb::KeyGroupsStateHandle* key_groups = nullptr;
  const pb::OperatorStateHandle* operator_handle = nullptr;
  std::vector<const pb::FileSlice*> slices;
};
// Location of a finding about file `f` as used by `u`.
Location UseLocation(const FileUse& u, const SnapshotFile& f);

// CKPT-F012: shared and task-owned files against the job's other checkpoints (chk-* beside it).
void CheckSiblings(ValidateContext& ctx, const Snapshot& snapshot);
base::Status CheckFiles(ValidateContext& ctx, const Snapshot& snapshot);

// --deep: declared type descriptors (values.md) and coordinator state values.
void CheckDeclaredValues(ValidateContext& ctx, const Snapshot& snapshot);

// --deep over one opened container: decodes every record with the declared types of its users.
base::Status DeepCheckContainer(ValidateContext& ctx, const Snapshot& snapshot,
                                const SnapshotFile& file, const format::StateFileReader& reader,
                                const std::multimap<uint32_t, FileUse>& uses,
                                bool block_damage_reported);

// --deep over every native RocksDB handle (engine_rocksdb.h): each live entry decoded with the
// declared types (CKPT-D001/D002/K005), none outside the handle's key groups (CKPT-K006); an
// instance that cannot be read is CKPT-D001 naming the file, or not checked in a build without
// RocksDB.
base::Status DeepCheckRocksDb(ValidateContext& ctx, const Snapshot& snapshot);

// --deep over the reference engine's channel state: every frame that begins in a handle's bytes,
// read within its logical channel's stream (input part, then output part; FORMAT.md §8), is
// whole and holds one well-formed element, else CKPT-D001 naming the file, channel and byte
// offset (the check dump makes). Other writers' channel state is opaque and not checked.
base::Status DeepCheckChannelState(ValidateContext& ctx, const Snapshot& snapshot);

}  // namespace ckpt::ops::internal
