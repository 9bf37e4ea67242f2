// Two-phase snapshot of one operator subtask: freeze (sync) and write the state-file containers
// (async). Layout of the files: format/docs/state-files.md; records: format/records.h.
#include "ckpt/engine/checkpoint/operator_snapshot.h"

#include <string>
#include <utility>

#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/keyed_handle_files.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_writer.h"
#include "state/canonical_snapshot.h"

namespace ckpt::engine {

base::Result<OperatorSnapshot> TakeOperatorSnapshot(const CheckpointOptions& options,
                                                    const format::OperatorId& operator_id,
                                                    uint32_t subtask_index,
                                                    KeyedStateBackend* keyed,
                                                    OperatorStateStore* operator_state,
                                                    std::vector<pb::SinkCommittable> committables) {
  OperatorSnapshot s;
  s.operator_id = operator_id;
  s.subtask_index = subtask_index;
  if (keyed != nullptr) {
    base::Result<std::unique_ptr<SnapshotAsyncPart>> part = keyed->SnapshotSync(options);
    if (!part.ok()) return part.status().WithContext(keyed->owner() + ": keyed state snapshot");
    s.keyed = std::move(*part);
  }
  if (operator_state != nullptr) s.operator_state = operator_state->Snapshot();
  s.committables = std::move(committables);
  return s;
}

OperatorSnapshot TakeOperatorSnapshot(const format::OperatorId& operator_id,
                                      uint32_t subtask_index, KeyedStateBackend* keyed,
                                      OperatorStateStore* operator_state,
                                      std::vector<pb::SinkCommittable> committables) {
  OperatorSnapshot s;
  s.operator_id = operator_id;
  s.subtask_index = subtask_index;
  if (keyed != nullptr) s.keyed = state_internal::MakeCanonicalAsyncPart(keyed->Snapshot());
  if (operator_state != nullptr) s.operator_state = operator_state->Snapshot();
  s.committables = std::move(committables);
  return s;
}

namespace {

// Deletes the files of a failed snapshot; the coordinator removes the directory on abort.
class FileCleanup {
 public:
  explicit FileCleanup(base::Fs& fs) : fs_(fs) {}
  ~FileCleanup() {
    if (armed_) {
      for (const auto& p : paths_) fs_.RemoveFile(p).IgnoreError();
    }
  }
  void Add(std::string path) { paths_.push_back(std::move(path)); }
  void Disarm() { armed_ = false; }

 private:
  base::Fs& fs_;
  std::vector<std::string> paths_;
  bool armed_ = true;
};

base::Result<pb::OperatorStateHandle> WriteOperator(base::Fs& fs, const std::string& path,
                                                    const OperatorStateSnapshot& ops,
                                                    const SnapshotWriteOptions& write,
                                                    format::StateFileSummary* summary) {
  format::StateFileWriterOptions wo;
  wo.kind = pb::OPERATOR_STATE;
  wo.compression = write.compression;
  wo.block_size_bytes = write.block_size_bytes;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileWriter> writer,
                        format::StateFileWriter::Create(fs, path, wo));
  pb::OperatorStateHandle handle;
  std::string buf;
  for (uint32_t i = 0; i < ops.states().size(); ++i) {
    const pb::StateDescriptor& d = ops.states()[i];
    pb::OperatorStatePartition* part = handle.add_partitions();
    part->set_state_name(d.name());
    part->set_distribution(d.kind());
    base::Status st = writer->BeginSection(i);
    if (st.ok()) {
      st = ops.ForEachRecord(i, [&](const format::OperatorRecord& r) -> base::Status {
        buf.clear();
        format::EncodeOperatorRecord(r, &buf);
        CKPT_ASSIGN_OR_RETURN(uint64_t offset, writer->Add(buf));
        part->add_entry_offsets(offset);
        return base::Status::OK();
      });
    }
    if (!st.ok()) {
      writer->Abandon();
      return st.WithContext(path);
    }
  }
  base::Result<format::StateFileSummary> done = writer->Finish();
  if (!done.ok()) {
    writer->Abandon();
    return done.status();
  }
  *summary = *done;
  return handle;
}

}  // namespace

base::Result<OperatorSubtaskState> WriteOperatorSnapshot(base::Fs& fs,
                                                         const CheckpointOptions& options,
                                                         const OperatorSnapshot& snapshot,
                                                         const SnapshotWriteOptions& write) {
  OperatorSubtaskState out;
  out.operator_id = snapshot.operator_id;
  out.subtask_index = snapshot.subtask_index;
  out.subtask.set_subtask_index(snapshot.subtask_index);
  const std::string stem =
      snapshot.operator_id.ToHex() + "-" + std::to_string(snapshot.subtask_index);
  FileCleanup cleanup(fs);

  if (snapshot.keyed) {
    // Keyed states first: a keyed record's state_index is its position in `out.states`.
    for (const auto& d : snapshot.keyed->states()) out.states.push_back(d);
    base::Result<KeyedSnapshotResult> keyed = snapshot.keyed->Run(fs, options, write, stem);
    if (!keyed.ok()) return keyed.status().WithContext("keyed state snapshot");
    // Rebase the handles' file indexes onto `out.files`.
    const uint32_t base = static_cast<uint32_t>(out.files.size());
    for (pb::KeyedStateHandle& h : keyed->handles) {
      if (h.has_key_groups()) {
        h.mutable_key_groups()->set_file_index(h.key_groups().file_index() + base);
      } else if (h.has_rocksdb()) {
        for (auto& f : *h.mutable_rocksdb()->mutable_sst_files()) f.set_file_index(f.file_index() + base);
        for (auto& f : *h.mutable_rocksdb()->mutable_meta_files()) f.set_file_index(f.file_index() + base);
      } else if (h.has_changelog()) {
        CKPT_RETURN_IF_ERROR(RebaseKeyedHandleFiles(
            &h, [base](uint32_t i) -> base::Result<uint32_t> { return i + base; }));
      }
      *out.subtask.add_keyed_state() = std::move(h);
    }
    for (const pb::FileEntry& f : keyed->files) {
      if (f.scope() == pb::EXCLUSIVE) cleanup.Add(base::JoinPath(options.snapshot_dir, f.path()));
      out.files.push_back(f);
    }
    out.state_size_bytes += keyed->state_size_bytes;
    out.checkpointed_size_bytes += keyed->checkpointed_size_bytes;
  }
  if (snapshot.operator_state && !snapshot.operator_state->states().empty()) {
    for (const auto& d : snapshot.operator_state->states()) out.states.push_back(d);
    const std::string name = stem + "-operator.state";
    const std::string path = base::JoinPath(options.snapshot_dir, name);
    format::StateFileSummary summary;
    base::Result<pb::OperatorStateHandle> handle =
        WriteOperator(fs, path, *snapshot.operator_state, write, &summary);
    if (!handle.ok()) return handle.status().WithContext("operator state snapshot");
    cleanup.Add(path);
    handle->set_file_index(static_cast<uint32_t>(out.files.size()));
    *out.subtask.add_operator_state() = std::move(*handle);
    out.files.push_back(state_internal::ExclusiveFileEntry(name, pb::OPERATOR_STATE, summary, options.checkpoint_id));
  }
  for (const auto& c : snapshot.committables) *out.subtask.add_committables() = c;
  // The operator-state file (always written in full) counts in both sizes.
  for (const auto& f : out.files) {
    if (f.kind() == pb::OPERATOR_STATE) {
      out.state_size_bytes += f.size_bytes();
      out.checkpointed_size_bytes += f.size_bytes();
    }
  }
  cleanup.Disarm();
  return out;
}

}  // namespace ckpt::engine
