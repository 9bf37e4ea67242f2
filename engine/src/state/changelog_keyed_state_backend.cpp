// ChangelogKeyedStateBackend: logging internals, the log and its truncation, materialization and
// the checkpoint async part (see changelog_keyed_state_backend.h).
#include "ckpt/engine/state/changelog_keyed_state_backend.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/state/internal_keyed_state.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"

namespace ckpt::engine {

using state_internal::BackendCore;
using state_internal::InternalKeyedState;

namespace {

using Clock = std::chrono::steady_clock;

std::string RandomToken() {
  static const char* kHex = "0123456789abcdef";
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd());
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(kHex[gen() & 15]);
  return s;
}

// A materialized base: handles whose file indexes refer to `files`.
struct Base {
  bool valid = false;
  int64_t checkpoint_id = 0;  // the checkpoint that materialized it
  uint64_t sequence = 0;      // every change up to here is in it
  std::vector<pb::KeyedStateHandle> handles;
  std::vector<pb::FileEntry> files;
};

struct Segment {
  pb::FileEntry file;
  uint64_t offset = 0, length = 0;
  uint64_t from = 0, to = 0;
};

struct Pending {
  bool materializing = false;
  uint64_t materialized_sequence = 0;
  bool done = false;  // Run() succeeded
  Base result;        // materializing
  bool has_segment = false;
  Segment segment;    // otherwise
};

}  // namespace

struct ChangelogKeyedStateBackend::Log {
  // Random per backend instance: names of files a killed earlier attempt may have left under the
  // same checkpoint id never collide.
  std::string token = RandomToken();
  // Task thread only.
  std::deque<std::string> records;  // encoded ChangelogRecords, sequences first_seq...
  uint64_t first_seq = 1;
  uint64_t next_seq = 1;
  uint64_t appended = 0;
  Base base;                      // last confirmed materialization
  std::vector<Segment> segments;  // confirmed, contiguous after base.sequence
  uint64_t confirmed_to = 0;      // max(base.sequence, last segment's to)
  bool materialization_in_flight = false;
  bool force_materialization = false;
  int64_t last_synced = 0;  // newest checkpoint whose sync phase ran
  Clock::time_point last_materialization_start{};
  uint64_t materializations = 0;
  std::string scratch;

  // Shared with the async parts.
  std::mutex mu;
  std::map<int64_t, std::shared_ptr<Pending>> pending;

  void Append(format::ChangeOp op, uint32_t state, uint32_t key_group, std::string_view key,
              std::string_view ns, std::string_view user_key, std::string_view value) {
    format::ChangelogRecord r;
    r.sequence = next_seq++;
    r.op = op;
    r.key_group = key_group;
    r.change.state_index = state;
    r.change.key = key;
    r.change.ns = ns;
    r.change.user_key = user_key;
    r.change.value = value;
    std::string bytes;
    format::EncodeChangelogRecord(r, &bytes);
    if (records.empty()) first_seq = r.sequence;
    records.push_back(std::move(bytes));
    ++appended;
  }

  void TruncateUpTo(uint64_t sequence) {
    while (!records.empty() && first_seq <= sequence) {
      records.pop_front();
      ++first_seq;
    }
    if (records.empty()) first_seq = next_seq;
  }
};

namespace {

using Log = ChangelogKeyedStateBackend::Log;

// Applies every change to the wrapped backend's internal state, then logs it.
class LoggingState : public InternalKeyedState {
 public:
  LoggingState(InternalKeyedState* inner, BackendCore* core, uint32_t id, Log* log)
      : inner_(inner), core_(core), id_(id), log_(log) {}

  const format::Value* Get() override { return inner_->Get(); }

  base::Status Put(format::Value value) override {
    const state_internal::KeyedStateInfo& info = core_->states[id_];
    const pb::TypeDescriptor& type =
        info.descriptor.kind() == pb::STATE_LIST ? info.list_type : info.descriptor.value_type();
    std::string bytes;
    CKPT_RETURN_IF_ERROR(format::EncodeValue(type, value, &bytes));
    CKPT_RETURN_IF_ERROR(inner_->Put(std::move(value)));
    Record(format::ChangeOp::kPut, {}, bytes);
    return base::Status::OK();
  }

