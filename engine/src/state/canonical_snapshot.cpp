// Canonical keyed snapshots: writing a KeyedStateSnapshot as a KEYED_STATE container, and reading
// canonical handles back into any backend.
#include "state/canonical_snapshot.h"

#include <algorithm>
#include <string>
#include <utility>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/records.h"

namespace ckpt::engine::state_internal {

base::Result<pb::KeyGroupsStateHandle> WriteCanonicalKeyedState(
    base::Fs& fs, const std::string& path, const KeyedStateSnapshot& keyed,
    const SnapshotWriteOptions& write, format::StateFileSummary* summary) {
  format::StateFileWriterOptions wo;
  wo.kind = pb::KEYED_STATE;
  wo.compression = write.compression;
  wo.block_size_bytes = write.block_size_bytes;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileWriter> writer,
                        format::StateFileWriter::Create(fs, path, wo));
  const format::KeyGroupRange range = keyed.key_group_range();
  pb::KeyGroupsStateHandle handle;
  handle.set_key_group_start(range.start);
  handle.set_key_group_end(range.end);
  std::string buf;
  for (uint32_t g = range.start; g <= range.end && !range.empty(); ++g) {
    handle.add_key_group_offsets(writer->logical_offset());
    uint64_t count = 0;
    base::Status st = keyed.ForEachRecord(g, [&](const format::KeyedRecord& r) -> base::Status {
      // Sections are opened lazily so empty key groups cost nothing in the index.
      if (count == 0) CKPT_RETURN_IF_ERROR(writer->BeginSection(g));
      buf.clear();
      format::EncodeKeyedRecord(r, &buf);
      CKPT_RETURN_IF_ERROR(writer->Add(buf).status());
      ++count;
      return base::Status::OK();
    });
    if (!st.ok()) {
      writer->Abandon();
      return st.WithContext(path + ", key group " + std::to_string(g));
    }
    handle.add_key_group_record_counts(count);
    if (g == range.end) break;  // range.end may be UINT32_MAX-safe
  }
  base::Result<format::StateFileSummary> done = writer->Finish();
  if (!done.ok()) {
    writer->Abandon();
    return done.status();
  }
  *summary = *done;
  return handle;
}

pb::FileEntry ExclusiveFileEntry(const std::string& name, pb::FileKind kind,
                                 const format::StateFileSummary& summary, int64_t checkpoint_id) {
  pb::FileEntry e;
  e.set_path(name);
  e.set_scope(pb::EXCLUSIVE);
  e.set_kind(kind);
  e.set_size_bytes(summary.size_bytes);
  e.set_checksum_xxh3(summary.checksum_xxh3);
  e.set_compression(summary.compression);
  e.set_created_by_checkpoint_id(checkpoint_id);
  return e;
}

namespace {

class CanonicalAsyncPart : public SnapshotAsyncPart {
 public:
  explicit CanonicalAsyncPart(std::unique_ptr<KeyedStateSnapshot> snapshot)
      : snapshot_(std::move(snapshot)) {}

  const std::vector<pb::StateDescriptor>& states() const override { return snapshot_->states(); }
  bool empty() const override { return snapshot_->NumEntries() == 0; }

  base::Result<KeyedSnapshotResult> Run(base::Fs& fs, const CheckpointOptions& options,
                                        const SnapshotWriteOptions& write,
                                        const std::string& stem) override {
    KeyedSnapshotResult out;
    if (empty()) return out;
    const std::string name = stem + "-keyed.state";
    const std::string path = base::JoinPath(options.snapshot_dir, name);
    format::StateFileSummary summary;
    CKPT_ASSIGN_OR_RETURN(pb::KeyGroupsStateHandle handle,
                          WriteCanonicalKeyedState(fs, path, *snapshot_, write, &summary));
    handle.set_file_index(0);
    *out.handles.emplace_back().mutable_key_groups() = std::move(handle);
    out.files.push_back(ExclusiveFileEntry(name, pb::KEYED_STATE, summary, options.checkpoint_id));
    out.state_size_bytes = summary.size_bytes;
    out.checkpointed_size_bytes = summary.size_bytes;
    return out;
  }

 private:
  std::unique_ptr<KeyedStateSnapshot> snapshot_;
};

}  // namespace

