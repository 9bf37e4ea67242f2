// RestorePlan: loading one new subtask's share of keyed state, operator state, committables and
// coordinator state from the snapshot's files.
#include <algorithm>
#include <string>
#include <utility>

#include "ckpt/base/checksum.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"

namespace ckpt::engine {

namespace {

// Opens the state file `file_index` of `md`, checking kind, size and every block checksum.
base::Result<std::unique_ptr<format::StateFileReader>> OpenStateFile(
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

}  // namespace

base::Status RestorePlan::RestoreKeyedState(const format::OperatorId& operator_id,
                                            KeyedStateBackend* backend) const {
  auto it = operator_index_.find(operator_id);
  if (it == operator_index_.end()) return base::Status::OK();
  const pb::OperatorState& os = metadata_.operators(it->second);
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
  const format::KeyGroupRange mine = backend->key_group_range();
  for (const pb::SubtaskState& st : os.subtasks()) {
    for (const pb::KeyedStateHandle& h : st.keyed_state()) {
      if (!h.has_key_groups()) {
        return base::Status::Unimplemented(backend->owner() +
                                           ": only canonical keyed state handles can be "
                                           "restored by the heap backend");
      }
      const pb::KeyGroupsStateHandle& kg = h.key_groups();
      const uint32_t from = std::max(kg.key_group_start(), mine.start);
      const uint32_t to = std::min(kg.key_group_end(), mine.end);
      if (from > to) continue;  // this old subtask's range does not intersect ours
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileReader> container,
                            OpenStateFile(*fs_, snapshot_dir_, metadata_, kg.file_index(),
                                          pb::KEYED_STATE));
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::KeyedStateReader> reader,
                            format::KeyedStateReader::Wrap(std::move(container), os.states()));
      for (uint32_t g = from; g <= to; ++g) {
        CKPT_ASSIGN_OR_RETURN(format::KeyedRecordIterator iter, reader->NewKeyGroupIterator(g));
        format::KeyedEntry entry;
        for (;;) {
          CKPT_ASSIGN_OR_RETURN(bool more, iter.Next(&entry));
          if (!more) break;
          base::Status s = backend->RestoreRecord(
              static_cast<uint32_t>(local_of[entry.record.state_index]), g, entry.record);
          if (!s.ok()) return s.WithContext(reader->path());
        }
      }
    }
  }
  return base::Status::OK();
}

namespace {

struct Entry {
  std::string key;
  std::string value;
};

// Entries of partition `state_name` of one old subtask, in order.
base::Status ReadPartition(base::Fs& fs, const std::string& dir, const pb::CheckpointMetadata& md,
                           const pb::OperatorStateHandle& h, const std::string& state_name,
                           std::vector<Entry>* out) {
  const pb::OperatorStatePartition* part = nullptr;
  for (const auto& p : h.partitions()) {
    if (p.state_name() == state_name) part = &p;
  }
  if (part == nullptr || part->entry_offsets_size() == 0) return base::Status::OK();
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileReader> reader,
                        OpenStateFile(fs, dir, md, h.file_index(), pb::OPERATOR_STATE));
  for (uint64_t offset : part->entry_offsets()) {
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::RecordIterator> it,
                          reader->NewIteratorAt(offset, 1));
    format::RecordRef ref;
    CKPT_ASSIGN_OR_RETURN(bool found, it->Next(&ref));
    format::OperatorRecord rec;
    if (!found || !format::DecodeOperatorRecord(ref.bytes, &rec)) {
      return base::Status::Corruption(reader->path() + ": no operator state entry of '" +
                                      state_name + "' at offset " + std::to_string(offset));
    }
    out->push_back({std::string(rec.key), std::string(rec.value)});
  }
  return base::Status::OK();
}

}  // namespace