  base::Status Clear() override {
    CKPT_RETURN_IF_ERROR(inner_->Clear());
    if (core_->key_in_range) Record(format::ChangeOp::kClear, {}, {});
    return base::Status::OK();
  }

  base::Status AddToList(format::Value element) override {
    std::string bytes;
    CKPT_RETURN_IF_ERROR(
        format::EncodeValue(core_->states[id_].descriptor.value_type(), element, &bytes));
    CKPT_RETURN_IF_ERROR(inner_->AddToList(std::move(element)));
    Record(format::ChangeOp::kAppend, {}, bytes);
    return base::Status::OK();
  }

  base::Status Fold(const format::Value& input) override {
    CKPT_RETURN_IF_ERROR(inner_->Fold(input));
    const format::Value* stored = inner_->Get();
    if (stored == nullptr) return base::Status::OK();
    std::string bytes;
    CKPT_RETURN_IF_ERROR(
        format::EncodeValue(core_->states[id_].descriptor.value_type(), *stored, &bytes));
    Record(format::ChangeOp::kPut, {}, bytes);
    return base::Status::OK();
  }

  const format::Value* MapGet(const format::Value& user_key) override {
    return inner_->MapGet(user_key);
  }

  base::Status MapPut(const format::Value& user_key, format::Value value) override {
    const pb::StateDescriptor& d = core_->states[id_].descriptor;
    std::string uk, bytes;
    CKPT_RETURN_IF_ERROR(format::EncodeValue(d.user_key_type(), user_key, &uk));
    CKPT_RETURN_IF_ERROR(format::EncodeValue(d.value_type(), value, &bytes));
    CKPT_RETURN_IF_ERROR(inner_->MapPut(user_key, std::move(value)));
    Record(format::ChangeOp::kPut, uk, bytes);
    return base::Status::OK();
  }

  base::Status MapRemove(const format::Value& user_key) override {
    std::string uk;
    if (!format::EncodeValue(core_->states[id_].descriptor.user_key_type(), user_key, &uk).ok()) {
      return inner_->MapRemove(user_key);  // a key of the wrong type is never stored
    }
    CKPT_RETURN_IF_ERROR(inner_->MapRemove(user_key));
    if (core_->key_in_range) Record(format::ChangeOp::kDelete, uk, {});
    return base::Status::OK();
  }

  size_t MapSize() override { return inner_->MapSize(); }
  void MapForEach(const std::function<bool(const format::Value&, const format::Value&)>& fn)
      override {
    inner_->MapForEach(fn);
  }
  const AggregateFunction& aggregate() const override { return inner_->aggregate(); }

 private:
  void Record(format::ChangeOp op, std::string_view user_key, std::string_view value) {
    log_->Append(op, id_, core_->current_key_group, core_->current_encoded_key, core_->current_ns,
                 user_key, value);
  }

  InternalKeyedState* inner_;
  BackendCore* core_;
  uint32_t id_;
  Log* log_;
};

std::string SharedRoot(const CheckpointOptions& options) {
  return base::JoinPath(base::DirName(options.snapshot_dir), "shared");
}

class ChangelogAsyncPart : public SnapshotAsyncPart {
 public:
  ChangelogAsyncPart(std::shared_ptr<Log> log, std::shared_ptr<Pending> pending,
                     std::vector<pb::StateDescriptor> states, format::KeyGroupRange range)
      : log_(std::move(log)),
        pending_(std::move(pending)),
        states_(std::move(states)),
        range_(range) {}

  // Materializing checkpoint.
  std::unique_ptr<SnapshotAsyncPart> inner;
  // Otherwise: the confirmed base and segments, and the changes not in a confirmed segment.
  Base base;
  std::vector<Segment> segments;
  std::vector<std::string> changes;
  uint64_t changes_from = 0, changes_to = 0;

  const std::vector<pb::StateDescriptor>& states() const override {
    return inner ? inner->states() : states_;
  }
  bool empty() const override {
    if (inner) return inner->empty();
    return base.handles.empty() && segments.empty() && changes.empty();
  }

