// StreamTask: checkpoints (barrier decisions, sync and async snapshot phases, unaligned capture
// of in-flight data, acks and metrics), notifications and termination mails.
#include <chrono>

#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "stream_task.h"

namespace ckpt::engine::runtime {
namespace {

int64_t NowMs() { return OperatorContext::CurrentProcessingTimeMs(); }

int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

using Recording = UnalignedCapture::Channel::Recording;

// Sync phase of every operator of the chain: operators bring their state up to date, then the
// stores freeze it (no copy).
base::Status TakeSnapshots(std::vector<std::unique_ptr<OperatorDriver>>& drivers,
                           uint32_t subtask, const CheckpointOptions& options,
                           std::vector<OperatorSnapshot>* out) {
  out->reserve(drivers.size());
  for (auto& d : drivers) {
    CKPT_RETURN_IF_ERROR(d->op()->SnapshotState(options.checkpoint_id));
    std::vector<pb::SinkCommittable> committables =
        d->op()->SnapshotCommittables(options.checkpoint_id);
    // The keyed backend's own strategy (canonical, RocksDB full/incremental/native).
    CKPT_ASSIGN_OR_RETURN(OperatorSnapshot snap,
                          TakeOperatorSnapshot(options, d->ctx()->operator_id(), subtask,
                                               d->keyed(), d->operator_state(),
                                               std::move(committables)));
    out->push_back(std::move(snap));
  }
  return base::Status::OK();
}

// Adds the channel-state handles of `r` to `state` (input and/or output), with the shared file
// appended to the state's file table.
void AttachChannelState(const ChannelStateResult& r, bool input, bool output,
                        OperatorSubtaskState* state, pb::SubtaskMetrics* metrics) {
  if (!r.file) return;
  const bool any = (input && !r.input.empty()) || (output && !r.output.empty());
  if (!any) return;
  const uint32_t index = static_cast<uint32_t>(state->files.size());
  state->files.push_back(*r.file);
  uint64_t bytes = 0;
  if (input) {
    for (pb::InputChannelStateHandle h : r.input) {
      for (auto& s : *h.mutable_buffers()) s.set_file_index(index);
      bytes += h.size_bytes();
      *state->subtask.add_input_channel_state() = std::move(h);
    }
  }
  if (output) {
    for (pb::ResultSubpartitionStateHandle h : r.output) {
      for (auto& s : *h.mutable_buffers()) s.set_file_index(index);
      bytes += h.size_bytes();
      *state->subtask.add_output_channel_state() = std::move(h);
    }
  }
  metrics->set_persisted_data(metrics->persisted_data() + bytes);
  if (r.counts_file) {
    state->state_size_bytes += r.file->size_bytes();
    state->checkpointed_size_bytes += r.file->size_bytes();
  }
}

}  // namespace

void StreamTask::TriggerCheckpoint(std::shared_ptr<const CheckpointOptions> options) {
  inbox_->PostMail([this, options]() -> base::Status {
    if (options->is_synchronous()) {
      // Stop-with-savepoint: no record after the savepoint barrier. With drain, event time is
      // advanced to the end first so every timer fires into the savepoint (Flink --drain).
      if (options->post_action == pb::POST_ACTION_TERMINATE && !input_ended_) {
        CKPT_RETURN_IF_ERROR(drivers_.front()->ProcessWatermark(kMaxWatermark));
      }
      source_->Stop(options->post_action == pb::POST_ACTION_TERMINATE);
      source_active_ = false;
    }
    const int64_t now = NowMs();
    if (barriers_->IsUnaligned(*options, now)) {
      return StartUnalignedCheckpoint(options, std::nullopt, 0, now);
    }
    return PerformCheckpoint(options, 0, now, 0);
  });
}

void StreamTask::NotifyCheckpointComplete(int64_t checkpoint_id) {
  inbox_->PostMail([this, checkpoint_id]() -> base::Status {
    // Every group of this checkpoint has been written (the acks waited for it); older ones
    // were abandoned.
    if (env_->channel_state_files != nullptr) env_->channel_state_files->Forget(checkpoint_id);
    for (auto& d : drivers_) {
      if (d->keyed() != nullptr) d->keyed()->NotifyCheckpointComplete(checkpoint_id);
      CKPT_RETURN_IF_ERROR(d->op()->NotifyCheckpointComplete(checkpoint_id));
    }
    return base::Status::OK();
  });
}

void StreamTask::NotifyCheckpointAborted(int64_t checkpoint_id) {
  inbox_->PostMail([this, checkpoint_id]() -> base::Status {
    DropUnaligned(checkpoint_id);
    for (auto& d : drivers_) {
      if (d->keyed() != nullptr) d->keyed()->NotifyCheckpointAborted(checkpoint_id);
      d->op()->NotifyCheckpointAborted(checkpoint_id);
    }
    return base::Status::OK();
  });
}

void StreamTask::DropUnaligned(int64_t up_to_checkpoint) {
  if (unaligned_ != nullptr && unaligned_->options->checkpoint_id <= up_to_checkpoint) {
    unaligned_.reset();  // releases the captured buffers
    inbox_->StopCaptures();
  }
  if (env_->channel_state_files != nullptr) env_->channel_state_files->Forget(up_to_checkpoint);
}

void StreamTask::Terminate() {
  inbox_->PostMail([this]() -> base::Status {
    terminate_ = true;
    return base::Status::OK();
  });
}

void StreamTask::ResumeSource() {
  inbox_->PostMail([this]() -> base::Status {
    if (is_source_ && !input_ended_) source_active_ = true;
    return base::Status::OK();
  });
}

base::Status StreamTask::CheckAlignmentTimeouts() {
  if (alignment_timers_.empty() && (unaligned_ == nullptr || !unaligned_->awaiting_output)) {
    return base::Status::OK();
  }
  const int64_t now = NowMs();
  for (auto it = alignment_timers_.begin(); it != alignment_timers_.end();) {
    if (now < it->second) {
      ++it;
      continue;
    }
    const int64_t id = it->first;
    alignment_timers_.erase(it);
    const bool aligning = barriers_->pending() && barriers_->pending_id() == id;
    BarrierHandler::Decision d = barriers_->OnAlignmentTimer(id, now);
    // An announced checkpoint none of whose barriers was taken starts here.
    if (d.trigger && !aligning) processed_mark_ = ConsumedBytes();
    CKPT_RETURN_IF_ERROR(ApplyBarrierDecision(d, 0));
    it = alignment_timers_.begin();  // the decision may have dropped timers
  }
  if (unaligned_ == nullptr || !unaligned_->awaiting_output) return base::Status::OK();
  UnalignedCapture& u = *unaligned_;
  const int64_t id = u.options->checkpoint_id;
  const auto& writers = writer_output_.writers();
  if (now >= u.output_deadline_ms) {
    // FLINK-27251: the barrier overtakes what is still queued before it; that is persisted as
    // this checkpoint's output channel state.
    u.output.assign(writers.size(), {});
    bool moved = false;
    for (size_t w = 0; w < writers.size(); ++w) {
      u.output[w].resize(writers[w]->num_targets());
      for (uint32_t t = 0; t < writers[w]->num_targets(); ++t) {
        if (auto captured = writers[w]->subpartition(t)->PromoteBarrier(id)) {
          u.output[w][t] = std::move(*captured);
          moved = true;
        }
      }
    }
    u.unaligned = u.unaligned || moved;
    u.awaiting_output = false;
  } else {
    bool queued = false;
    for (size_t w = 0; w < writers.size() && !queued; ++w) {
      for (uint32_t t = 0; t < writers[w]->num_targets() && !queued; ++t) {
        queued = writers[w]->subpartition(t)->HoldsBarrier(id);
      }
    }
    if (!queued) u.awaiting_output = false;
  }
  MaybeFinishUnaligned();
  return base::Status::OK();
}

base::Status StreamTask::ApplyBarrierDecision(const BarrierHandler::Decision& d,
                                              uint32_t overtaken) {
  if (d.timer_at_ms && d.trigger == nullptr) {
    alignment_timers_.emplace(d.timer_checkpoint, *d.timer_at_ms);
  }
  // A snapshot taken or an alignment abandoned ends the timers of that checkpoint and older.
  const int64_t ended = std::max<int64_t>(d.trigger ? d.trigger->checkpoint_id : -1,
                                          d.aborted.value_or(-1));
  alignment_timers_.erase(alignment_timers_.begin(), alignment_timers_.upper_bound(ended));
  // The first barrier of a newer checkpoint abandons the pending alignment (unblock_all) and
  // blocks its own channel: that channel must stay blocked, or the task processes what follows
  // the barrier before the snapshot (and an unaligned switch persists it as in-flight data).
  inbox_->UpdateBlocked(d.unblock_all, d.block);
  if (d.aborted) {
    DropUnaligned(*d.aborted);
    if (env_->coordinator != nullptr) {
      env_->coordinator->DeclineCheckpoint(
          *d.aborted, base::Status::Cancelled(name_ + ": checkpoint " +
                                              std::to_string(*d.aborted) +
                                              " abandoned for a newer barrier"));
    }
  }
  if (d.trigger && d.unaligned) {
    CKPT_RETURN_IF_ERROR(StartUnalignedCheckpoint(d.trigger, d.barrier_channel, overtaken,
                                                  d.first_barrier_ms, d.received));
  } else if (d.trigger) {
    // Aligned: what the task processed from the first barrier to the snapshot (the channels
    // still waited for).
    return PerformCheckpoint(d.trigger, d.alignment_ms, d.first_barrier_ms,
                             ConsumedBytes() - processed_mark_);
  }
  // A later barrier of the pending unaligned checkpoint: the inbox captured the buffers ahead
  // of it on its channel (the ones it overtook included) when they arrived.
  if (unaligned_ != nullptr) {
    if (d.all_received) {
      unaligned_->alignment_ms = d.alignment_ms;
      unaligned_->processed_bytes = ConsumedBytes() - processed_mark_;
      unaligned_->all_received = true;
    }
    MaybeFinishUnaligned();
  }
  return base::Status::OK();
}

base::Status StreamTask::StartUnalignedCheckpoint(std::shared_ptr<const CheckpointOptions> options,
                                                  std::optional<uint32_t> channel,
                                                  uint32_t overtaken, int64_t first_barrier_ms,
                                                  const std::vector<bool>& received) {
  CheckpointCoordinator* coordinator = env_->coordinator;
  const int64_t id = options->checkpoint_id;
  const int64_t sync_start_us = SteadyMicros();
  if (unaligned_ != nullptr) DropUnaligned(unaligned_->options->checkpoint_id);
  auto u = std::make_unique<UnalignedCapture>();
  u->options = options;
  u->first_barrier_ms = first_barrier_ms;
  base::Status st = TakeSnapshots(drivers_, subtask_, *options, &u->snapshots);
  if (!st.ok()) {
    st = st.WithContext(name_ + ": snapshot of checkpoint " + std::to_string(id));
    if (coordinator != nullptr) coordinator->DeclineCheckpoint(id, st);
    return st;
  }
  // The barrier overtakes every queued output buffer; their bytes are captured (the buffers go
  // on downstream untouched).
  StreamEvent barrier;
  barrier.kind = StreamEvent::Kind::kBarrier;
  barrier.barrier = options;
  barrier.priority = true;
  u->output = writer_output_.BroadcastPriorityEvent(barrier);
  last_flush_ms_ = 0;
  // Inputs: what the task took but did not process yet, then each channel's buffers until its
  // barrier, copied now or as they reach the inbox — never waiting for the task to process
  // them (the triggering channel: the buffers the barrier jumped, queued right now).
  const uint32_t n = inbox_->num_channels();
  u->input.resize(n);
  if (coordinator == nullptr) return base::Status::OK();
  inbox_->StopCaptures();  // none left from an older checkpoint
  bool captured = true;
  for (uint32_t c = 0; c < n && captured; ++c) {
    UnalignedCapture::Channel& ch = u->input[c];
    ch.leftover = readers_[c]->UnconsumedBytes();
    if (channel_ended_[c]) {
      ch.recording = Recording::kDone;
    } else if (channel && *channel == c) {
      ch.recording = Recording::kDone;
      if (overtaken > 0) captured = inbox_->CaptureFront(c, overtaken, &ch.buffers);
    } else if (c < received.size() && received[c]) {
      // Delivered its (aligned) barrier before the switch: what follows is after the barrier.
      ch.recording = Recording::kDone;
    } else {
      ch.recording = Recording::kUntilBarrier;
      captured = inbox_->StartCapture(c, id);
    }
  }
  if (!captured) {
    // The task is being cancelled and its input queues were dropped: an ack now would persist
    // a checkpoint without the in-flight data the barrier overtook (records lost on restore).
    inbox_->StopCaptures();
    coordinator->DeclineCheckpoint(
        id, base::Status::Cancelled(name_ + ": cancelled while capturing the in-flight data of "
                                            "checkpoint " + std::to_string(id)));
    return base::Status::OK();
  }
  if (n == 0) u->all_received = true;
  u->sync_ms = (SteadyMicros() - sync_start_us) / 1000;
  unaligned_ = std::move(u);
  MaybeFinishUnaligned();
  return base::Status::OK();
}

void StreamTask::MaybeFinishUnaligned() {
  if (unaligned_ == nullptr || unaligned_->awaiting_output) return;
  bool done = true;
  for (uint32_t c = 0; c < unaligned_->input.size(); ++c) {
    UnalignedCapture::Channel& ch = unaligned_->input[c];
    if (ch.recording == Recording::kUntilBarrier && inbox_->TakeCapture(c, &ch.buffers)) {
      ch.recording = Recording::kDone;
    }
    done = done && ch.recording == Recording::kDone;
  }
  if (!done) return;
  if (!unaligned_->all_received) {
    // Every barrier is queued, not all taken yet: alignment and processed data up to now.
    unaligned_->alignment_ms = std::max<int64_t>(0, NowMs() - unaligned_->first_barrier_ms);
    unaligned_->processed_bytes = ConsumedBytes() - processed_mark_;
  }
  std::shared_ptr<UnalignedCapture> capture(unaligned_.release());
  CheckpointCoordinator* coordinator = env_->coordinator;
  ChannelStateFiles* files = env_->channel_state_files;
  if (coordinator == nullptr || files == nullptr) return;
  const CheckpointOptions& options = *capture->options;
  std::shared_ptr<ChannelStateFileGroup> group =
      files->GroupFor(env_->fs, options, drivers_.front()->ctx()->operator_id().ToHex(), subtask_,
                      parallelism_);
  // The contribution: input channels (gate = operator input, channel = channel index), then
  // output subpartitions (partition = output edge, subpartition = downstream subtask).
  std::vector<ChannelStateChannel> channels;
  for (uint32_t c = 0; c < capture->input.size(); ++c) {
    const UnalignedCapture::Channel& in = capture->input[c];
    ChannelStateChannel ch;
    ch.index_a = inbox_->channel_input(c);
    ch.index_b = c;
    if (!in.leftover.empty()) ch.buffers.push_back(in.leftover);
    for (const CapturedBuffer& b : in.buffers) {
      if (!b.bytes().empty()) ch.buffers.push_back(b.bytes());
    }
    channels.push_back(std::move(ch));
  }
  for (uint32_t w = 0; w < capture->output.size(); ++w) {
    for (uint32_t t = 0; t < capture->output[w].size(); ++t) {
      ChannelStateChannel ch;
      ch.output = true;
      ch.index_a = w;
      ch.index_b = t;
      for (const CapturedBuffer& b : capture->output[w][t]) {
        if (!b.bytes().empty()) ch.buffers.push_back(b.bytes());
      }
      channels.push_back(std::move(ch));
    }
  }
  base::Fs* fs = env_->fs;
  const std::string task_name = name_;
  const uint32_t subtask = subtask_;
  const int64_t start_delay =
      std::max<int64_t>(0, capture->first_barrier_ms - options.trigger_timestamp_ms);
  NoteCheckpoint(options.checkpoint_id, start_delay, capture->alignment_ms);
  env_->async->Submit([coordinator, fs, capture, group, task_name, subtask, start_delay,
                       channels = std::move(channels)]() mutable {
    const CheckpointOptions& opts = *capture->options;
    const int64_t id = opts.checkpoint_id;
    const int64_t async_start_us = SteadyMicros();
    auto states = std::make_shared<std::vector<OperatorSubtaskState>>();
    base::Status failed;
    for (OperatorSnapshot& snap : capture->snapshots) {
      base::Result<OperatorSubtaskState> written = WriteOperatorSnapshot(*fs, opts, snap);
      if (!written.ok()) {
        failed = written.status();
        break;
      }
      states->push_back(std::move(*written));
    }
    ChannelStateContribution c;
    c.subtask = subtask;
    c.channels = std::move(channels);
    c.keep_alive = capture;
    if (!failed.ok()) {
      coordinator->DeclineCheckpoint(
          id, failed.WithContext(task_name + ": writing checkpoint " + std::to_string(id)));
      c.channels.clear();
      c.done = [](base::Result<ChannelStateResult>) {};
      group->Contribute(std::move(c));
      return;
    }
    c.done = [coordinator, capture, states, task_name, start_delay,
              async_start_us](base::Result<ChannelStateResult> r) {
      const CheckpointOptions& o = *capture->options;
      if (!r.ok()) {
        coordinator->DeclineCheckpoint(
            o.checkpoint_id, r.status().WithContext(task_name + ": writing checkpoint " +
                                                    std::to_string(o.checkpoint_id)));
        return;
      }
      for (size_t i = 0; i < states->size(); ++i) {
        OperatorSubtaskState& s = (*states)[i];
        pb::SubtaskMetrics metrics;
        // Input channel state belongs to the chain's head, output state to its tail.
        AttachChannelState(*r, i == 0, i + 1 == states->size(), &s, &metrics);
        metrics.set_ack_timestamp(NowMs());
        metrics.set_end_to_end_duration(NowMs() - o.trigger_timestamp_ms);
        metrics.set_state_size(s.state_size_bytes);
        metrics.set_checkpointed_size(s.checkpointed_size_bytes);
        metrics.set_sync_duration(capture->sync_ms);
        metrics.set_async_duration((SteadyMicros() - async_start_us) / 1000);
        metrics.set_alignment_duration(capture->alignment_ms);
        metrics.set_processed_data(i == 0 ? capture->processed_bytes : 0);
        metrics.set_start_delay(start_delay);
        metrics.set_unaligned_checkpoint(capture->unaligned);
        coordinator->AcknowledgeCheckpoint(o.checkpoint_id, std::move(s), std::move(metrics));
      }
    };
    group->Contribute(std::move(c));
  });
}

base::Status StreamTask::PerformCheckpoint(std::shared_ptr<const CheckpointOptions> options,
                                           int64_t alignment_ms, int64_t first_barrier_ms,
                                           uint64_t processed_bytes) {
  CheckpointCoordinator* coordinator = env_->coordinator;
  const int64_t id = options->checkpoint_id;
  const int64_t sync_start_us = SteadyMicros();

  std::vector<OperatorSnapshot> snapshots;
  base::Status st = TakeSnapshots(drivers_, subtask_, *options, &snapshots);
  if (!st.ok()) {
    st = st.WithContext(name_ + ": snapshot of checkpoint " + std::to_string(id));
    if (coordinator != nullptr) coordinator->DeclineCheckpoint(id, st);
    return st;  // fails the task; the restart strategy takes over
  }
  // The barrier goes downstream right after the sync phase, behind all earlier records.
  StreamEvent barrier;
  barrier.kind = StreamEvent::Kind::kBarrier;
  barrier.barrier = options;
  writer_output_.BroadcastEvent(barrier);
  last_flush_ms_ = 0;
  const int64_t sync_ms = (SteadyMicros() - sync_start_us) / 1000;
  NoteCheckpoint(id, std::max<int64_t>(0, first_barrier_ms - options->trigger_timestamp_ms),
                 alignment_ms);
  if (coordinator == nullptr) return base::Status::OK();
  if (barriers_->mode() == BarrierHandler::Mode::kAlignedWithTimeout && !options->is_savepoint()) {
    // The barrier may still wait in an output queue when the timeout passes: then it overtakes
    // what is queued before it, which becomes channel state of this checkpoint (FLINK-27251).
    // Every subtask of the mode acks through the channel-state group (a sibling may have
    // switched and waits for all members of its group), without writers too.
    if (unaligned_ != nullptr) DropUnaligned(unaligned_->options->checkpoint_id);
    auto u = std::make_unique<UnalignedCapture>();
    u->options = options;
    u->snapshots = std::move(snapshots);
    u->sync_ms = sync_ms;
    u->alignment_ms = alignment_ms;
    u->processed_bytes = processed_bytes;
    u->all_received = true;
    u->first_barrier_ms = first_barrier_ms;
    u->unaligned = false;
    u->awaiting_output = true;
    u->output_deadline_ms = options->trigger_timestamp_ms + barriers_->alignment_timeout_ms();
    u->input.resize(inbox_->num_channels());  // all kDone: aligned inputs persist nothing
    unaligned_ = std::move(u);
    return CheckAlignmentTimeouts();
  }

  auto shared = std::make_shared<std::vector<OperatorSnapshot>>(std::move(snapshots));
  base::Fs* fs = env_->fs;
  const std::string task_name = name_;
  const int64_t start_delay = std::max<int64_t>(0, first_barrier_ms - options->trigger_timestamp_ms);
  env_->async->Submit([coordinator, fs, options, shared, task_name, sync_ms, alignment_ms,
                       start_delay, id, processed_bytes] {
    bool head = true;
    for (OperatorSnapshot& snap : *shared) {
      const int64_t async_start_us = SteadyMicros();
      base::Result<OperatorSubtaskState> written = WriteOperatorSnapshot(*fs, *options, snap);
      if (!written.ok()) {
        coordinator->DeclineCheckpoint(
            id, written.status().WithContext(task_name + ": writing checkpoint " +
                                             std::to_string(id)));
        return;
      }
      pb::SubtaskMetrics metrics;
      metrics.set_ack_timestamp(NowMs());
      metrics.set_end_to_end_duration(NowMs() - options->trigger_timestamp_ms);
      metrics.set_state_size(written->state_size_bytes);
      metrics.set_checkpointed_size(written->checkpointed_size_bytes);
      metrics.set_sync_duration(sync_ms);
      metrics.set_async_duration((SteadyMicros() - async_start_us) / 1000);
      metrics.set_alignment_duration(alignment_ms);
      // Input is processed by the chain's head.
      metrics.set_processed_data(head ? processed_bytes : 0);
      head = false;
      metrics.set_start_delay(start_delay);
      metrics.set_unaligned_checkpoint(false);
      coordinator->AcknowledgeCheckpoint(id, std::move(*written), std::move(metrics));
    }
  });
  return base::Status::OK();
}

}  // namespace ckpt::engine::runtime
