// Private to ckpt::ops: the context shared by the validate_*.cpp rule groups.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"

namespace ckpt::ops {
// "savepoint (canonical, full, aligned)", "checkpoint (incremental, unaligned)" (validate.cpp).
std::string SnapshotTypeLabel(const Snapshot& snapshot);
}  // namespace ckpt::ops

namespace ckpt::ops::internal {

class ValidateContext {
 public:
  ValidateContext(base::Fs& fs, const ValidateOptions& options, const base::Progress& progress,
                  ValidateReport* report)
      : fs_(fs), options_(options), progress_(progress), report_(report) {}

  base::Fs& fs() const { return fs_; }
  const ValidateOptions& options() const { return options_; }
  const base::Progress& progress() const { return progress_; }
  ValidateReport& report() const { return *report_; }

  // Adds a finding of `rule` with the rule's one severity and hint (AllRules).
  void Add(const std::string& rule, Location location, std::string message);
  // Records that `rule` was evaluated (for JUnit's passing testcases).
  void Checked(const std::string& rule);
  // Records that `rule` applies at `location` but cannot be evaluated on this host. Not a
  // finding: the report says so in its own state (ValidateReport::not_checked).
  void NotChecked(const std::string& rule, Location location, std::string reason);

 private:
  base::Fs& fs_;
  const ValidateOptions& options_;
  const base::Progress& progress_;
  ValidateReport* report_;
};

// Location helpers.
Location OperatorLocation(const OperatorInfo& op);
Location FileLocation(const SnapshotFile& file);
// The file's path as seen from the snapshot directory ("x", "../shared/x", "/abs/x").
std::string PathFromSnapshot(const SnapshotFile& file);

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

// Rule groups. Each adds findings to `ctx` and never fails on bad snapshot bytes; a non-OK
// status means the work was cancelled or an I/O error other than absence occurred.
// Reads `_metadata` itself and reports envelope problems; returns the loaded snapshot, or
// nullopt (with findings) if it cannot be decoded.
base::Result<std::optional<Snapshot>> CheckMetadata(ValidateContext& ctx, const std::string& path);
void CheckStructure(ValidateContext& ctx, const Snapshot& snapshot);
// CKPT-F012: shared and task-owned files against the job's other checkpoints (chk-* beside it).
void CheckSiblings(ValidateContext& ctx, const Snapshot& snapshot);
base::Status CheckFiles(ValidateContext& ctx, const Snapshot& snapshot);
base::Status CheckAgainst(ValidateContext& ctx, const Snapshot& snapshot);

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

}  // namespace ckpt::ops::internal
