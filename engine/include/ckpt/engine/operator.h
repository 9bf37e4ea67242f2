// The operator API, shaped like Flink's StreamOperator: a task calls InitializeState, Open, then
// ProcessElement/ProcessWatermark/OnTimer per input and SnapshotState/NotifyCheckpointComplete
// around checkpoints, and Finish/Close at the end. Sources implement SourceOperator::PollNext,
// which the task's mailbox loop calls between mails, so checkpoint triggers and notifications
// interleave with emission. An operator instance is used only by its subtask's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"
#include "ckpt/engine/record.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

class OperatorContext;

enum class TimeDomain { kEventTime, kProcessingTime };

// A timer firing for the current key (the runtime sets the key before OnTimer).
struct Timer {
  TimeDomain domain = TimeDomain::kEventTime;
  int64_t timestamp = 0;
  // Encoded namespace (e.g. a window); empty for the VOID namespace.
  std::string ns;
};

class Operator {
 public:
  virtual ~Operator() = default;

  // Inputs this operator consumes: 0 for sources, 1 (default) or 2 (two-input operators).
  virtual uint32_t NumInputs() const { return 1; }
  // True if the operator needs keyed state, i.e. its input must arrive over a HASH edge (or a
  // chain behind one). Checked when the job is built: InvalidArgument naming the operator.
  virtual bool RequiresKeyedInput() const { return false; }

  // Registers state with ctx.keyed_state()/operator_state() and, when `restoring`, reads it
  // back (the stores already hold the restored data). Called once, before Open, as Flink's
  // initializeState. Errors fail the task.
  virtual base::Status InitializeState(OperatorContext& ctx, bool restoring) {
    (void)ctx;
    (void)restoring;
    return base::Status::OK();
  }
  // Acquires resources (files, connections). `ctx` outlives the operator.
  virtual base::Status Open(OperatorContext& ctx) = 0;

  // One record of input 0 (ProcessElement) or input 1 (ProcessElement2). For keyed operators
  // the current key is set to record.key. Emit through ctx.output(). An error fails the task
  // and triggers the job's restart strategy.
  virtual base::Status ProcessElement(Record& record) = 0;
  virtual base::Status ProcessElement2(Record& record) {
    (void)record;
    return base::Status::Internal("operator has no second input");
  }

  // Event time advanced to `watermark` (minimum over all inputs). The runtime has already fired
  // event-time timers <= watermark, and forwards the watermark to the output after this returns
  // (as Flink's AbstractStreamOperator does). Default: nothing.
  virtual base::Status ProcessWatermark(int64_t watermark) {
    (void)watermark;
    return base::Status::OK();
  }

  // A registered timer fired; the current key is the timer's key.
  virtual base::Status OnTimer(const Timer& timer) {
    (void)timer;
    return base::Status::OK();
  }

  // Synchronous part of checkpoint `checkpoint_id`: bring everything the snapshot must hold into
  // state (e.g. a 2PC sink closes its in-progress file and records it as pending; a source
  // stores its position). Called on the task thread after the barrier aligned, before the
  // state stores are snapshotted. Must be quick; file writing happens asynchronously.
  virtual base::Status SnapshotState(int64_t checkpoint_id) {
    (void)checkpoint_id;
    return base::Status::OK();
  }
  // Two-phase-commit sinks: the pending files the snapshot of `checkpoint_id` must record
  // (SubtaskState.committables); called right after SnapshotState(checkpoint_id). On restore
  // they come back through OperatorContext::restored_committables(). Default: none.
  virtual std::vector<pb::SinkCommittable> SnapshotCommittables(int64_t checkpoint_id) {
    (void)checkpoint_id;
    return {};
  }
  // Checkpoint `checkpoint_id` completed globally (`_metadata` written): commit side effects up
  // to it (2PC sink renames pending files). Also called for savepoints that stop the job;
  // never for intermediate savepoints (Flink >= 1.15). Must be idempotent. When checkpointing
  // is off, called once with INT64_MAX after every task of the job finished its input.
  virtual base::Status NotifyCheckpointComplete(int64_t checkpoint_id) {
    (void)checkpoint_id;
    return base::Status::OK();
  }
  // Checkpoint `checkpoint_id` was aborted; default: nothing.
  virtual void NotifyCheckpointAborted(int64_t checkpoint_id) { (void)checkpoint_id; }

  // End of input (bounded sources finished, or a drain): flush buffered results. After Finish
  // no more records arrive; a final checkpoint may still be taken.
  virtual base::Status Finish() { return base::Status::OK(); }
  // Releases resources; called on success, failure and cancellation (never throws, best effort).
  virtual void Close() {}
};

// What a source's PollNext reports.
enum class SourceStatus {
  kMoreAvailable,     // call again soon
  kNothingAvailable,  // idle (e.g. rate limit); the task waits for mail up to IdleWaitMs()
  kEndOfInput,        // bounded source finished; the task finishes the chain
};

// A source: no inputs; the task's mailbox loop calls PollNext whenever no mail is pending.
class SourceOperator : public Operator {
 public:
  uint32_t NumInputs() const final { return 0; }
  base::Status ProcessElement(Record& record) final {
    (void)record;
    return base::Status::Internal("a source has no input");
  }

  // Emits a small batch of records (and possibly a watermark) through ctx.output() and says
  // whether more is available. Keep each call short (e.g. <= 1000 records) so checkpoint
  // barriers are not delayed. Errors fail the task.
  virtual base::Result<SourceStatus> PollNext() = 0;

  // How long the task may wait for mail after kNothingAvailable. Default: 1 ms.
  virtual int64_t IdleWaitMicros() const { return 1000; }

  // Stop-with-savepoint: the source will be asked for no more records after this call; with
  // `drain` it should also emit kMaxWatermark (the runtime does so if it does not).
  virtual void Stop(bool drain) { (void)drain; }
};

}  // namespace ckpt::engine
