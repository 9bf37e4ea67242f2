// ChangelogKeyedStateBackend: logging internals, checkpoints (materialization handle + segments),
// background and synchronous materializations, and their adoption (see
// changelog_keyed_state_backend.h; the log and its writer are changelog_log.h).
#include "ckpt/engine/state/changelog_keyed_state_backend.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/state/internal_keyed_state.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/format/records.h"
#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"
#include "state/changelog_log.h"

namespace ckpt::engine {

using state_internal::BackendCore;
using state_internal::BasePtr;
using state_internal::ChangelogBase;
using state_internal::InternalKeyedState;
using state_internal::SegmentPtr;

namespace {

using SteadyClock = std::chrono::steady_clock;

// A synchronous materialization (the first checkpoint of a backend, a FULL checkpoint, a forced
// one): written by its checkpoint's async part.
struct SyncMaterialization {
  uint64_t sequence = 0;
  BasePtr result;  // once the async part succeeded
};

}  // namespace

struct ChangelogKeyedStateBackend::Log {
  explicit Log(state_internal::ChangelogLogOptions o) : dstl(o) {}
  state_internal::ChangelogLog dstl;

  // Task thread only.
  bool force_materialization = false;
  bool materialization_due = false;  // a background materialization starts at the next change
  std::function<void()> start_materialization;
  int64_t last_synced = 0;  // newest checkpoint whose sync phase ran
  SteadyClock::time_point last_materialization_start{};
  uint64_t materializations = 0;
  std::thread materializer;

  // Shared with async parts and the materializer thread.
  std::mutex mu;
  std::map<int64_t, std::shared_ptr<SyncMaterialization>> sync_pending;
  bool background_in_flight = false;
  BasePtr background_ready;      // done, not yet adopted
  int64_t background_failed = 0;  // id of a failed one, not yet cleaned up
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
    log_->dstl.Append(op, id_, core_->current_key_group, core_->current_encoded_key,
                      core_->current_ns, user_key, value);
    // A due materialization starts between two changes (as Flink's runs between two mailbox
    // actions), not inside a checkpoint's synchronous phase.
    if (log_->materialization_due) log_->start_materialization();
  }

  InternalKeyedState* inner_;
  BackendCore* core_;
  uint32_t id_;
  Log* log_;
};

// Moves the EXCLUSIVE files a wrapped backend wrote into `dir` to
// shared/<stem>/materialized-<id>-<token>-<name> (later checkpoints reference them; the store
// counts references there) and returns the base. On error the files are removed.
base::Result<BasePtr> ToSharedBase(base::Fs& fs, const std::string& dir,
                                   const std::string& shared_dir, const std::string& stem,
                                   const std::string& token, int64_t id, uint64_t sequence,
                                   KeyedSnapshotResult r) {
  std::vector<std::string> moved;
  for (pb::FileEntry& f : r.files) {
    if (f.scope() != pb::EXCLUSIVE) continue;
    const std::string rel =
        stem + "/materialized-" + std::to_string(id) + "-" + token + "-" + f.path();
    const std::string src = base::JoinPath(dir, f.path());
    const std::string dst = base::JoinPath(shared_dir, rel);
    base::Status st = fs.CreateDirs(base::DirName(dst));
    if (st.ok()) st = fs.Rename(src, dst);
    if (!st.ok()) {
      for (const std::string& to : moved) fs.RemoveFile(to).IgnoreError();
      for (const pb::FileEntry& g : r.files) {
        if (g.scope() == pb::EXCLUSIVE) fs.RemoveFile(base::JoinPath(dir, g.path())).IgnoreError();
      }
      return st.WithContext("moving the materialized state into shared/");
    }
    moved.push_back(dst);
    f.set_scope(pb::SHARED);
    f.set_path(rel);
  }
  auto b = std::make_shared<ChangelogBase>();
  b->id = id;
  b->sequence = sequence;
  b->handles = std::move(r.handles);
  b->files = std::move(r.files);
  for (const pb::FileEntry& f : b->files) {
    if (f.created_by_checkpoint_id() == id) b->created_bytes += f.size_bytes();
  }
  return b;
}

