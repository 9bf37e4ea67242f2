// SnapshotBuilder and helpers for writing small, deterministic snapshots with ckpt::format only:
// state-file containers recorded in the file table, keyed and operator state handles, metrics.
// Shared by ckpt-fixture-gen and ckpt-format-demo (through sample_snapshot.h). Not thread-safe.
//
// Header-only on purpose: both tools are single-source executables in format/CMakeLists.txt, and
// inline functions let them share this code without a build change.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/job_graph.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/value_codec.h"

namespace ckpt::format::sample {

// Fixed identity of every sample job.
inline constexpr char kJobIdHex[] = "1a2b3c4d5e6f708192a3b4c5d6e7f801";
// 2026-01-01T00:00:00Z; each sample derives its timestamps from it.
inline constexpr int64_t kBaseTimestampMs = 1767225600000;

inline std::string JobIdBytes() {
  std::string out;
  for (size_t i = 0; i < 32; i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(kJobIdHex + i, 2), nullptr, 16)));
  }
  return out;
}

// Accumulates one snapshot's files and handles: writes state-file containers through the Fs and
// records each as a FileEntry of `metadata`.
class SnapshotBuilder {
 public:
  SnapshotBuilder(base::Fs& fs, std::string snapshot_dir, pb::CheckpointMetadata* metadata)
      : fs_(fs), dir_(std::move(snapshot_dir)), md_(metadata) {}

  const std::string& dir() const { return dir_; }
  pb::CheckpointMetadata& metadata() { return *md_; }

  // Writes a state-file container at the location `scope`/`rel_path` names (relative to the
  // snapshot, or to the job's shared/ or taskowned/ directory), filled by `fill`, and appends its
  // FileEntry. Returns the file's index in the file table.
  base::Result<uint32_t> AddStateFile(const std::string& rel_path, pb::FileScope scope,
                                      pb::FileKind kind, int64_t created_by,
                                      const std::function<base::Status(StateFileWriter&)>& fill) {
    pb::FileEntry entry;
    entry.set_path(rel_path);
    entry.set_scope(scope);
    entry.set_kind(kind);
    entry.set_created_by_checkpoint_id(created_by);
    CKPT_ASSIGN_OR_RETURN(std::string path, ResolveFile(dir_, entry));
    CKPT_RETURN_IF_ERROR(fs_.CreateDirs(base::DirName(path)));
    StateFileWriterOptions options;
    options.kind = kind;
    // Small blocks so that even these small files have several blocks to verify and seek in.
    options.block_size_bytes = 512;
    CKPT_ASSIGN_OR_RETURN(auto writer, StateFileWriter::Create(fs_, path, options));
    base::Status st = fill(*writer);
    if (!st.ok()) {
      writer->Abandon();
      return st;
    }
    CKPT_ASSIGN_OR_RETURN(StateFileSummary summary, writer->Finish());
    entry.set_size_bytes(summary.size_bytes);
    entry.set_checksum_xxh3(summary.checksum_xxh3);
    entry.set_compression(summary.compression);
    return AddEntry(std::move(entry));
  }

  // Records a file written for an earlier checkpoint (an incremental reference). Reads the file
  // to fill size and checksum, exactly as a writer that re-validates would.
  base::Result<uint32_t> ReferenceExisting(const std::string& rel_path, pb::FileScope scope,
                                           pb::FileKind kind, int64_t created_by) {
    pb::FileEntry entry;
    entry.set_path(rel_path);
    entry.set_scope(scope);
    entry.set_kind(kind);
    entry.set_created_by_checkpoint_id(created_by);
    entry.set_compression(pb::COMPRESSION_ZSTD);
    CKPT_ASSIGN_OR_RETURN(std::string path, ResolveFile(dir_, entry));
    CKPT_ASSIGN_OR_RETURN(std::string bytes, base::ReadFileToString(fs_, path));
    entry.set_size_bytes(bytes.size());
    entry.set_checksum_xxh3(base::Xxh3(bytes));
    return AddEntry(std::move(entry));
  }

  uint64_t FileSize(uint32_t index) const { return md_->files(static_cast<int>(index)).size_bytes(); }

  base::Status Publish() {
    CKPT_RETURN_IF_ERROR(fs_.CreateDirs(dir_));
    return WriteMetadataFile(fs_, dir_, *md_);
  }

 private:
  uint32_t AddEntry(pb::FileEntry entry) {
    *md_->add_files() = std::move(entry);
    return static_cast<uint32_t>(md_->files_size() - 1);
  }

  base::Fs& fs_;
  std::string dir_;
  pb::CheckpointMetadata* md_;
};

inline base::Result<std::string> Enc(const pb::TypeDescriptor& type, const Value& value) {
  return EncodeValue(type, value);
}