  base::Result<KeyedSnapshotResult> Run(base::Fs& fs, const CheckpointOptions& options,
                                        const SnapshotWriteOptions& write,
                                        const std::string& stem) override {
    if (inner) return Materialize(fs, options, write, stem);
    KeyedSnapshotResult out;
    pb::ChangelogStateHandle h;
    h.set_key_group_start(range_.start);
    h.set_key_group_end(range_.end);
    h.set_materialization_id(base.checkpoint_id);
    for (const pb::KeyedStateHandle& m : base.handles) *h.add_materialized() = m;
    out.files = base.files;
    auto add_segment = [&](const Segment& s) {
      pb::ChangelogSegment* seg = h.add_segments();
      seg->mutable_slice()->set_file_index(static_cast<uint32_t>(out.files.size()));
      seg->mutable_slice()->set_offset(s.offset);
      seg->mutable_slice()->set_length(s.length);
      seg->set_from_sequence(s.from);
      seg->set_to_sequence(s.to);
      out.files.push_back(s.file);
    };
    for (const Segment& s : segments) add_segment(s);
    if (!changes.empty()) {
      CKPT_ASSIGN_OR_RETURN(Segment s, WriteSegment(fs, options, write, stem));
      out.checkpointed_size_bytes += s.file.size_bytes();
      add_segment(s);
      std::lock_guard<std::mutex> lock(log_->mu);
      pending_->has_segment = true;
      pending_->segment = s;
    }
    for (const pb::FileEntry& f : out.files) out.state_size_bytes += f.size_bytes();
    *out.handles.emplace_back().mutable_changelog() = std::move(h);
    std::lock_guard<std::mutex> lock(log_->mu);
    pending_->done = true;
    return out;
  }

 private:
  base::Result<Segment> WriteSegment(base::Fs& fs, const CheckpointOptions& options,
                                     const SnapshotWriteOptions& write, const std::string& stem) {
    const std::string rel = stem + "/changelog-" + std::to_string(options.checkpoint_id) + "-" +
                            log_->token + "-" + std::to_string(changes_from) + ".log";
    const std::string path = base::JoinPath(SharedRoot(options), rel);
    CKPT_RETURN_IF_ERROR(fs.CreateDirs(base::DirName(path)));
    format::StateFileWriterOptions wo;
    wo.kind = pb::CHANGELOG;
    wo.compression = write.compression;
    wo.block_size_bytes = write.block_size_bytes;
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<format::StateFileWriter> w,
                          format::StateFileWriter::Create(fs, path, wo));
    Segment s;
    base::Status st = w->BeginSection(0);
    s.offset = w->logical_offset();
    for (size_t i = 0; st.ok() && i < changes.size(); ++i) st = w->Add(changes[i]).status();
    s.length = w->logical_offset() - s.offset;
    if (!st.ok()) {
      w->Abandon();
      return st.WithContext(path);
    }
    base::Result<format::StateFileSummary> done = w->Finish();
    if (!done.ok()) {
      w->Abandon();
      return done.status();
    }
    s.from = changes_from;
    s.to = changes_to;
    s.file.set_path(rel);
    s.file.set_scope(pb::SHARED);
    s.file.set_kind(pb::CHANGELOG);
    s.file.set_size_bytes(done->size_bytes);
    s.file.set_checksum_xxh3(done->checksum_xxh3);
    s.file.set_compression(done->compression);
    s.file.set_created_by_checkpoint_id(options.checkpoint_id);
    return s;
  }

