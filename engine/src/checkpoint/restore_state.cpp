// RestorePlan: loading one new subtask's share of keyed state, operator state, committables and
// coordinator state from the snapshot's files.
#include <algorithm>
#include <string>
#include <utility>

#include "ckpt/base/checksum.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"
#include "state/canonical_snapshot.h"

namespace ckpt::engine {

base::Status RestorePlan::RestoreKeyedState(const format::OperatorId& operator_id,
                                            KeyedStateBackend* backend) const {
  auto it = operator_index_.find(operator_id);
  if (it == operator_index_.end()) return base::Status::OK();
  KeyedRestoreSource source;
  source.fs = fs_;
  source.snapshot_dir = snapshot_dir_;
  source.metadata = &metadata_;
  source.operator_state = &metadata_.operators(it->second);
  // The backend owns its restore (canonical handles, RocksDB instances, ...).
  return backend->Restore(source);
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
                        state_internal::OpenVerifiedStateFile(fs, dir, md, h.file_index(),
                                                             pb::OPERATOR_STATE));
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
