// Deterministic sample snapshots written with ckpt::format only: the canonical savepoint that
// `ckpt-format-demo` prints and `ckpt-fixture-gen` freezes as fixtures/v1/savepoint, plus the
// SnapshotBuilder the generator uses for its other fixtures. Fixed job id, timestamps and data (no
// randomness, no clock), so writing twice gives identical bytes.
//
// Header-only on purpose: both tools are single-source executables in format/CMakeLists.txt, and
// inline functions let them share this code without a build change.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
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

// Fixed identity of every sample job: 1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f801.
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

// Sums the sizes of the files a subtask's handles reference (each file once).
inline uint64_t SubtaskStateSize(const pb::CheckpointMetadata& m, const pb::SubtaskState& st) {
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
  uint64_t total = 0;
  for (uint32_t f : files) total += m.files(static_cast<int>(f)).size_bytes();
  return total;
}

// Fills per-subtask and checkpoint metrics from the handles with fixed, plausible durations.
// checkpointed_size counts only files this snapshot created; state_size counts all it references.
inline void FillMetrics(pb::CheckpointMetadata* m) {
  uint64_t total = 0, uploaded_total = 0, persisted_total = 0;
  uint32_t subtasks = 0;
  int64_t n = 0;
  for (auto& op : *m->mutable_operators()) {
    for (auto& st : *op.mutable_subtasks()) {
      ++n;
      ++subtasks;
      pb::SubtaskMetrics* sm = st.mutable_metrics();
      const uint64_t size = SubtaskStateSize(*m, st);
      uint64_t persisted = 0;
      for (const auto& h : st.input_channel_state()) persisted += h.size_bytes();
      for (const auto& h : st.output_channel_state()) persisted += h.size_bytes();
      // checkpointed_size: only files this snapshot created.
      uint64_t uploaded = 0;
      {
        std::vector<uint32_t> seen;
        auto count = [&](uint32_t f) {
          if (std::find(seen.begin(), seen.end(), f) != seen.end()) return;
          seen.push_back(f);
          const auto& fe = m->files(static_cast<int>(f));
          if (fe.created_by_checkpoint_id() == m->checkpoint_id()) uploaded += fe.size_bytes();
        };
        for (const auto& h : st.keyed_state()) {
          if (h.has_key_groups()) count(h.key_groups().file_index());
          if (h.has_changelog()) {
            for (const auto& mat : h.changelog().materialized()) count(mat.key_groups().file_index());
            for (const auto& s : h.changelog().segments()) count(s.slice().file_index());
          }
        }
        for (const auto& h : st.operator_state()) count(h.file_index());
        for (const auto& h : st.input_channel_state()) {
          for (const auto& s : h.buffers()) count(s.file_index());
        }
        for (const auto& h : st.output_channel_state()) {
          for (const auto& s : h.buffers()) count(s.file_index());
        }
      }
      sm->set_ack_timestamp(m->trigger_timestamp() + 40 + 3 * n);
      sm->set_end_to_end_duration(40 + 3 * n);
      sm->set_state_size(size);
      sm->set_checkpointed_size(uploaded);
      sm->set_sync_duration(1 + n % 3);
      sm->set_async_duration(12 + 2 * n);
      sm->set_alignment_duration(m->mode() == pb::UNALIGNED ? 0 : 2 + n % 4);
      sm->set_start_delay(5 + n);
      sm->set_processed_data(m->mode() == pb::UNALIGNED ? 0 : 4096 * static_cast<uint64_t>(n));
      sm->set_persisted_data(persisted);
      sm->set_unaligned_checkpoint(m->mode() == pb::UNALIGNED);
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
  cm->set_processed_data(m->mode() == pb::UNALIGNED ? 0 : 4096 * static_cast<uint64_t>(n));
  cm->set_persisted_data(persisted_total);
  cm->set_num_subtasks(subtasks);
  cm->set_num_acknowledged_subtasks(subtasks);
  cm->set_is_unaligned(m->mode() == pb::UNALIGNED);
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

// ----------------------------------------------------------------------------------------------
// The canonical savepoint (fixtures/v1/savepoint, the demo's sample)

inline constexpr char kSavepointJobSpec[] = R"({
  "name": "orders-per-user",
  "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801",
  "parallelism": 2,
  "maxParallelism": 128,
  "operators": [
    {"id": "source", "kind": "sequence-source", "uid": "orders-source", "name": "Orders source"},
    {"id": "aggregate", "kind": "keyed-aggregate", "uid": "per-user-aggregate",
     "name": "Per-user aggregate"},
    {"id": "watermarks", "kind": "watermark-tracker", "uid": "watermark-tracker",
     "name": "Watermark tracker"},
    {"id": "sink", "kind": "file-sink", "uid": "file-sink", "name": "File sink", "parallelism": 1,
     "params": {"path": "/tmp/ckpt-out"}}
  ],
  "edges": [
    {"from": "source", "to": "aggregate", "partitioning": "HASH"},
    {"from": "aggregate", "to": "watermarks", "partitioning": "FORWARD"},
    {"from": "watermarks", "to": "sink", "partitioning": "REBALANCE"}
  ],
  "checkpointing": {"intervalMs": 1000}
}
)";

inline constexpr int64_t kSavepointCheckpointId = 42;
inline constexpr int kSavepointUsers = 24;

// The user key of sample user `i`: "user-00" ... "user-23".
inline std::string SampleUser(int i) {
  return std::string("user-") + static_cast<char>('0' + i / 10) + static_cast<char>('0' + i % 10);
}

// Types of the aggregate's states, in declaration order.
inline pb::TypeDescriptor CoordinatorType() {
  return types::Tuple({types::List(types::Tuple({types::Int64(), types::String(), types::Int64()},
                                                {"subtask", "split", "position"})),
                       types::Int64()},
                      {"assigned_splits", "unassigned_splits"});
}

inline base::Status WriteSourceState(SnapshotBuilder& b, pb::OperatorState* op) {
  pb::CheckpointMetadata& m = b.metadata();
  *op->add_states() = State("offsets", pb::STATE_OPERATOR_LIST, types::Int64());
  // Coordinator: which split each subtask reads and how far it got, TUPLE-typed, inline.
  List assigned;
  for (int64_t s = 0; s < 2; ++s) {
    assigned.elements.push_back(Tuple{{Value(s), Value("orders-" + std::to_string(s)),
                                       Value(int64_t{1000} + 250 * s)}});
  }
  CKPT_ASSIGN_OR_RETURN(std::string coord,
                        Enc(CoordinatorType(), Tuple{{Value(std::move(assigned)), Value(int64_t{2})}}));
  pb::CoordinatorState* cs = op->mutable_coordinator_state();
  cs->set_inline_data(coord);
  *cs->mutable_type() = CoordinatorType();
  cs->set_size_bytes(coord.size());
  for (uint32_t s = 0; s < 2; ++s) {
    CKPT_ASSIGN_OR_RETURN(std::string v1, Enc(types::Int64(), int64_t{1000} + 250 * s));
    CKPT_ASSIGN_OR_RETURN(
        pb::OperatorStateHandle h,
        WriteOperatorState(b, "orders-source-" + std::to_string(s) + "-operator.state",
                           pb::EXCLUSIVE, m.checkpoint_id(),
                           {{0, "offsets", pb::STATE_OPERATOR_LIST, {v1}}}));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_operator_state() = h;
  }
  return base::Status::OK();
}

inline base::Status WriteAggregateState(SnapshotBuilder& b, pb::OperatorState* op) {
  pb::CheckpointMetadata& m = b.metadata();
  const pb::TypeDescriptor key = types::String();
  *op->add_states() = State("order-count", pb::STATE_VALUE, types::Int64(), key);
  *op->add_states() = State("recent-items", pb::STATE_LIST, types::String(), key);
  *op->add_states() =
      State("spend-by-category", pb::STATE_MAP, types::Double(), key, types::String());
  *op->add_states() =
      State("event-time-timers", pb::STATE_TIMERS, types::Void(), key, types::Int64());
  static const char* kCategories[] = {"books", "games", "music", "tools"};
  std::vector<std::vector<KeyedEntry>> per_subtask(op->parallelism());
  for (int u = 0; u < kSavepointUsers; ++u) {
    CKPT_ASSIGN_OR_RETURN(std::string k, Enc(key, SampleUser(u)));
    const uint32_t group = KeyGroupForKey(k, op->max_parallelism());
    auto& out = per_subtask[SubtaskForKeyGroup(op->max_parallelism(), op->parallelism(), group)];
    CKPT_ASSIGN_OR_RETURN(std::string count, Enc(types::Int64(), int64_t{u} * 3 + 1));
    out.push_back({group, k, 0, "", count});
    List items;
    for (int i = 0; i <= u % 3; ++i) items.elements.push_back("item-" + std::to_string(u * 10 + i));
    // A keyed LIST record holds the whole list (the value is a LIST of the element type).
    CKPT_ASSIGN_OR_RETURN(std::string list, Enc(types::List(types::String()), items));
    out.push_back({group, k, 1, "", list});
    for (int c = 0; c < 2; ++c) {
      CKPT_ASSIGN_OR_RETURN(std::string cat, Enc(types::String(), kCategories[(u + c) % 4]));
      CKPT_ASSIGN_OR_RETURN(std::string spend, Enc(types::Double(), 10.5 * (u + 1) + c * 0.25));
      out.push_back({group, k, 2, cat, spend});
    }
    CKPT_ASSIGN_OR_RETURN(std::string ts, Enc(types::Int64(), kBaseTimestampMs + 60000 * (u + 1)));
    out.push_back({group, k, 3, ts, ""});
  }
  for (uint32_t s = 0; s < op->parallelism(); ++s) {
    const KeyGroupRange range = RangeForSubtask(op->max_parallelism(), op->parallelism(), s);
    CKPT_ASSIGN_OR_RETURN(
        pb::KeyedStateHandle h,
        WriteKeyGroups(b, "per-user-aggregate-" + std::to_string(s) + "-keyed.state",
                       pb::EXCLUSIVE, m.checkpoint_id(), range, std::move(per_subtask[s])));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_keyed_state() = h;
  }
  return base::Status::OK();
}

inline pb::TypeDescriptor WatermarkType() {
  return types::Tuple({types::Int64(), types::Int64()}, {"subtask", "watermark"});
}

inline base::Status WriteWatermarkState(SnapshotBuilder& b, pb::OperatorState* op) {
  *op->add_states() = State("watermarks", pb::STATE_OPERATOR_UNION, WatermarkType());
  for (uint32_t s = 0; s < op->parallelism(); ++s) {
    CKPT_ASSIGN_OR_RETURN(std::string v,
                          Enc(WatermarkType(), Tuple{{Value(int64_t{s}),
                                                      Value(kBaseTimestampMs + 30000 + 5000 * s)}}));
    CKPT_ASSIGN_OR_RETURN(
        pb::OperatorStateHandle h,
        WriteOperatorState(b, "watermark-tracker-" + std::to_string(s) + "-operator.state",
                           pb::EXCLUSIVE, b.metadata().checkpoint_id(),
                           {{0, "watermarks", pb::STATE_OPERATOR_UNION, {v}}}));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_operator_state() = h;
  }
  return base::Status::OK();
}

inline void WriteSinkState(const pb::CheckpointMetadata& m, pb::OperatorState* op) {
  pb::SubtaskState* st = op->add_subtasks();
  st->set_subtask_index(0);
  for (int n = 0; n < 2; ++n) {
    // The contents the pending part files would have; only their size and checksum are recorded.
    const std::string contents = "part " + std::to_string(n) + " of checkpoint " +
                                 std::to_string(m.checkpoint_id()) + "\n";
    pb::SinkCommittable* c = st->add_committables();
    c->set_pending_path("/tmp/ckpt-out/.part-file-sink-0-" + std::to_string(n) + ".inprogress");
    c->set_final_path("/tmp/ckpt-out/part-file-sink-0-" + std::to_string(n));
    c->set_size_bytes(contents.size());
    c->set_checksum_xxh3(base::Xxh3(contents));
    c->set_checkpoint_id(m.checkpoint_id());
  }
}

// Writes the canonical stop-with-savepoint of the 4-operator sample job into `snapshot_dir`
// (created; must not already hold a _metadata). Returns the metadata it published.
inline base::Result<pb::CheckpointMetadata> WriteSampleSavepoint(base::Fs& fs,
                                                                 const std::string& snapshot_dir) {
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(StartMetadata(kSavepointJobSpec, kSavepointCheckpointId, pb::SAVEPOINT, &m));
  m.set_savepoint_format(pb::CANONICAL);
  m.set_checkpoint_type(pb::FULL);
  m.set_post_action(pb::POST_ACTION_STOP);
  m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
  pb::RestoreInfo* r = m.mutable_restored_from();
  r->set_path("/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-40");
  r->set_checkpoint_id(40);
  r->set_kind(pb::CHECKPOINT);
  r->set_claim_mode(pb::NO_CLAIM);
  SnapshotBuilder b(fs, snapshot_dir, &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(snapshot_dir));
  CKPT_RETURN_IF_ERROR(WriteSourceState(b, AddOperatorState(&m, "source")));
  CKPT_RETURN_IF_ERROR(WriteAggregateState(b, AddOperatorState(&m, "aggregate")));
  CKPT_RETURN_IF_ERROR(WriteWatermarkState(b, AddOperatorState(&m, "watermarks")));
  WriteSinkState(m, AddOperatorState(&m, "sink"));
  FillMetrics(&m);
  CKPT_RETURN_IF_ERROR(b.Publish());
  return m;
}

}  // namespace ckpt::format::sample