base::Status RestorePlan::RestoreOperatorState(const format::OperatorId& operator_id,
                                               uint32_t subtask, uint32_t parallelism,
                                               OperatorStateStore* store) const {
  auto it = operator_index_.find(operator_id);
  if (it == operator_index_.end()) return base::Status::OK();
  const pb::OperatorState& os = metadata_.operators(it->second);
  for (const pb::StateDescriptor& d : os.states()) {
    if (IsKeyedStateKind(d.kind())) continue;
    const std::string where = "operator state '" + d.name() + "'";
    // Entries per old subtask, in subtask order.
    std::vector<std::vector<Entry>> per_subtask;
    std::vector<uint32_t> old_index;
    for (const pb::SubtaskState& st : os.subtasks()) {
      std::vector<Entry> entries;
      for (const auto& h : st.operator_state()) {
        CKPT_RETURN_IF_ERROR(ReadPartition(*fs_, snapshot_dir_, metadata_, h, d.name(), &entries));
      }
      per_subtask.push_back(std::move(entries));
      old_index.push_back(st.subtask_index());
    }
    std::vector<const Entry*> mine;
    if (d.kind() == pb::STATE_OPERATOR_UNION) {
      for (const auto& v : per_subtask) {
        for (const auto& e : v) mine.push_back(&e);
      }
    } else if (d.kind() == pb::STATE_BROADCAST) {
      // Identical on every subtask: take the first copy.
      if (!per_subtask.empty()) {
        for (const auto& e : per_subtask.front()) mine.push_back(&e);
      }
    } else if (parallelism == os.parallelism()) {
      for (size_t i = 0; i < per_subtask.size(); ++i) {
        if (old_index[i] != subtask) continue;
        for (const auto& e : per_subtask[i]) mine.push_back(&e);
      }
    } else {
      uint64_t n = 0;
      for (const auto& v : per_subtask) {
        for (const auto& e : v) {
          if (n++ % parallelism == subtask) mine.push_back(&e);
        }
      }
    }
    if (d.kind() == pb::STATE_BROADCAST) {
      std::vector<std::pair<format::Value, format::Value>> entries;
      for (const Entry* e : mine) {
        base::Result<format::Value> k = format::DecodeValueExact(d.user_key_type(), e->key);
        base::Result<format::Value> v = format::DecodeValueExact(d.value_type(), e->value);
        if (!k.ok()) return k.status().WithContext(snapshot_dir_ + ": " + where + " key");
        if (!v.ok()) return v.status().WithContext(snapshot_dir_ + ": " + where);
        entries.emplace_back(std::move(*k), std::move(*v));
      }
      CKPT_RETURN_IF_ERROR(store->RestoreBroadcastState(d, std::move(entries)));
    } else {
      std::vector<format::Value> elements;
      for (const Entry* e : mine) {
        base::Result<format::Value> v = format::DecodeValueExact(d.value_type(), e->value);
        if (!v.ok()) return v.status().WithContext(snapshot_dir_ + ": " + where);
        elements.push_back(std::move(*v));
      }
      CKPT_RETURN_IF_ERROR(store->RestoreListState(d, std::move(elements)));
    }
  }
  return base::Status::OK();
}

std::vector<pb::SinkCommittable> RestorePlan::Committables(const format::OperatorId& operator_id,
                                                           uint32_t subtask,
                                                           uint32_t parallelism) const {
  std::vector<pb::SinkCommittable> out;
  auto it = operator_index_.find(operator_id);
  if (it == operator_index_.end() || parallelism == 0) return out;
  for (const pb::SubtaskState& st : metadata_.operators(it->second).subtasks()) {
    if (st.subtask_index() % parallelism != subtask) continue;
    for (const auto& c : st.committables()) out.push_back(c);
  }
  return out;
}

base::Result<std::optional<std::string>> RestorePlan::CoordinatorState(
    const format::OperatorId& operator_id) const {
  auto it = operator_index_.find(operator_id);
  if (it == operator_index_.end()) return std::optional<std::string>();
  const pb::OperatorState& os = metadata_.operators(it->second);
  if (!os.has_coordinator_state()) return std::optional<std::string>();
  const pb::CoordinatorState& cs = os.coordinator_state();
  if (cs.location_case() == pb::CoordinatorState::kInlineData) {
    return std::optional<std::string>(cs.inline_data());
  }
  if (cs.location_case() != pb::CoordinatorState::kFileIndex) return std::optional<std::string>();
  if (cs.file_index() >= static_cast<uint32_t>(metadata_.files_size())) {
    return base::Status::Corruption(snapshot_dir_ + "/_metadata: coordinator state file index " +
                                    std::to_string(cs.file_index()) + " out of range");
  }
  const pb::FileEntry& entry = metadata_.files(static_cast<int>(cs.file_index()));
  CKPT_ASSIGN_OR_RETURN(std::string path, format::ResolveFile(snapshot_dir_, entry));
  CKPT_ASSIGN_OR_RETURN(std::string data,
                        base::ReadFileToString(*fs_, path, entry.size_bytes() + 1));
  if (data.size() != entry.size_bytes() || base::Xxh3(data) != entry.checksum_xxh3()) {
    return base::Status::Corruption(path + ": coordinator state does not match its size/checksum");
  }
  return std::optional<std::string>(std::move(data));
}

}  // namespace ckpt::engine