// The ChangelogStateHandle of `base` plus `segments` (durable), and the files it references.
void BuildHandle(const ChangelogBase& base, const std::vector<SegmentPtr>& segments,
                 const state_internal::ChangelogLog& dstl, format::KeyGroupRange range,
                 KeyedSnapshotResult* out) {
  pb::ChangelogStateHandle h;
  h.set_key_group_start(range.start);
  h.set_key_group_end(range.end);
  h.set_materialization_id(base.id);
  for (const pb::KeyedStateHandle& m : base.handles) *h.add_materialized() = m;
  out->files = base.files;
  for (const SegmentPtr& s : segments) {
    pb::ChangelogSegment* seg = h.add_segments();
    seg->mutable_slice()->set_file_index(static_cast<uint32_t>(out->files.size()));
    seg->mutable_slice()->set_offset(s->offset);
    seg->mutable_slice()->set_length(s->length);
    seg->set_from_sequence(s->from);
    seg->set_to_sequence(s->to);
    out->files.push_back(dstl.EntryOf(*s));
  }
  for (const pb::FileEntry& f : out->files) out->state_size_bytes += f.size_bytes();
  *out->handles.emplace_back().mutable_changelog() = std::move(h);
}

class ChangelogAsyncPart : public SnapshotAsyncPart {
 public:
  ChangelogAsyncPart(std::shared_ptr<Log> log, std::vector<pb::StateDescriptor> states,
                     format::KeyGroupRange range)
      : log_(std::move(log)), states_(std::move(states)), range_(range) {}

  // Materializing checkpoint: the wrapped backend's part and where the log stood.
  std::unique_ptr<SnapshotAsyncPart> inner;
  std::shared_ptr<SyncMaterialization> materialization;
  // Otherwise: the current base and the segments after it (the tail sealed at the sync phase).
  BasePtr base;
  std::vector<SegmentPtr> segments;

  const std::vector<pb::StateDescriptor>& states() const override {
    return inner ? inner->states() : states_;
  }
  bool empty() const override {
    return inner ? inner->empty() : base->handles.empty() && segments.empty();
  }

  base::Result<KeyedSnapshotResult> Run(base::Fs& fs, const CheckpointOptions& options,
                                        const SnapshotWriteOptions& write,
                                        const std::string& stem) override {
    state_internal::ChangelogLog& dstl = log_->dstl;
    dstl.SetTarget(&fs, options.SharedDir(), stem, write);
    if (inner) return Materialize(fs, options, write, stem);
    // Only the tail sealed at the sync phase can still be uploading.
    CKPT_RETURN_IF_ERROR(dstl.WaitDurable(segments));
    KeyedSnapshotResult out;
    BuildHandle(*base, segments, dstl, range_, &out);
    // Checkpointed size: what this checkpoint is the first to reference.
    if (base->first_checkpoint == options.checkpoint_id) {
      out.checkpointed_size_bytes += base->created_bytes;
    }
    for (const SegmentPtr& s : segments) {
      if (s->first_checkpoint == options.checkpoint_id) out.checkpointed_size_bytes += s->size_bytes;
    }
    return out;
  }

 private:
  base::Result<KeyedSnapshotResult> Materialize(base::Fs& fs, const CheckpointOptions& options,
                                                const SnapshotWriteOptions& write,
                                                const std::string& stem) {
    CKPT_ASSIGN_OR_RETURN(KeyedSnapshotResult r, inner->Run(fs, options, write, stem));
    const uint64_t checkpointed = r.checkpointed_size_bytes;
    CKPT_ASSIGN_OR_RETURN(
        BasePtr b, ToSharedBase(fs, options.snapshot_dir, options.SharedDir(), stem,
                                log_->dstl.token(), options.checkpoint_id,
                                materialization->sequence, std::move(r)));
    b->first_checkpoint = options.checkpoint_id;
    KeyedSnapshotResult out;
    BuildHandle(*b, {}, log_->dstl, range_, &out);
    out.checkpointed_size_bytes = checkpointed;
    log_->dstl.SetPendingBase(options.checkpoint_id, b);
    std::lock_guard<std::mutex> lock(log_->mu);
    materialization->result = std::move(b);
    return out;
  }

  std::shared_ptr<Log> log_;
  std::vector<pb::StateDescriptor> states_;
  format::KeyGroupRange range_;
};

}  // namespace

ChangelogKeyedStateBackend::ChangelogKeyedStateBackend(std::unique_ptr<KeyedStateBackend> inner,
                                                       ChangelogBackendOptions options)
    : KeyedStateBackend(*inner),
      inner_(std::move(inner)),
      options_(options),
      log_(std::make_shared<Log>(state_internal::ChangelogLogOptions{
          options.upload_size_bytes, options.upload_interval_ms})) {
  Log* log = log_.get();
  BackendCore* c = core();
  c->timer_observer = [log, c](bool event_time, const state_internal::TimerEntry& t, bool added) {
    const int64_t id = event_time ? c->timer_event_state : c->timer_processing_state;
    if (id < 0) return;
    std::string ts;
    format::EncodeValue(format::types::Int64(), format::Value{t.timestamp}, &ts).IgnoreError();
    log->dstl.Append(added ? format::ChangeOp::kPut : format::ChangeOp::kDelete,
                     static_cast<uint32_t>(id), t.key_group, t.key, t.ns, ts, {});
  };
  log->start_materialization = [this] { StartMaterialization(); };
}