  base::Result<KeyedSnapshotResult> Materialize(base::Fs& fs, const CheckpointOptions& options,
                                                const SnapshotWriteOptions& write,
                                                const std::string& stem) {
    CKPT_ASSIGN_OR_RETURN(KeyedSnapshotResult r, inner->Run(fs, options, write, stem));
    // The wrapped backend wrote its private files into the checkpoint directory; later
    // checkpoints reference them, so they move into shared/ (reference counted there).
    std::vector<std::pair<std::string, std::string>> moved;
    for (pb::FileEntry& f : r.files) {
      if (f.scope() != pb::EXCLUSIVE) continue;
      const std::string rel = stem + "/materialized-" + std::to_string(options.checkpoint_id) +
                              "-" + log_->token + "-" + f.path();
      const std::string src = base::JoinPath(options.snapshot_dir, f.path());
      const std::string dst = base::JoinPath(SharedRoot(options), rel);
      base::Status st = fs.CreateDirs(base::DirName(dst));
      if (st.ok()) st = fs.Rename(src, dst);
      if (!st.ok()) {
        for (const auto& [from, to] : moved) fs.RemoveFile(to).IgnoreError();
        for (const pb::FileEntry& g : r.files) {
          if (g.scope() == pb::EXCLUSIVE) {
            fs.RemoveFile(base::JoinPath(options.snapshot_dir, g.path())).IgnoreError();
          }
        }
        return st.WithContext("moving the materialized state into shared/");
      }
      moved.emplace_back(src, dst);
      f.set_scope(pb::SHARED);
      f.set_path(rel);
    }
    KeyedSnapshotResult out;
    pb::ChangelogStateHandle h;
    h.set_key_group_start(range_.start);
    h.set_key_group_end(range_.end);
    h.set_materialization_id(options.checkpoint_id);
    for (const pb::KeyedStateHandle& m : r.handles) *h.add_materialized() = m;
    out.files = r.files;
    out.state_size_bytes = r.state_size_bytes;
    out.checkpointed_size_bytes = r.checkpointed_size_bytes;
    *out.handles.emplace_back().mutable_changelog() = std::move(h);
    std::lock_guard<std::mutex> lock(log_->mu);
    pending_->result.valid = true;
    pending_->result.checkpoint_id = options.checkpoint_id;
    pending_->result.sequence = pending_->materialized_sequence;
    pending_->result.handles = std::move(r.handles);
    pending_->result.files = std::move(r.files);
    pending_->done = true;
    return out;
  }

  std::shared_ptr<Log> log_;
  std::shared_ptr<Pending> pending_;
  std::vector<pb::StateDescriptor> states_;
  format::KeyGroupRange range_;
};

}  // namespace

ChangelogKeyedStateBackend::ChangelogKeyedStateBackend(std::unique_ptr<KeyedStateBackend> inner,
                                                       ChangelogBackendOptions options)
    : KeyedStateBackend(*inner),
      inner_(std::move(inner)),
      options_(options),
      log_(std::make_shared<Log>()) {
  Log* log = log_.get();
  BackendCore* c = core();
  c->timer_observer = [log, c](bool event_time, const state_internal::TimerEntry& t, bool added) {
    const int64_t id = event_time ? c->timer_event_state : c->timer_processing_state;
    if (id < 0) return;
    std::string ts;
    format::EncodeValue(format::types::Int64(), format::Value{t.timestamp}, &ts).IgnoreError();
    log->Append(added ? format::ChangeOp::kPut : format::ChangeOp::kDelete,
                static_cast<uint32_t>(id), t.key_group, t.key, t.ns, ts, {});
  };
}

ChangelogKeyedStateBackend::~ChangelogKeyedStateBackend() { core()->timer_observer = nullptr; }

StateBackendKind ChangelogKeyedStateBackend::kind() const { return inner_->kind(); }

ChangelogStats ChangelogKeyedStateBackend::stats() const {
  ChangelogStats s;
  s.changes_appended = log_->appended;
  s.changes_in_memory = log_->records.size();
  s.segments_referenced = log_->segments.size();
  s.materializations = log_->materializations;
  s.last_materialized_sequence = log_->base.valid ? log_->base.sequence : 0;
  return s;
}

void ChangelogKeyedStateBackend::MaterializeAtNextCheckpoint() { log_->force_materialization = true; }

std::unique_ptr<KeyedStateSnapshot> ChangelogKeyedStateBackend::Snapshot() {
  return inner_->Snapshot();
}

uint64_t ChangelogKeyedStateBackend::NumEntries() const { return inner_->NumEntries(); }

base::Result<std::unique_ptr<InternalKeyedState>> ChangelogKeyedStateBackend::CreateInternalState(
    uint32_t id) {
  CKPT_ASSIGN_OR_RETURN(InternalKeyedState * inner, inner_->Internal(id));
  return std::unique_ptr<InternalKeyedState>(
      std::make_unique<LoggingState>(inner, core(), id, log_.get()));
}

base::Status ChangelogKeyedStateBackend::RestoreStateRecord(uint32_t id, uint32_t key_group,
                                                            const format::KeyedRecord& record) {
  return inner_->RestoreStateRecord(id, key_group, record);
}

base::Status ChangelogKeyedStateBackend::Restore(const KeyedRestoreSource& source) {
  // Restored state is not in the log: the first checkpoint materializes (base_ is invalid).
  return inner_->RestoreWithChangelog(source);
}

