// StreamTask: setup, the mailbox loops and end of input. Checkpointing is in
// stream_task_checkpoint.cpp.
#include "stream_task.h"

#include <chrono>

#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/format/key_groups.h"
#include "stream_element_codec.h"

namespace ckpt::engine::runtime {
namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Credits per input channel (Flink's exclusive buffers per channel: 2).
constexpr uint32_t kCreditsPerChannel = 2;
// Output buffers are flushed at least this often (Flink's buffer timeout; lower for latency).
constexpr int64_t kFlushIntervalMs = 5;

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
  inbox_ = std::make_unique<TaskInbox>(std::move(channel_inputs), kCreditsPerChannel);
  aligner_ = std::make_unique<BarrierAligner>(n, env_->mode != pb::AT_LEAST_ONCE);
  // One buffer being filled per output channel plus as many again in flight (bounded pool).
  pool_ = std::make_unique<BufferPool>(num_output_channels * 2 + 4, BufferPool::kDefaultBufferBytes);
}

StreamTask::~StreamTask() {
  Cancel();
  Join();
}

void StreamTask::AddWriter(std::unique_ptr<RecordWriter> writer) {
  writer_output_.AddWriter(std::move(writer));
}

void StreamTask::Start() {
  thread_ = std::thread([this] {
    base::Status st = Run();
    CloseAll();
    if (!st.ok()) {
      if (!cancelled_.load()) env_->on_failure(task_index_, st.WithContext(name_));
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
        if (keyed) CKPT_RETURN_IF_ERROR(plan.RestoreKeyedState(id, keyed.get()));
        CKPT_RETURN_IF_ERROR(plan.RestoreOperatorState(id, subtask_, parallelism_, store.get()));
        init.restored_committables = plan.Committables(id, subtask_, parallelism_);
      }
    }
    drivers_.push_back(
        std::make_unique<OperatorDriver>(std::move(c.op), std::move(keyed), std::move(store)));
    drivers_.back()->SetContext(std::move(init));
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
  // `restoring` is job-level (Flink's isRestored()), except for a source new to the snapshot (a
  // changed uid restored with -n): it starts from its beginning, as a new source does, instead
  // of taking "restored, none of my state there" for "every split consumed".
  const bool restoring = env_->restore != nullptr;
  for (size_t i = 0; i < drivers_.size(); ++i) {
    Operator* op = drivers_[i]->op();
    const bool new_source = op->NumInputs() == 0 && !restored_state[i];
    CKPT_RETURN_IF_ERROR(op->InitializeState(*drivers_[i]->ctx(), restoring && !new_source));
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
  return is_source_ ? SourceLoop() : InputLoop();
}

base::Status StreamTask::MaybeFlush(bool force) {
  int64_t now = SteadyMs();
  if (!force && now - last_flush_ms_ < kFlushIntervalMs) return base::Status::OK();
  last_flush_ms_ = now;
  return writer_output_.Flush();
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
  CKPT_RETURN_IF_ERROR(writer_output_.BroadcastEvent(e));
  env_->on_end_of_data(task_index_);
  return base::Status::OK();
}

base::Status StreamTask::SourceLoop() {
  TaskInbox::Mail mail;
  while (true) {
    while (inbox_->TryTakeMail(&mail)) CKPT_RETURN_IF_ERROR(mail());
    if (cancelled_.load()) return base::Status::Cancelled("task cancelled");
    if (terminate_) break;
    CKPT_RETURN_IF_ERROR(FireProcessingTimers());
    if (source_active_) {
      CKPT_ASSIGN_OR_RETURN(SourceStatus status, source_->PollNext());
      if (status == SourceStatus::kMoreAvailable) {
        CKPT_RETURN_IF_ERROR(MaybeFlush(false));
        continue;
      }
      if (status == SourceStatus::kEndOfInput) {
        source_active_ = false;
        CKPT_RETURN_IF_ERROR(EndInput());
      }
      CKPT_RETURN_IF_ERROR(MaybeFlush(true));
      auto deadline = std::chrono::steady_clock::now() +
                      std::chrono::microseconds(source_->IdleWaitMicros());
      TaskInbox::Polled p = inbox_->Poll(deadline);
      if (p.what == TaskInbox::Polled::What::kMail) CKPT_RETURN_IF_ERROR(p.mail());
      continue;
    }
    CKPT_RETURN_IF_ERROR(MaybeFlush(true));
    TaskInbox::Polled p =
        inbox_->Poll(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
    if (p.what == TaskInbox::Polled::What::kMail) CKPT_RETURN_IF_ERROR(p.mail());
  }
  StreamEvent e;
  e.kind = StreamEvent::Kind::kEndOfPartition;
  return writer_output_.BroadcastEvent(e);
}

base::Status StreamTask::InputLoop() {
  const uint32_t n = inbox_->num_channels();
  while (!(terminate_ && channels_ended_ == n)) {
    if (cancelled_.load()) return base::Status::Cancelled("task cancelled");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kFlushIntervalMs);
    if (std::optional<int64_t> t = drivers_.front()->NextProcessingTimerMs()) {
      int64_t wait = *t - OperatorContext::CurrentProcessingTimeMs();
      if (wait < kFlushIntervalMs) {
        deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait < 0 ? 0 : wait);
      }
    }
    TaskInbox::Polled p = inbox_->Poll(deadline);
    switch (p.what) {
      case TaskInbox::Polled::What::kCancelled:
        return base::Status::Cancelled("task cancelled");
      case TaskInbox::Polled::What::kMail:
        CKPT_RETURN_IF_ERROR(p.mail());
        break;
      case TaskInbox::Polled::What::kTimeout:
        CKPT_RETURN_IF_ERROR(MaybeFlush(true));
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
  return writer_output_.BroadcastEvent(e);
}

base::Status StreamTask::HandleBuffer(uint32_t channel, NetworkBuffer* buffer) {
  std::string_view in(buffer->data.get(), buffer->size);
  const uint32_t input = inbox_->channel_input(channel);
  base::Status st;
  while (!in.empty() && st.ok()) {
    int64_t watermark = 0;
    base::Result<uint8_t> tag = DecodeElement(&in, &scratch_record_, &watermark);
    if (!tag.ok()) {
      st = tag.status();
      break;
    }
    if (*tag == kRecordTag) {
      st = drivers_.front()->ProcessRecord(scratch_record_, input);
    } else {
      st = AdvanceChannelWatermark(channel, watermark);
    }
  }
  buffer->pool->Recycle(buffer);
  return st;
}

base::Status StreamTask::AdvanceChannelWatermark(uint32_t channel, int64_t watermark) {
  if (watermark > channel_watermarks_[channel]) channel_watermarks_[channel] = watermark;
  int64_t min = kMaxWatermark;
  for (uint32_t c = 0; c < channel_watermarks_.size(); ++c) {
    if (channel_ended_[c]) continue;
    if (channel_watermarks_[c] < min) min = channel_watermarks_[c];
  }
  if (min > combined_watermark_ && min != kNoTimestamp) {
    combined_watermark_ = min;
    return drivers_.front()->ProcessWatermark(min);
  }
  return base::Status::OK();
}

base::Status StreamTask::HandleEvent(uint32_t channel, StreamEvent& event) {
  switch (event.kind) {
    case StreamEvent::Kind::kBuffer:
      return HandleBuffer(channel, event.buffer);
    case StreamEvent::Kind::kBarrier:
      return ApplyAlignment(aligner_->OnBarrier(channel, event.barrier,
                                                OperatorContext::CurrentProcessingTimeMs()));
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
        CKPT_RETURN_IF_ERROR(ApplyAlignment(
            aligner_->OnEndOfPartition(channel, OperatorContext::CurrentProcessingTimeMs())));
      }
      return base::Status::OK();
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine::runtime