ChangelogKeyedStateBackend::~ChangelogKeyedStateBackend() {
  core()->timer_observer = nullptr;
  if (log_->materializer.joinable()) log_->materializer.join();
  AdoptBackgroundMaterialization();
  log_->dstl.Shutdown();
}

StateBackendKind ChangelogKeyedStateBackend::kind() const { return inner_->kind(); }

ChangelogStats ChangelogKeyedStateBackend::stats() const {
  const state_internal::ChangelogLog::Stats d = log_->dstl.stats();
  ChangelogStats s;
  s.changes_appended = d.appended;
  s.changes_in_memory = d.in_memory;
  s.segments_referenced = d.current_segments;
  s.segments_uploaded = d.durable_segments;
  s.files_deleted = d.files_deleted;
  s.materializations = log_->materializations;
  const BasePtr b = log_->dstl.base();
  s.last_materialized_sequence = b ? b->sequence : 0;
  std::lock_guard<std::mutex> lock(log_->mu);
  s.materialization_in_flight = log_->background_in_flight;
  s.materialization_ready = log_->background_ready != nullptr;
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
  // Restored state is not in the log: the first checkpoint materializes (there is no base).
  return inner_->RestoreWithChangelog(source);
}

void ChangelogKeyedStateBackend::StartMaterialization() {
  Log& log = *log_;
  log.materialization_due = false;
  {
    std::lock_guard<std::mutex> lock(log.mu);
    if (log.background_in_flight || log.background_ready) return;
  }
  if (!log.dstl.has_target()) return;
  if (log.materializer.joinable()) log.materializer.join();
  const state_internal::ChangelogLog::Target target = log.dstl.target();
  const int64_t id = log.last_synced;
  // Segments never straddle a materialization: the open batch ends here.
  log.dstl.Seal();
  const uint64_t sequence = log.dstl.last_sequence();
  CheckpointOptions mo;
  mo.checkpoint_id = id;
  mo.kind = pb::CHECKPOINT;
  mo.shared_dir = target.shared_dir;
  mo.snapshot_dir = base::JoinPath(
      target.shared_dir,
      target.stem + "/materializing-" + std::to_string(id) + "-" + log.dstl.token());
  if (!target.fs->CreateDirs(mo.snapshot_dir).ok()) return;  // retried at a later checkpoint
  base::Result<std::unique_ptr<SnapshotAsyncPart>> part = inner_->SnapshotSync(mo);
  if (!part.ok()) {
    target.fs->RemoveDir(mo.snapshot_dir).IgnoreError();
    return;
  }
  log.last_materialization_start = SteadyClock::now();
  {
    std::lock_guard<std::mutex> lock(log.mu);
    log.background_in_flight = true;
  }
  std::shared_ptr<Log> shared = log_;
  std::shared_ptr<SnapshotAsyncPart> p(std::move(*part));
  log.materializer = std::thread([shared, p, mo, target, id, sequence] {
    base::Fs& fs = *target.fs;
    base::Result<KeyedSnapshotResult> r = p->Run(fs, mo, target.write, target.stem);
    base::Result<BasePtr> b =
        r.ok() ? ToSharedBase(fs, mo.snapshot_dir, target.shared_dir, target.stem,
                              shared->dstl.token(), id, sequence, std::move(*r))
               : base::Result<BasePtr>(r.status());
    base::RemoveAll(fs, mo.snapshot_dir).IgnoreError();
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->background_in_flight = false;
    if (b.ok()) {
      shared->background_ready = std::move(*b);
    } else {
      shared->background_failed = id;
    }
  });
}

void ChangelogKeyedStateBackend::AdoptBackgroundMaterialization() {
  Log& log = *log_;
  BasePtr ready;
  int64_t failed = 0;
  {
    std::lock_guard<std::mutex> lock(log.mu);
    ready = std::move(log.background_ready);
    log.background_ready.reset();
    failed = log.background_failed;
    log.background_failed = 0;
  }
  if (failed != 0) {
    inner_->NotifyCheckpointAborted(failed);  // the wrapped backend drops its uploads
    log.last_materialization_start = SteadyClock::time_point{};  // due again
  }
  if (!ready) return;
  const BasePtr current = log.dstl.base();
  if (current && ready->sequence <= current->sequence) {
    log.dstl.Discard(ready);
    inner_->NotifyCheckpointAborted(ready->id);
    return;
  }
  // Current from now on: every later checkpoint references it, and the segments it covers
  // leave (truncation); the wrapped backend may build the next materialization on it.
  log.dstl.Adopt(ready);
  inner_->NotifyCheckpointComplete(ready->id);
  ++log.materializations;
}

