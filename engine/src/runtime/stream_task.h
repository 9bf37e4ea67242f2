// StreamTask: one subtask of one operator chain, running on its own thread. Its mailbox loop
// runs mails (checkpoint triggers, notifications, termination) before data, and between mails
// either polls the source (source tasks) or consumes its input channels one element at a time:
// records go through the chain by direct calls; watermarks advance per-channel minimums.
// The task never blocks in the middle of a record: before taking an input buffer, before each
// element and before polling a source it waits on availability (a free output buffer and no
// overdraft lent, FLINK-14396/FLIP-227), running mails and priority events while it waits.
// Barriers go through the BarrierHandler (aligned, unaligned, at-least-once) and trigger the
// snapshot: sync phase on this thread, async phase (file writing) on the AsyncExecutor, then
// the ack to the coordinator. An unaligned snapshot puts the barrier ahead of every output
// subpartition's buffers and captures them, then persists each input channel's buffers up to
// that channel's barrier, and acks once they are written as channel state.
// Public methods other than Start/Join post mails and are thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_coordinator.h"
#include "async_executor.h"
#include "barrier_handler.h"
#include "buffer_debloater.h"
#include "check_cadence.h"
#include "checkpoint/channel_state_writer.h"
#include "ckpt/engine/network_options.h"
#include "frame_reader.h"
#include "network_buffer.h"
#include "operator_driver.h"
#include "task_inbox.h"
#include "task_metrics.h"

namespace ckpt::engine::runtime {

// What all tasks of one attempt share. Owned by the attempt; outlives its tasks.
struct TaskEnvironment {
  std::string job_id_hex;
  uint32_t attempt = 0;
  pb::CheckpointingMode mode = pb::ALIGNED_EXACTLY_ONCE;
  bool checkpointing_enabled = false;
  base::Fs* fs = nullptr;
  CheckpointCoordinator* coordinator = nullptr;
  AsyncExecutor* async = nullptr;
  std::shared_ptr<const RestorePlan> restore;  // null when starting empty
  const StateBackendConfig* state_backend = nullptr;  // null: heap
  // `retryable` false: restoring the task's state failed in a way no restart can fix (the
  // snapshot's state does not fit the job: its format, kinds or types).
  std::function<void(uint32_t task, const base::Status& error, bool retryable)> on_failure;
  std::function<void(uint32_t task)> on_end_of_data;
  std::function<void(uint32_t task)> on_finished;
  NetworkOptions network;
  // Shared channel-state files of unaligned checkpoints (owned by the attempt).
  ChannelStateFiles* channel_state_files = nullptr;
  // The attempt's job graph (restore: where channel state goes when parallelism changed).
  pb::JobGraph graph;
  // Where each task registers its metrics slot; null: task metrics off.
  TaskMetricsGroup* metrics = nullptr;
};

// One operator of a chain before the task sets it up.
struct ChainedOperator {
  pb::OperatorInfo info;
  OperatorParams params;
  std::unique_ptr<Operator> op;
  bool keyed = false;
  OperatorCoordinator* coordinator = nullptr;
};

// An unaligned checkpoint of one task between its sync phase and the end of input recording.
struct UnalignedCapture {
  std::shared_ptr<const CheckpointOptions> options;
  std::vector<OperatorSnapshot> snapshots;
  int64_t sync_ms = 0;
  int64_t first_barrier_ms = 0;
  int64_t alignment_ms = 0;
  // False for an aligned-with-timeout checkpoint that never switched (metrics).
  bool unaligned = true;
  // Aligned with timeout, output side: the aligned barrier went out at the tail of the output
  // queues; until it left all of them (or `output_deadline_ms` passed, when it is moved ahead
  // and the buffers it overtakes are captured) the ack waits.
  bool awaiting_output = false;
  int64_t output_deadline_ms = 0;
  // Per writer, per target: the buffers the barrier overtook.
  std::vector<std::vector<std::vector<CapturedBuffer>>> output;
  // Aligned: bytes the task processed between the first barrier and the snapshot; unaligned:
  // between the first and the last barrier (Flink's processedData).
  uint64_t processed_bytes = 0;
  // The task saw every channel's barrier (alignment_ms and processed_bytes are final).
  bool all_received = false;
  struct Channel {
    // kUntilBarrier: the inbox captures the channel's buffers until its barrier is queued.
    enum class Recording { kDone, kUntilBarrier };
    Recording recording = Recording::kDone;
    // Bytes the task had taken but not processed (a partial frame, the rest of a buffer).
    std::string leftover;
    std::vector<CapturedBuffer> buffers;
  };
  std::vector<Channel> input;
};

// Calls the inbox's Wake while the task lives (a pool can outlive its task: captured buffers
// keep it alive until their channel state is written).
class InboxWaker {
 public:
  explicit InboxWaker(TaskInbox* inbox) : inbox_(inbox) {}
  void Wake() {
    std::lock_guard<std::mutex> lock(mu_);
    if (inbox_ != nullptr) inbox_->Wake();
  }
  void Detach() {
    std::lock_guard<std::mutex> lock(mu_);
    inbox_ = nullptr;
  }