base::Result<std::unique_ptr<SnapshotAsyncPart>> ChangelogKeyedStateBackend::SnapshotSync(
    const CheckpointOptions& options) {
  if (options.is_savepoint()) return inner_->SnapshotSync(options);  // self-contained
  Log& log = *log_;
  auto pending = std::make_shared<Pending>();
  auto part = std::make_unique<ChangelogAsyncPart>(log_, pending, state_internal::DescribeStates(*core()),
                                                   key_group_range());
  const Clock::time_point now = Clock::now();
  const bool due =
      options.full || !log.base.valid || log.force_materialization ||
      (!log.materialization_in_flight &&
       now - log.last_materialization_start >=
           std::chrono::milliseconds(options_.materialization_interval_ms));
  if (due) {
    CKPT_ASSIGN_OR_RETURN(part->inner, inner_->SnapshotSync(options));
    pending->materializing = true;
    pending->materialized_sequence = log.next_seq - 1;
    log.materialization_in_flight = true;
    log.force_materialization = false;
    log.last_materialization_start = now;
  } else {
    part->base = log.base;
    part->segments = log.segments;
    const uint64_t from = log.confirmed_to + 1;
    for (uint64_t seq = std::max(from, log.first_seq); seq < log.next_seq; ++seq) {
      part->changes.push_back(log.records[seq - log.first_seq]);
    }
    if (!part->changes.empty()) {
      part->changes_from = std::max(from, log.first_seq);
      part->changes_to = log.next_seq - 1;
    }
  }
  log.last_synced = std::max(log.last_synced, options.checkpoint_id);
  std::lock_guard<std::mutex> lock(log.mu);
  log.pending[options.checkpoint_id] = std::move(pending);
  return std::unique_ptr<SnapshotAsyncPart>(std::move(part));
}

void ChangelogKeyedStateBackend::NotifyCheckpointComplete(int64_t checkpoint_id) {
  Log& log = *log_;
  bool materialized = false;
  {
    std::lock_guard<std::mutex> lock(log.mu);
    auto it = log.pending.find(checkpoint_id);
    if (it != log.pending.end() && it->second->done) {
      Pending& p = *it->second;
      // A materialization (or segment) is adopted only if no later checkpoint was already taken
      // without it: such a checkpoint, once retained, would subsume this one and the store
      // would delete the files the next checkpoints reference. Not adopted, a materialization
      // is retried at the next checkpoint and a segment's changes are uploaded again.
      const bool later_on_old_base = log.last_synced > checkpoint_id;
      if (p.materializing && p.result.valid && later_on_old_base) {
        log.last_materialization_start = Clock::time_point{};
      } else if (p.materializing && p.result.valid) {
        log.base = std::move(p.result);
        log.segments.clear();
        log.confirmed_to = log.base.sequence;
        ++log.materializations;
        materialized = true;
      } else if (p.has_segment && p.segment.from == log.confirmed_to + 1 && !later_on_old_base) {
        log.confirmed_to = p.segment.to;
        log.segments.push_back(std::move(p.segment));
      }
    }
    // This checkpoint subsumes every earlier pending one.
    log.pending.erase(log.pending.begin(), log.pending.upper_bound(checkpoint_id));
    log.materialization_in_flight = false;
    for (const auto& [id, p] : log.pending) {
      if (p->materializing) log.materialization_in_flight = true;
    }
  }
  // Truncation: what a confirmed materialization or segment holds leaves the memory; the files
  // of older segments are deleted by the checkpoint store once no retained checkpoint needs them.
  log.TruncateUpTo(log.confirmed_to);
  if (materialized) inner_->NotifyCheckpointComplete(checkpoint_id);
}

void ChangelogKeyedStateBackend::NotifyCheckpointAborted(int64_t checkpoint_id) {
  Log& log = *log_;
  bool was_materializing = false;
  {
    std::lock_guard<std::mutex> lock(log.mu);
    auto it = log.pending.find(checkpoint_id);
    if (it == log.pending.end()) return;
    was_materializing = it->second->materializing;
    log.pending.erase(it);
    if (was_materializing) {
      log.materialization_in_flight = false;
      log.last_materialization_start = Clock::time_point{};  // due again at the next checkpoint
    }
  }
  if (was_materializing) inner_->NotifyCheckpointAborted(checkpoint_id);
}

}  // namespace ckpt::engine
