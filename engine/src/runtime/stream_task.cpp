// StreamTask: setup, the mailbox loops and end of input. Checkpointing is in
// stream_task_checkpoint.cpp.
#include "stream_task.h"

#include <algorithm>
#include <chrono>

#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "stream_element_codec.h"

namespace ckpt::engine::runtime {
namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A task waiting for input, output or mail wakes at least this often (alignment timers,
// debloating, the buffer timeout).
constexpr int64_t kPollIntervalMs = 5;

}  // namespace

StreamTask::StreamTask(TaskEnvironment* env, uint32_t task_index, uint32_t subtask,
                       uint32_t parallelism, std::vector<ChainedOperator> chain,
                       std::vector<uint32_t> channel_inputs, size_t num_output_channels)
    : env_(env),
      task_index_(task_index),
      subtask_(subtask),
      parallelism_(parallelism),
      chain_(std::move(chain)) {
  for (size_t i = 0; i < chain_.size(); ++i) name_ += (i == 0 ? "" : " -> ") + chain_[i].info.name();
  name_ += " (" + std::to_string(subtask + 1) + "/" + std::to_string(parallelism) + ")";
  is_source_ = chain_.front().op->NumInputs() == 0;
  if (is_source_) source_ = static_cast<SourceOperator*>(chain_.front().op.get());
  const uint32_t n = static_cast<uint32_t>(channel_inputs.size());
  channel_watermarks_.assign(n, kNoTimestamp);
  channel_ended_.assign(n, false);
  channel_end_of_data_.assign(n, false);
  const NetworkOptions& net = env_->network;
  inbox_ = std::make_unique<TaskInbox>(std::move(channel_inputs), net.buffers_per_channel);
  // Restored channel state goes into the channels before anything new from upstream.
  if (env_->restore != nullptr && n > 0) inbox_->HoldUpstream(true);
  barriers_ = std::make_unique<BarrierHandler>(n, BarrierHandler::ModeOf(env_->mode),
                                               net.aligned_checkpoint_timeout_ms);
  for (uint32_t c = 0; c < n; ++c) readers_.push_back(std::make_unique<FrameReader>());
  if (net.debloat_enabled && n > 0) {
    // In flight per channel: the consumer's credits plus what the producer's subpartition may
    // queue (its pool holds credits + 1 per channel).
    debloater_ = std::make_unique<BufferDebloater>(net, n * (2 * inbox_->credits_per_channel() + 1));
  }
  // Per output channel: the buffer being filled plus its consumer's credits in flight, and
  // one more so that availability means "a record can start" (bounded pool).
  const uint32_t per_channel = (net.buffers_per_channel == 0 ? 1 : net.buffers_per_channel) + 1;
  pool_ = std::make_shared<BufferPool>(num_output_channels * per_channel + 1,
                                       net.buffer_bytes == 0 ? BufferPool::kDefaultBufferBytes
                                                             : net.buffer_bytes,
                                       net.max_overdraft_buffers_per_gate);
  waker_ = std::make_shared<InboxWaker>(inbox_.get());
  pool_->SetAvailabilityListener([w = waker_] { w->Wake(); });
  if (env_->metrics != nullptr) {
    std::string vertex_id;
    if (base::Result<format::OperatorId> id =
            format::OperatorId::FromBytes(chain_.front().info.operator_id());
        id.ok()) {
      vertex_id = id->ToHex();
    }
    std::string vertex_name;
    for (size_t i = 0; i < chain_.size(); ++i) {
      vertex_name += (i == 0 ? "" : " -> ") + chain_[i].info.name();
    }
    metrics_ = env_->metrics->Add(std::move(vertex_id), std::move(vertex_name), subtask,
                                  static_cast<uint32_t>(chain_.front().op->NumInputs()));
  }
}

StreamTask::~StreamTask() {
  Cancel();
  Join();
  waker_->Detach();
  pool_->SetAvailabilityListener(nullptr);
  ReleaseBuffers();
}

void StreamTask::ReleaseBuffers() {
  unaligned_.reset();
  for (auto& r : readers_) r->Reset();
  current_channel_ = -1;
  inbox_->Cancel();
  writer_output_.Clear();
}

std::chrono::steady_clock::time_point StreamTask::PollDeadline(int64_t max_wait_us) const {
  // Alignment timers (aligned with timeout) fire on time, not up to one wait late.
  int64_t wait_us = max_wait_us;
  const int64_t now = OperatorContext::CurrentProcessingTimeMs();
  for (const auto& [id, at] : alignment_timers_) wait_us = std::min(wait_us, (at - now) * 1000);
  if (unaligned_ != nullptr && unaligned_->awaiting_output) {
    wait_us = std::min(wait_us, (unaligned_->output_deadline_ms - now) * 1000);
  }
  return std::chrono::steady_clock::now() + std::chrono::microseconds(std::max<int64_t>(0, wait_us));
}

bool StreamTask::OutputAvailable() const {
  return writer_output_.empty() || pool_->IsAvailable();
}

bool StreamTask::BlockedWithIdleBuffer() const {
  return !OutputAvailable() && writer_output_.HasIdlePartialBuffer();
}

void StreamTask::AddWriter(std::unique_ptr<RecordWriter> writer) {
  // A consumer that took the last queued buffer wakes a task waiting for output: it sends its
  // partly filled buffer then (BlockedWithIdleBuffer).
  writer->SetDrainedListener([w = waker_] { w->Wake(); });
  if (metrics_ != nullptr) writer->SetBlockedCounter(&backpressured_ns_);
  writer_output_.AddWriter(std::move(writer));
}

void StreamTask::Start() {
  thread_ = std::thread([this] {
    base::Status st = Run();
    if (metrics_ != nullptr) {
      PublishMetrics();
      metrics_->hot.end_ns.store(TaskMetricsGroup::NowNs(), std::memory_order_relaxed);
    }
    CloseAll();
    if (!st.ok()) {
      if (!cancelled_.load()) {
        env_->on_failure(task_index_, st.WithContext(name_), !permanent_failure_);
      }
    } else {
      env_->on_finished(task_index_);
    }
  });
}

void StreamTask::Join() {
  if (thread_.joinable()) thread_.join();
}

void StreamTask::Cancel() {
  cancelled_.store(true);
  inbox_->Cancel();
  pool_->Cancel();
}

void StreamTask::CloseAll() {
  for (auto it = drivers_.rbegin(); it != drivers_.rend(); ++it) (*it)->op()->Close();
}

base::Status StreamTask::NoteRestoreError(base::Status st) {
  // The snapshot's state does not fit this job (a backend that cannot read its format, a state
  // declared with another kind or type): the same restore fails the same way on every attempt.
  // I/O errors, corruption and failures an operator raises on purpose stay retryable.
  if (st.code() == base::StatusCode::kInvalidArgument ||
      st.code() == base::StatusCode::kFailedPrecondition ||
      st.code() == base::StatusCode::kUnimplemented) {
    permanent_failure_ = true;
  }
  return st;
}

base::Status StreamTask::Setup() {
  const size_t n = chain_.size();
  std::vector<bool> restored_state(n, false);
  for (size_t i = 0; i < n; ++i) {
    ChainedOperator& c = chain_[i];
    CKPT_ASSIGN_OR_RETURN(format::OperatorId id, format::OperatorId::FromBytes(c.info.operator_id()));
    std::string owner = c.info.name() + " (" + std::to_string(subtask_ + 1) + "/" +
                        std::to_string(parallelism_) + ")";
    std::unique_ptr<KeyedStateBackend> keyed;
    if (c.keyed) {
      CKPT_ASSIGN_OR_RETURN(
          keyed, CreateKeyedStateBackend(
                     env_->state_backend != nullptr ? *env_->state_backend : StateBackendConfig{},
                     c.info.max_parallelism(),
                     format::RangeForSubtask(c.info.max_parallelism(), parallelism_, subtask_),
                     owner, id.ToHex(), subtask_));
    }
    auto store = std::make_unique<OperatorStateStore>(owner);
    OperatorContextInit init;
    init.job_id_hex = env_->job_id_hex;
    init.name = c.info.name();
    init.uid = c.info.uid();
    init.kind = c.info.kind();
    init.operator_id = id;
    init.subtask_index = subtask_;
    init.parallelism = parallelism_;
    init.max_parallelism = c.info.max_parallelism();
    init.attempt_number = env_->attempt;
    init.checkpointing_mode = env_->mode;
    init.checkpointing_enabled = env_->checkpointing_enabled;
    init.params = std::move(c.params);
    init.coordinator = c.coordinator;
    if (env_->restore) {
      const RestorePlan& plan = *env_->restore;
      init.restored_checkpoint_id = plan.metadata().checkpoint_id();
      if (plan.HasState(id)) {
        restored_state[drivers_.size()] = true;
        if (keyed) CKPT_RETURN_IF_ERROR(NoteRestoreError(plan.RestoreKeyedState(id, keyed.get())));
        CKPT_RETURN_IF_ERROR(NoteRestoreError(
            plan.RestoreOperatorState(id, subtask_, parallelism_, store.get())));
        init.restored_committables = plan.Committables(id, subtask_, parallelism_);
      }
    }
    drivers_.push_back(
        std::make_unique<OperatorDriver>(std::move(c.op), std::move(keyed), std::move(store)));
    drivers_.back()->SetContext(std::move(init));
  }
  if (is_source_) {
    // Between two records of a batch: stop when no output buffer is free or a mail (a
    // checkpoint trigger) waits, instead of blocking mid-batch where no mail runs.
    drivers_.front()->ctx()->SetYieldForRuntime(
        [this] { return !OutputAvailable() || inbox_->HasMail(); });
  }
  // Outputs: each operator feeds the next of the chain; the last one feeds the writers.
  for (size_t i = 0; i < n; ++i) {
    Output* out = &writer_output_;
    if (i + 1 < n) {
      chaining_outputs_.push_back(std::make_unique<ChainingOutput>(drivers_[i + 1].get()));
      out = chaining_outputs_.back().get();
    }
    drivers_[i]->ctx()->SetOutputForRuntime(out);
  }
  // In-flight data of an unaligned checkpoint goes back into the channels before anything new.
  if (env_->restore) CKPT_RETURN_IF_ERROR(NoteRestoreError(RestoreChannelState()));
  // `restoring` is job-level (Flink's isRestored()), except for a source new to the snapshot (a
  // changed uid restored with -n): it starts from its beginning, as a new source does, instead
  // of taking "restored, none of my state there" for "every split consumed".
  const bool restoring = env_->restore != nullptr;
  for (size_t i = 0; i < drivers_.size(); ++i) {
    Operator* op = drivers_[i]->op();
    const bool new_source = op->NumInputs() == 0 && !restored_state[i];
    base::Status st = op->InitializeState(*drivers_[i]->ctx(), restoring && !new_source);
    CKPT_RETURN_IF_ERROR(restoring && !new_source ? NoteRestoreError(std::move(st)) : st);
  }
  // Open from the tail so downstream operators are ready before upstream ones emit (Flink).
  for (auto it = drivers_.rbegin(); it != drivers_.rend(); ++it) {
    CKPT_RETURN_IF_ERROR((*it)->op()->Open(*(*it)->ctx()));
  }
  return base::Status::OK();
}

base::Status StreamTask::Run() {
  CKPT_RETURN_IF_ERROR(Setup());
  last_flush_ms_ = SteadyMs();
  if (metrics_ != nullptr) {
    metrics_->hot.start_ns.store(TaskMetricsGroup::NowNs(), std::memory_order_relaxed);
  }
  return is_source_ ? SourceLoop() : InputLoop();
}

base::Status StreamTask::MaybeFlush(bool force) {
  const int64_t timeout = env_->network.buffer_timeout_ms;
  int64_t now = SteadyMs();
  if (!force && (timeout < 0 || now - last_flush_ms_ < timeout)) return base::Status::OK();
  last_flush_ms_ = now;
  writer_output_.FlushIdle();
  return base::Status::OK();
}

void StreamTask::PublishMetrics() {
  if (metrics_ == nullptr) return;
  constexpr auto kRelaxed = std::memory_order_relaxed;
  TaskMetrics::Hot& h = metrics_->hot;
  h.records_in.store(records_in_, kRelaxed);
  h.records_out.store(writer_output_.records_out(), kRelaxed);
  h.bytes_in.store(ConsumedBytes(), kRelaxed);
  h.bytes_out.store(writer_output_.bytes_out(), kRelaxed);
  h.idle_ns.store(idle_ns_, kRelaxed);
  h.backpressured_ns.store(backpressured_ns_, kRelaxed);
  // A chain ending in a sink writes no watermark: its last operator's is the output one. A task
  // whose setup failed (a restore that could not read its state) may have no operator yet.
  if (!writer_output_.empty()) {
    metrics_->cold.output_watermark.store(writer_output_.output_watermark(), kRelaxed);
  } else if (!drivers_.empty()) {
    metrics_->cold.output_watermark.store(drivers_.back()->current_watermark(), kRelaxed);
  }
}

TaskInbox::Polled StreamTask::PollMetered(std::chrono::steady_clock::time_point deadline,
                                          const TaskInbox::PollFilter& filter,
                                          bool backpressured) {
  if (metrics_ == nullptr) return inbox_->Poll(deadline, filter);
  PublishMetrics();
  return inbox_->Poll(deadline, filter, backpressured ? &backpressured_ns_ : &idle_ns_);
}

void StreamTask::NoteCheckpoint(int64_t checkpoint_id, int64_t start_delay_ms,
                                int64_t alignment_ms) {
  if (metrics_ == nullptr) return;
  constexpr auto kRelaxed = std::memory_order_relaxed;
  metrics_->cold.checkpoint_start_delay_ns.store(start_delay_ms * 1'000'000, kRelaxed);
  metrics_->cold.checkpoint_alignment_ns.store(alignment_ms * 1'000'000, kRelaxed);
  metrics_->cold.checkpoint_id.store(checkpoint_id, kRelaxed);
  PublishMetrics();
}

base::Status StreamTask::PeriodicChecks() {
  cadence_.Checked(CheckCadence::NowMicros());
  PublishMetrics();
  MaybeDebloat();
  CKPT_RETURN_IF_ERROR(MaybeFlush(false));
  return FireProcessingTimers();
}

void StreamTask::MaybeDebloat() {
  if (debloater_ == nullptr) return;
  const int64_t now = SteadyMs();
  if (debloat_last_ms_ == 0) {
    debloat_last_ms_ = now;
    return;
  }
  if (now - debloat_last_ms_ < env_->network.debloat_period_ms) return;
  const uint64_t bytes = ConsumedBytes();
  if (std::optional<size_t> size =
          debloater_->Recalculate(bytes - debloat_last_bytes_, now - debloat_last_ms_)) {
    inbox_->AnnounceBufferSize(*size);
  }
  debloat_last_bytes_ = bytes;
  debloat_last_ms_ = now;
}

base::Status StreamTask::FireProcessingTimers() {
  std::optional<int64_t> next = drivers_.front()->NextProcessingTimerMs();
  if (!next) return base::Status::OK();
  int64_t now = OperatorContext::CurrentProcessingTimeMs();
  if (*next > now) return base::Status::OK();
  return drivers_.front()->FireProcessingTimers(now);
}

base::Status StreamTask::EndInput() {
  if (input_ended_) return base::Status::OK();
  input_ended_ = true;
  // Bounded input ends event time (Flink emits MAX_WATERMARK at the end of a bounded source).
  if (is_source_) CKPT_RETURN_IF_ERROR(drivers_.front()->ProcessWatermark(kMaxWatermark));
  for (auto& d : drivers_) CKPT_RETURN_IF_ERROR(d->op()->Finish());
  StreamEvent e;
  e.kind = StreamEvent::Kind::kEndOfData;
  writer_output_.BroadcastEvent(e);
  env_->on_end_of_data(task_index_);
  return base::Status::OK();
}

base::Status StreamTask::SourceLoop() {
  TaskInbox::Mail mail;
  TaskInbox::PollFilter wait_output;
  wait_output.normal = false;
  wait_output.available = [this] { return OutputAvailable() || BlockedWithIdleBuffer(); };
  while (true) {
    while (inbox_->TryTakeMail(&mail)) CKPT_RETURN_IF_ERROR(mail());
    if (cancelled_.load()) return base::Status::Cancelled("task cancelled");
    if (terminate_) break;
    CKPT_RETURN_IF_ERROR(CheckAlignmentTimeouts());
    CKPT_RETURN_IF_ERROR(FireProcessingTimers());
    if (source_active_) {
      if (!OutputAvailable()) {
        // Backpressured: emit nothing until a buffer is free (as Flink's non-blocking output,
        // FLINK-14396), but keep running mails: a checkpoint trigger is served at once. A consumer
        // with nothing queued gets the partly filled buffer now, or as soon as its queue drains
        // (the wait ends then): it may hold the rest of a record the consumer has begun, and
        // nothing more goes into it until a buffer is free.
        CKPT_RETURN_IF_ERROR(MaybeFlush(true));
        TaskInbox::Polled p =
            PollMetered(PollDeadline(kPollIntervalMs * 1000), wait_output, /*backpressured=*/true);
        if (p.what == TaskInbox::Polled::What::kMail) CKPT_RETURN_IF_ERROR(p.mail());
        continue;
      }
      CKPT_ASSIGN_OR_RETURN(SourceStatus status, source_->PollNext());
      if (status == SourceStatus::kMoreAvailable) {
        CKPT_RETURN_IF_ERROR(MaybeFlush(false));
        PublishMetrics();
        continue;
      }
      if (status == SourceStatus::kEndOfInput) {
        source_active_ = false;
        CKPT_RETURN_IF_ERROR(EndInput());
      }
      CKPT_RETURN_IF_ERROR(MaybeFlush(true));
      TaskInbox::Polled p = PollMetered(PollDeadline(source_->IdleWaitMicros()),
                                        TaskInbox::PollFilter(), /*backpressured=*/false);
      if (p.what == TaskInbox::Polled::What::kMail) CKPT_RETURN_IF_ERROR(p.mail());
      continue;
    }
    CKPT_RETURN_IF_ERROR(MaybeFlush(true));
    TaskInbox::Polled p =
        PollMetered(PollDeadline(10 * 1000), TaskInbox::PollFilter(), /*backpressured=*/false);
    if (p.what == TaskInbox::Polled::What::kMail) CKPT_RETURN_IF_ERROR(p.mail());
  }
  StreamEvent e;
  e.kind = StreamEvent::Kind::kEndOfPartition;
  writer_output_.BroadcastEvent(e);
  return base::Status::OK();
}

base::Status StreamTask::InputLoop() {
  const uint32_t n = inbox_->num_channels();
  // Between elements: mails and priority events only, without waiting.
  TaskInbox::PollFilter between;
  between.normal = false;
  // Mid-buffer but no free output buffer: wait for one, serving mails and priority events.
  TaskInbox::PollFilter wait_output;
  wait_output.normal = false;
  wait_output.available = [this] { return OutputAvailable() || BlockedWithIdleBuffer(); };
  // No current buffer: any event, buffers only when a record could be written.
  TaskInbox::PollFilter idle;
  idle.buffers_allowed = [this] { return OutputAvailable(); };
  idle.available = [this] { return BlockedWithIdleBuffer(); };
  while (!(terminate_ && channels_ended_ == n)) {
    if (cancelled_.load()) return base::Status::Cancelled("task cancelled");
    CKPT_RETURN_IF_ERROR(CheckAlignmentTimeouts());
    // A pending unaligned checkpoint completes its input side as soon as every channel's
    // barrier reached the inbox, even while the task is still working through the buffers the
    // barriers overtook.
    if (unaligned_ != nullptr) MaybeFinishUnaligned();
    if (holding_upstream_ && current_channel_ < 0 && inbox_->restored_pending() == 0) {
      // Every replayed buffer is processed: new input may follow.
      holding_upstream_ = false;
      inbox_->HoldUpstream(false);
    }
    const bool mid_buffer = current_channel_ >= 0;
    TaskInbox::Polled p;
    if (mid_buffer && OutputAvailable()) {
      // Between two elements only a mail or a priority event may come first: without either
      // (one relaxed load) the next element goes on at once, no lock taken, and the clock is
      // read at the cadence's stride (check_cadence.h), not per element.
      if (!inbox_->HasUrgent()) {
        CKPT_RETURN_IF_ERROR(ProcessOneElement());
        if (cadence_.Tick()) CKPT_RETURN_IF_ERROR(PeriodicChecks());
        continue;
      }
      p = inbox_->Poll(std::chrono::steady_clock::time_point{}, between);
      if (p.what == TaskInbox::Polled::What::kTimeout) {
        CKPT_RETURN_IF_ERROR(ProcessOneElement());
        if (cadence_.Tick()) CKPT_RETURN_IF_ERROR(PeriodicChecks());
        continue;
      }
    } else {
      MaybeDebloat();
      // No free output buffer: as the backpressured source above, send the partly filled one.
      if (!OutputAvailable()) CKPT_RETURN_IF_ERROR(MaybeFlush(true));
      int64_t wait_us = kPollIntervalMs * 1000;
      if (std::optional<int64_t> t = drivers_.front()->NextProcessingTimerMs()) {
        wait_us = std::min(wait_us, (*t - OperatorContext::CurrentProcessingTimeMs()) * 1000);
      }
      // Waiting mid-buffer, or with no free output buffer, is waiting for output.
      const bool backpressured = mid_buffer || !OutputAvailable();
      p = PollMetered(PollDeadline(wait_us), mid_buffer ? wait_output : idle, backpressured);
    }
    switch (p.what) {
      case TaskInbox::Polled::What::kCancelled:
        return base::Status::Cancelled("task cancelled");
      case TaskInbox::Polled::What::kMail:
        CKPT_RETURN_IF_ERROR(p.mail());
        break;
      case TaskInbox::Polled::What::kTimeout:
        CKPT_RETURN_IF_ERROR(MaybeFlush(true));
        break;
      case TaskInbox::Polled::What::kAvailable:
        break;
      case TaskInbox::Polled::What::kEvent:
        CKPT_RETURN_IF_ERROR(HandleEvent(p.channel, p.event));
        CKPT_RETURN_IF_ERROR(MaybeFlush(false));
        break;
    }
    CKPT_RETURN_IF_ERROR(FireProcessingTimers());
  }
  StreamEvent e;
  e.kind = StreamEvent::Kind::kEndOfPartition;
  writer_output_.BroadcastEvent(e);
  return base::Status::OK();
}

base::Status StreamTask::HandleBuffer(uint32_t channel, NetworkBuffer* buffer) {
  // In-flight data of a pending unaligned checkpoint was captured by the inbox when it arrived;
  // it is processed as usual.
  readers_[channel]->SetBuffer(buffer);
  current_channel_ = channel;
  return base::Status::OK();
}

uint64_t StreamTask::ConsumedBytes() const {
  uint64_t bytes = 0;
  for (const auto& r : readers_) bytes += r->consumed_bytes();
  return bytes;
}

base::Status StreamTask::ProcessOneElement() {
  const uint32_t channel = static_cast<uint32_t>(current_channel_);
  FrameReader& reader = *readers_[channel];
  std::string_view element;
  if (!reader.Next(&element)) {
    current_channel_ = -1;
    return base::Status::OK();
  }
  if (!reader.has_buffer()) current_channel_ = -1;
  int64_t watermark = 0;
  const size_t frame_bytes = element.size();
  base::Result<uint8_t> tag = DecodeElement(&element, &scratch_record_, &watermark);
  if (!tag.ok() || !element.empty()) {
    // Damaged in-flight data: say where the frame came from, so that the capture or replay
    // that cut it can be found.
    const std::string what = tag.ok() ? "has " + std::to_string(element.size()) +
                                            " bytes after its element"
                                      : "does not decode (" + tag.status().message() + ")";
    return base::Status::Internal(
        "input channel " + std::to_string(channel) + ": frame of " +
        std::to_string(frame_bytes) + " bytes " + what + "; " + reader.DescribeLastFrame() +
        "; " + (env_->restore != nullptr
                    ? "restored from checkpoint " +
                          std::to_string(env_->restore->metadata().checkpoint_id())
                    : std::string("not restored")) +
        (barriers_->pending() ? "; checkpoint " + std::to_string(barriers_->pending_id()) +
                                    " pending"
                              : std::string()));
  }
  if (*tag == kRecordTag) {
    ++records_in_;
    return drivers_.front()->ProcessRecord(scratch_record_, inbox_->channel_input(channel));
  }
  return AdvanceChannelWatermark(channel, watermark);
}

base::Status StreamTask::AdvanceChannelWatermark(uint32_t channel, int64_t watermark) {
  if (watermark > channel_watermarks_[channel]) channel_watermarks_[channel] = watermark;
  int64_t min = kMaxWatermark;
  for (uint32_t c = 0; c < channel_watermarks_.size(); ++c) {
    if (channel_ended_[c]) continue;
    if (channel_watermarks_[c] < min) min = channel_watermarks_[c];
  }
  const bool advanced = min > combined_watermark_ && min != kNoTimestamp;
  if (advanced) combined_watermark_ = min;
  if (metrics_ != nullptr) PublishInputWatermarks();
  return advanced ? drivers_.front()->ProcessWatermark(min) : base::Status::OK();
}

void StreamTask::PublishInputWatermarks() {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  metrics_->cold.input_watermark.store(combined_watermark_, kRelaxed);
  if (metrics_->num_inputs < 2) {
    metrics_->cold.input_watermarks[0].store(combined_watermark_, kRelaxed);
    return;
  }
  // Two-input operators: each input's own minimum over its channels (currentInput<N>Watermark).
  for (uint32_t input = 0; input < kMaxMeteredInputs; ++input) {
    int64_t min = kMaxWatermark;
    bool any = false;
    for (uint32_t c = 0; c < channel_watermarks_.size(); ++c) {
      if (channel_ended_[c] || inbox_->channel_input(c) != input) continue;
      any = true;
      min = std::min(min, channel_watermarks_[c]);
    }
    if (any) metrics_->cold.input_watermarks[input].store(min, kRelaxed);
  }
}

base::Status StreamTask::HandleEvent(uint32_t channel, StreamEvent& event) {
  switch (event.kind) {
    case StreamEvent::Kind::kBuffer:
      return HandleBuffer(channel, event.buffer);
    case StreamEvent::Kind::kBarrier:
      if (!barriers_->pending() || barriers_->pending_id() < event.barrier->checkpoint_id) {
        processed_mark_ = ConsumedBytes();  // possibly the first barrier of a checkpoint
      }
      return ApplyBarrierDecision(
          barriers_->OnBarrier(channel, event.barrier, OperatorContext::CurrentProcessingTimeMs(),
                               event.priority),
          event.overtaken_buffers);
    case StreamEvent::Kind::kAnnouncement: {
      BarrierHandler::Decision d = barriers_->OnAnnouncement(
          channel, event.barrier, OperatorContext::CurrentProcessingTimeMs());
      if (d.trigger) processed_mark_ = ConsumedBytes();  // no barrier of it was taken yet
      return ApplyBarrierDecision(d, 0);
    }
    case StreamEvent::Kind::kEndOfData:
      if (!channel_end_of_data_[channel]) {
        channel_end_of_data_[channel] = true;
        if (++channels_end_of_data_ == inbox_->num_channels()) return EndInput();
      }
      return base::Status::OK();
    case StreamEvent::Kind::kEndOfPartition:
      if (!channel_ended_[channel]) {
        channel_ended_[channel] = true;
        ++channels_ended_;
        CKPT_RETURN_IF_ERROR(ApplyBarrierDecision(
            barriers_->OnEndOfPartition(channel, OperatorContext::CurrentProcessingTimeMs()), 0));
        if (unaligned_ != nullptr) MaybeFinishUnaligned();
      }
      return base::Status::OK();
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine::runtime
