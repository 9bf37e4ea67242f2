// StreamTask: one subtask of one operator chain, running on its own thread. Its mailbox loop
// runs mails (checkpoint triggers, notifications, termination) before data, and between mails
// either polls the source (source tasks) or consumes buffers and events from its input channels:
// records go through the chain by direct calls; watermarks advance per-channel minimums;
// barriers are aligned (or tracked, at-least-once) and trigger the snapshot: sync phase on this
// thread, async phase (file writing) on the AsyncExecutor, then the ack to the coordinator.
// Public methods other than Start/Join post mails and are thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/checkpoint/checkpoint_coordinator.h"
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_coordinator.h"
#include "async_executor.h"
#include "barrier_aligner.h"
#include "network_buffer.h"
#include "operator_driver.h"
#include "task_inbox.h"

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
  std::function<void(uint32_t task, const base::Status& error)> on_failure;
  std::function<void(uint32_t task)> on_end_of_data;
  std::function<void(uint32_t task)> on_finished;
};

// One operator of a chain before the task sets it up.
struct ChainedOperator {
  pb::OperatorInfo info;
  OperatorParams params;
  std::unique_ptr<Operator> op;
  bool keyed = false;
  OperatorCoordinator* coordinator = nullptr;
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
  void AddWriter(std::unique_ptr<RecordWriter> writer);

  void Start();
  void Join();
  // Stops the task: wakes it and fails its waits with Cancelled.
  void Cancel();

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
  base::Status SourceLoop();
  base::Status InputLoop();
  base::Status HandleEvent(uint32_t channel, StreamEvent& event);
  base::Status HandleBuffer(uint32_t channel, NetworkBuffer* buffer);
  base::Status AdvanceChannelWatermark(uint32_t channel, int64_t watermark);
  base::Status ApplyAlignment(const BarrierAligner::Decision& d);
  base::Status PerformCheckpoint(std::shared_ptr<const CheckpointOptions> options,
                                 int64_t alignment_ms, int64_t first_barrier_ms);
  base::Status EndInput();
  base::Status FireProcessingTimers();
  base::Status MaybeFlush(bool force);
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
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<BarrierAligner> aligner_;
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
  Record scratch_record_;

  std::atomic<bool> cancelled_{false};
  std::thread thread_;
};

}  // namespace ckpt::engine::runtime