inline pb::StateDescriptor State(std::string name, pb::StateKind kind, pb::TypeDescriptor value,
                                 pb::TypeDescriptor key = types::Void(),
                                 pb::TypeDescriptor user_key = pb::TypeDescriptor()) {
  pb::StateDescriptor d;
  d.set_name(std::move(name));
  d.set_kind(kind);
  const bool keyed = kind <= pb::STATE_TIMERS;
  if (keyed) {
    *d.mutable_key_type() = std::move(key);
    *d.mutable_namespace_type() = types::Void();
  }
  if (user_key.kind() != pb::TypeDescriptor::KIND_UNSPECIFIED) *d.mutable_user_key_type() = user_key;
  if (value.kind() != pb::TypeDescriptor::KIND_UNSPECIFIED) *d.mutable_value_type() = value;
  d.set_serializer_version(1);
  if (kind == pb::STATE_TIMERS) d.set_timer_domain("event-time");
  return d;
}

// One keyed record to be written: the key group is derived from the encoded key.
struct KeyedEntry {
  uint32_t key_group = 0;
  std::string key;
  uint32_t state_index = 0;
  std::string user_key;
  std::string value;
  bool operator<(const KeyedEntry& o) const {
    return std::tie(key_group, key, state_index, user_key) <
           std::tie(o.key_group, o.key, o.state_index, o.user_key);
  }
};

// Writes the keyed state of one subtask as a KEYED_STATE container (one section per non-empty
// key group) and returns its handle with offsets for every key group of the range.
inline base::Result<pb::KeyedStateHandle> WriteKeyGroups(SnapshotBuilder& b,
                                                         const std::string& rel_path,
                                                         pb::FileScope scope, int64_t created_by,
                                                         KeyGroupRange range,
                                                         std::vector<KeyedEntry> entries) {
  std::sort(entries.begin(), entries.end());
  pb::KeyedStateHandle handle;
  pb::KeyGroupsStateHandle* kg = handle.mutable_key_groups();
  kg->set_key_group_start(range.start);
  kg->set_key_group_end(range.end);
  auto fill = [&](StateFileWriter& w) -> base::Status {
    size_t next = 0;
    for (uint32_t g = range.start; g <= range.end; ++g) {
      kg->add_key_group_offsets(w.logical_offset());
      uint64_t count = 0;
      if (next < entries.size() && entries[next].key_group == g) {
        CKPT_RETURN_IF_ERROR(w.BeginSection(g));
      }
      for (; next < entries.size() && entries[next].key_group == g; ++next, ++count) {
        const KeyedEntry& e = entries[next];
        std::string record;
        EncodeKeyedRecord({e.state_index, e.key, "", e.user_key, e.value}, &record);
        CKPT_RETURN_IF_ERROR(w.Add(record).status());
      }
      kg->add_key_group_record_counts(count);
    }
    if (next != entries.size()) {
      return base::Status::Internal("sample: a keyed entry lies outside the subtask's key groups");
    }
    return base::Status::OK();
  };
  CKPT_ASSIGN_OR_RETURN(uint32_t index,
                        b.AddStateFile(rel_path, scope, pb::KEYED_STATE, created_by, fill));
  kg->set_file_index(index);
  return handle;
}

// Writes operator-state entries (one section per state, id = the state's index in
// OperatorState.states) and returns the handle with each entry's offset.
struct OperatorStateEntries {
  uint32_t state_index = 0;
  std::string state_name;
  pb::StateKind distribution = pb::STATE_OPERATOR_LIST;
  std::vector<std::string> values;  // encoded
};
inline base::Result<pb::OperatorStateHandle> WriteOperatorState(
    SnapshotBuilder& b, const std::string& rel_path, pb::FileScope scope, int64_t created_by,
    const std::vector<OperatorStateEntries>& states) {
  pb::OperatorStateHandle handle;
  auto fill = [&](StateFileWriter& w) -> base::Status {
    for (const auto& s : states) {
      CKPT_RETURN_IF_ERROR(w.BeginSection(s.state_index));
      pb::OperatorStatePartition* p = handle.add_partitions();
      p->set_state_name(s.state_name);
      p->set_distribution(s.distribution);
      for (const auto& v : s.values) {
        std::string record;
        EncodeOperatorRecord({"", v}, &record);
        CKPT_ASSIGN_OR_RETURN(uint64_t offset, w.Add(record));
        p->add_entry_offsets(offset);
      }
    }
    return base::Status::OK();
  };
  CKPT_ASSIGN_OR_RETURN(uint32_t index,
                        b.AddStateFile(rel_path, scope, pb::OPERATOR_STATE, created_by, fill));
  handle.set_file_index(index);
  return handle;
}