 private:
  std::mutex mu_;
  TaskInbox* inbox_;
};

class StreamTask {
 public:
  StreamTask(TaskEnvironment* env, uint32_t task_index, uint32_t subtask, uint32_t parallelism,
             std::vector<ChainedOperator> chain, std::vector<uint32_t> channel_inputs,
             size_t num_output_channels);
  ~StreamTask();

  // Wiring (before Start): the task's inbox receives from upstream writers; AddWriter adds an
  // output edge of the chain's last operator.
  TaskInbox* inbox() { return inbox_.get(); }
  BufferPool* pool() { return pool_.get(); }
  uint32_t task_index() const { return task_index_; }
  void AddWriter(std::unique_ptr<RecordWriter> writer);

  void Start();
  void Join();
  // Stops the task: wakes it and fails its waits with Cancelled.
  void Cancel();
  // After Join: returns every buffer the task holds (its readers hold upstream buffers, its
  // writers its own) while all pools of the attempt still exist.
  void ReleaseBuffers();

  bool is_source() const { return is_source_; }
  const std::string& name() const { return name_; }

  // Mails.
  void TriggerCheckpoint(std::shared_ptr<const CheckpointOptions> options);
  void NotifyCheckpointComplete(int64_t checkpoint_id);
  void NotifyCheckpointAborted(int64_t checkpoint_id);
  // The job is done with this task (after the final checkpoint or the stop savepoint): sources
  // end their partitions, every task exits once its inputs ended.
  void Terminate();
  // A stop-with-savepoint failed: sources continue.
  void ResumeSource();

 private:
  base::Status Run();
  base::Status Setup();
  // Passes `st` through; notes it as permanent when it is a restore error no retry can fix.
  base::Status NoteRestoreError(base::Status st);
  base::Status SourceLoop();
  base::Status InputLoop();
  base::Status HandleEvent(uint32_t channel, StreamEvent& event);
  base::Status HandleBuffer(uint32_t channel, NetworkBuffer* buffer);
  base::Status ProcessOneElement();
  base::Status AdvanceChannelWatermark(uint32_t channel, int64_t watermark);
  base::Status ApplyBarrierDecision(const BarrierHandler::Decision& d, uint32_t overtaken);
  base::Status PerformCheckpoint(std::shared_ptr<const CheckpointOptions> options,
                                 int64_t alignment_ms, int64_t first_barrier_ms,
                                 uint64_t processed_bytes);
  // Bytes of input the task has processed so far (all channels).
  uint64_t ConsumedBytes() const;
  // Unaligned: sync phase (barrier overtakes the outputs, buffers captured, operator snapshot)
  // and the start of input recording; `channel` delivered the barrier with `overtaken` buffers
  // queued behind it (none for a source's trigger).
  // `received` (may be empty): channels that had delivered the barrier already (the switch of
  // an aligned-with-timeout alignment): nothing of theirs is persisted.
  base::Status StartUnalignedCheckpoint(std::shared_ptr<const CheckpointOptions> options,
                                        std::optional<uint32_t> channel, uint32_t overtaken,
                                        int64_t first_barrier_ms,
                                        const std::vector<bool>& received = {});
  // Aligned with timeout: fires a due alignment timer, and moves an aligned barrier still in an
  // output queue at its deadline ahead (or notices it left). Runs every loop iteration.
  base::Status CheckAlignmentTimeouts();
  // Unaligned: every channel's in-flight data is captured: submit the async phase.
  void MaybeFinishUnaligned();
  void DropUnaligned(int64_t up_to_checkpoint);
  base::Status RestoreChannelState();
  bool OutputAvailable() const;
  // No free output buffer, and a partly filled one whose consumer has nothing queued: the task
  // sends it before it waits (the consumer may need it to finish a record).
  bool BlockedWithIdleBuffer() const;
  // Now + `max_wait_us`, or earlier when a pending alignment timer is due sooner.
  std::chrono::steady_clock::time_point PollDeadline(int64_t max_wait_us) const;
  // Publishes the task's counts into its metrics slot (no-op with metrics off).
  void PublishMetrics();
  // Publishes currentInputWatermark and the per-input ones (metrics on).
  void PublishInputWatermarks();
  // Polls the inbox; the time it blocks counts as back-pressured (waiting for an output buffer)
  // or idle (waiting for input).
  TaskInbox::Polled PollMetered(std::chrono::steady_clock::time_point deadline,
                                const TaskInbox::PollFilter& filter, bool backpressured);
  // The task's checkpoint metrics (task thread, at the snapshot).
  void NoteCheckpoint(int64_t checkpoint_id, int64_t start_delay_ms, int64_t alignment_ms);
  base::Status EndInput();
  base::Status FireProcessingTimers();
  base::Status MaybeFlush(bool force);
  // Between elements, at the cadence's stride: buffer timeout, processing-time timers,
  // debloating (the checks that read the clock).
  base::Status PeriodicChecks();
  // Buffer debloating: every period, the bytes consumed since the last one resize the buffers
  // the upstream subpartitions send.
  void MaybeDebloat();
  void CloseAll();