std::unique_ptr<SnapshotAsyncPart> MakeCanonicalAsyncPart(
    std::unique_ptr<KeyedStateSnapshot> snapshot) {
  return std::make_unique<CanonicalAsyncPart>(std::move(snapshot));
}

base::Result<std::unique_ptr<format::StateFileReader>> OpenVerifiedStateFile(
    base::Fs& fs, const std::string& snapshot_dir, const pb::CheckpointMetadata& md,
    uint32_t file_index, pb::FileKind kind) {
  if (file_index >= static_cast<uint32_t>(md.files_size())) {
    return base::Status::Corruption(snapshot_dir + "/_metadata: file index " +
                                    std::to_string(file_index) + " out of range");
  }
  const pb::FileEntry& entry = md.files(static_cast<int>(file_index));
  CKPT_ASSIGN_OR_RETURN(std::string path, format::ResolveFile(snapshot_dir, entry));
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileReader> reader,
                        format::StateFileReader::Open(fs, path));
  if (reader->file_size() != entry.size_bytes()) {
    return base::Status::Corruption(path + ": " + std::to_string(reader->file_size()) +
                                    " bytes, the metadata records " +
                                    std::to_string(entry.size_bytes()));
  }
  if (reader->index().kind != kind) {
    return base::Status::Corruption(path + ": holds " + pb::FileKind_Name(reader->index().kind) +
                                    ", expected " + pb::FileKind_Name(kind));
  }
  CKPT_RETURN_IF_ERROR(reader->VerifyChecksums());
  return reader;
}

base::Result<std::vector<int64_t>> DeclareSnapshotStates(KeyedStateBackend* backend,
                                                         const KeyedRestoreSource& source) {
  const pb::OperatorState& os = *source.operator_state;
  if (backend->max_parallelism() != os.max_parallelism()) {
    return base::Status::InvalidArgument(
        backend->owner() + ": max parallelism " + std::to_string(backend->max_parallelism()) +
        " differs from the snapshot's " + std::to_string(os.max_parallelism()));
  }
  // Declare every keyed state (also those without records here) so registration adopts them.
  std::vector<pb::StateDescriptor> keyed;
  std::vector<int64_t> local_of(os.states_size(), -1);
  for (int i = 0; i < os.states_size(); ++i) {
    if (IsKeyedStateKind(os.states(i).kind())) keyed.push_back(os.states(i));
  }
  CKPT_ASSIGN_OR_RETURN(std::vector<uint32_t> ids, backend->DeclareRestoredStates(keyed));
  for (int i = 0, k = 0; i < os.states_size(); ++i) {
    if (IsKeyedStateKind(os.states(i).kind())) local_of[i] = ids[k++];
  }
  return local_of;
}

base::Status RestoreCanonicalHandle(KeyedStateBackend* backend, const KeyedRestoreSource& source,
                                    const pb::KeyGroupsStateHandle& kg,
                                    const std::vector<int64_t>& local_of) {
  const format::KeyGroupRange mine = backend->key_group_range();
  const uint32_t from = std::max(kg.key_group_start(), mine.start);
  const uint32_t to = std::min(kg.key_group_end(), mine.end);
  if (from > to) return base::Status::OK();  // this old subtask's range does not intersect ours
  const pb::OperatorState& os = *source.operator_state;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileReader> container,
                        OpenVerifiedStateFile(*source.fs, source.snapshot_dir, *source.metadata,
                                              kg.file_index(), pb::KEYED_STATE));
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::KeyedStateReader> reader,
                        format::KeyedStateReader::Wrap(std::move(container), os.states()));
  for (uint32_t g = from; g <= to; ++g) {
    CKPT_ASSIGN_OR_RETURN(format::KeyedRecordIterator iter, reader->NewKeyGroupIterator(g));
    format::KeyedEntry entry;
    for (;;) {
      CKPT_ASSIGN_OR_RETURN(bool more, iter.Next(&entry));
      if (!more) break;
      const uint32_t index = entry.record.state_index;
      if (index >= local_of.size() || local_of[index] < 0) {
        return base::Status::Corruption(reader->path() + ": record of state index " +
                                        std::to_string(index) + " which is not keyed state");
      }
      base::Status s =
          backend->RestoreRecord(static_cast<uint32_t>(local_of[index]), g, entry.record);
      if (!s.ok()) return s.WithContext(reader->path());
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine::state_internal