// The distinct files a subtask's handles reference, ascending.
inline std::vector<uint32_t> SubtaskFiles(const pb::SubtaskState& st) {
  std::vector<uint32_t> files;
  auto add_keyed = [&](const pb::KeyedStateHandle& h, auto& self) -> void {
    if (h.has_key_groups()) files.push_back(h.key_groups().file_index());
    if (h.has_changelog()) {
      for (const auto& mat : h.changelog().materialized()) self(mat, self);
      for (const auto& s : h.changelog().segments()) files.push_back(s.slice().file_index());
    }
  };
  for (const auto& h : st.keyed_state()) add_keyed(h, add_keyed);
  for (const auto& h : st.operator_state()) files.push_back(h.file_index());
  for (const auto& h : st.input_channel_state()) {
    for (const auto& s : h.buffers()) files.push_back(s.file_index());
  }
  for (const auto& h : st.output_channel_state()) {
    for (const auto& s : h.buffers()) files.push_back(s.file_index());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// Fills per-subtask and checkpoint metrics from the handles, with fixed, plausible durations:
// state_size counts every file a subtask references, checkpointed_size only those this snapshot
// created (created_by_checkpoint_id), persisted_data the channel state.
inline void FillMetrics(pb::CheckpointMetadata* m) {
  const bool unaligned = m->mode() == pb::UNALIGNED;
  uint64_t total = 0, uploaded_total = 0, persisted_total = 0;
  int64_t n = 0;
  for (auto& op : *m->mutable_operators()) {
    for (auto& st : *op.mutable_subtasks()) {
      ++n;
      uint64_t size = 0, uploaded = 0, persisted = 0;
      for (uint32_t f : SubtaskFiles(st)) {
        const pb::FileEntry& fe = m->files(static_cast<int>(f));
        size += fe.size_bytes();
        if (fe.created_by_checkpoint_id() == m->checkpoint_id()) uploaded += fe.size_bytes();
      }
      for (const auto& h : st.input_channel_state()) persisted += h.size_bytes();
      for (const auto& h : st.output_channel_state()) persisted += h.size_bytes();
      pb::SubtaskMetrics* sm = st.mutable_metrics();
      sm->set_ack_timestamp(m->trigger_timestamp() + 40 + 3 * n);
      sm->set_end_to_end_duration(40 + 3 * n);
      sm->set_state_size(size);
      sm->set_checkpointed_size(uploaded);
      sm->set_sync_duration(1 + n % 3);
      sm->set_async_duration(12 + 2 * n);
      sm->set_alignment_duration(unaligned ? 0 : 2 + n % 4);
      sm->set_start_delay(5 + n);
      sm->set_processed_data(unaligned ? 0 : 4096 * static_cast<uint64_t>(n));
      sm->set_persisted_data(persisted);
      sm->set_unaligned_checkpoint(unaligned);
      total += size;
      uploaded_total += uploaded;
      persisted_total += persisted;
    }
  }
  pb::CheckpointMetrics* cm = m->mutable_metrics();
  cm->set_trigger_timestamp(m->trigger_timestamp());
  cm->set_latest_ack_timestamp(m->trigger_timestamp() + 40 + 3 * n);
  cm->set_end_to_end_duration(m->completion_timestamp() - m->trigger_timestamp());
  cm->set_state_size(total);
  cm->set_checkpointed_size(uploaded_total);
  cm->set_processed_data(unaligned ? 0 : 4096 * static_cast<uint64_t>(n));
  cm->set_persisted_data(persisted_total);
  cm->set_num_subtasks(static_cast<uint32_t>(n));
  cm->set_num_acknowledged_subtasks(static_cast<uint32_t>(n));
  cm->set_is_unaligned(unaligned);
  cm->set_alignment_timeout(0);
}

// Fills the snapshot-level fields shared by all samples from a job spec.
inline base::Status StartMetadata(const std::string& spec_json, int64_t checkpoint_id,
                                  pb::SnapshotKind kind, pb::CheckpointMetadata* m) {
  CKPT_ASSIGN_OR_RETURN(pb::JobSpec spec, ParseJobSpec(spec_json, "sample job spec"));
  CKPT_ASSIGN_OR_RETURN(pb::JobGraph graph, BuildJobGraph(spec));
  m->set_format_version(kFormatVersion);
  m->set_engine_name("ckpt-format-sample");
  m->set_engine_version("0.1.0");
  m->set_job_id(JobIdBytes());
  m->set_job_name(spec.name());
  m->set_checkpoint_id(checkpoint_id);
  m->set_kind(kind);
  m->set_trigger_timestamp(kBaseTimestampMs + checkpoint_id * 1000);
  m->set_completion_timestamp(kBaseTimestampMs + checkpoint_id * 1000 + 250);
  *m->mutable_job_graph() = std::move(graph);
  (*m->mutable_properties())["execution.checkpointing.interval"] =
      std::to_string(spec.checkpointing().interval_ms());
  (*m->mutable_properties())["state.backend.type"] = "hashmap";
  return base::Status::OK();
}

// The job graph operator whose spec id is `spec_id` (it must exist).
inline const pb::OperatorInfo& GraphOperator(const pb::CheckpointMetadata& m,
                                             const std::string& spec_id) {
  for (const auto& op : m.job_graph().operators()) {
    if (op.spec_id() == spec_id) return op;
  }
  return m.job_graph().operators(0);
}

inline pb::OperatorState* AddOperatorState(pb::CheckpointMetadata* m, const std::string& spec_id) {
  const pb::OperatorInfo& info = GraphOperator(*m, spec_id);
  pb::OperatorState* op = m->add_operators();
  op->set_operator_id(info.operator_id());
  op->set_parallelism(info.parallelism());
  op->set_max_parallelism(info.max_parallelism());
  return op;
}

}  // namespace ckpt::format::sample