  TaskEnvironment* env_;
  const uint32_t task_index_;
  const uint32_t subtask_;
  const uint32_t parallelism_;
  std::string name_;
  std::vector<ChainedOperator> chain_;
  std::vector<std::unique_ptr<OperatorDriver>> drivers_;
  std::vector<std::unique_ptr<ChainingOutput>> chaining_outputs_;
  WriterOutput writer_output_;
  std::unique_ptr<TaskInbox> inbox_;
  std::shared_ptr<BufferPool> pool_;
  std::unique_ptr<BarrierHandler> barriers_;
  // Per input channel: frames spanning buffers; at most one holds a buffer (current_channel_).
  std::vector<std::unique_ptr<FrameReader>> readers_;
  int64_t current_channel_ = -1;
  std::unique_ptr<UnalignedCapture> unaligned_;
  // Aligned with timeout: checkpoint id -> processing time of its alignment timer (the pending
  // alignment's, and a newer announced checkpoint's).
  std::map<int64_t, int64_t> alignment_timers_;
  std::shared_ptr<InboxWaker> waker_;
  bool is_source_ = false;
  SourceOperator* source_ = nullptr;

  std::vector<int64_t> channel_watermarks_;
  std::vector<bool> channel_ended_;
  uint32_t channels_ended_ = 0;
  uint32_t channels_end_of_data_ = 0;
  std::vector<bool> channel_end_of_data_;
  int64_t combined_watermark_ = kNoTimestamp;

  bool source_active_ = true;   // source: polling (not stopped, not ended)
  bool input_ended_ = false;    // EndInput ran
  bool terminate_ = false;      // Terminate mail received
  int64_t last_flush_ms_ = 0;
  std::unique_ptr<BufferDebloater> debloater_;  // null: debloating off or no inputs
  int64_t debloat_last_ms_ = 0;
  // Restore: upstream data waits until every replayed buffer has been processed.
  bool holding_upstream_ = false;
  // Setup failed restoring state that does not fit the job (NoteRestoreError).
  bool permanent_failure_ = false;
  uint64_t debloat_last_bytes_ = 0;
  // ConsumedBytes() when the pending checkpoint's first barrier arrived (processed_data).
  uint64_t processed_mark_ = 0;
  Record scratch_record_;
  CheckCadence cadence_;
  // Task metrics (null: off): plain counts of the task thread, published by PublishMetrics.
  TaskMetrics* metrics_ = nullptr;
  uint64_t records_in_ = 0;
  int64_t idle_ns_ = 0;
  int64_t backpressured_ns_ = 0;

  std::atomic<bool> cancelled_{false};
  std::thread thread_;
};

}  // namespace ckpt::engine::runtime