base::Result<std::unique_ptr<SnapshotAsyncPart>> ChangelogKeyedStateBackend::SnapshotSync(
    const CheckpointOptions& options) {
  if (options.is_savepoint()) return inner_->SnapshotSync(options);  // self-contained
  Log& log = *log_;
  if (log.materialization_due) StartMaterialization();  // no change came since it became due
  AdoptBackgroundMaterialization();
  const int64_t id = options.checkpoint_id;
  auto part = std::make_unique<ChangelogAsyncPart>(log_, state_internal::DescribeStates(*core()),
                                                   key_group_range());
  const SteadyClock::time_point now = SteadyClock::now();
  const BasePtr base = log.dstl.base();
  if (options.full || !base || log.force_materialization) {
    // Synchronous: the first checkpoint (no base yet: fresh or restored), a FULL checkpoint, or
    // a forced one materializes as part of the checkpoint.
    log.dstl.Seal();
    auto m = std::make_shared<SyncMaterialization>();
    m->sequence = log.dstl.last_sequence();
    CKPT_ASSIGN_OR_RETURN(part->inner, inner_->SnapshotSync(options));
    part->materialization = m;
    log.force_materialization = false;
    log.last_materialization_start = now;
    log.dstl.AddPending(id, nullptr, {});
    std::lock_guard<std::mutex> lock(log.mu);
    log.sync_pending[id] = std::move(m);
  } else {
    part->segments = log.dstl.SealForCheckpoint(id);
    if (base->first_checkpoint == 0) base->first_checkpoint = id;
    part->base = base;
    log.dstl.AddPending(id, base, part->segments);
    bool in_flight = false;
    {
      std::lock_guard<std::mutex> lock(log.mu);
      in_flight = log.background_in_flight || log.background_ready != nullptr;
    }
    if (!in_flight && now - log.last_materialization_start >=
                          std::chrono::milliseconds(options_.materialization_interval_ms)) {
      log.materialization_due = true;
    }
  }
  log.last_synced = std::max(log.last_synced, id);
  return std::unique_ptr<SnapshotAsyncPart>(std::move(part));
}

void ChangelogKeyedStateBackend::NotifyCheckpointComplete(int64_t checkpoint_id) {
  Log& log = *log_;
  AdoptBackgroundMaterialization();
  std::shared_ptr<SyncMaterialization> m;
  {
    std::lock_guard<std::mutex> lock(log.mu);
    auto it = log.sync_pending.find(checkpoint_id);
    if (it != log.sync_pending.end()) m = it->second;
    log.sync_pending.erase(log.sync_pending.begin(), log.sync_pending.upper_bound(checkpoint_id));
  }
  BasePtr result;
  if (m) {
    std::lock_guard<std::mutex> lock(log.mu);
    result = m->result;
  }
  if (result) {
    // Adopted only if no later checkpoint was taken without it: such a checkpoint, once
    // retained, would subsume this one and the store would delete the files later checkpoints
    // reference. Not adopted, it is retried (its files belong to the store now).
    const BasePtr current = log.dstl.base();
    if (log.last_synced > checkpoint_id) {
      log.last_materialization_start = SteadyClock::time_point{};
    } else if (!current || result->sequence > current->sequence) {
      log.dstl.Adopt(result);
      inner_->NotifyCheckpointComplete(checkpoint_id);
      ++log.materializations;
    }
  }
  log.dstl.Complete(checkpoint_id);
}

void ChangelogKeyedStateBackend::NotifyCheckpointAborted(int64_t checkpoint_id) {
  Log& log = *log_;
  std::shared_ptr<SyncMaterialization> m;
  {
    std::lock_guard<std::mutex> lock(log.mu);
    auto it = log.sync_pending.find(checkpoint_id);
    if (it != log.sync_pending.end()) {
      m = it->second;
      log.sync_pending.erase(it);
    }
  }
  log.dstl.Abort(checkpoint_id);
  if (!m) return;
  BasePtr result;
  {
    std::lock_guard<std::mutex> lock(log.mu);
    result = m->result;
  }
  if (result) log.dstl.Discard(result);  // nothing else references its files
  inner_->NotifyCheckpointAborted(checkpoint_id);
  log.last_materialization_start = SteadyClock::time_point{};  // due again
}

}  // namespace ckpt::engine
