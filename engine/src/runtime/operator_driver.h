// OperatorDriver: one operator of a task's chain with its context and state stores, and the
// Output implementations that connect drivers: ChainingOutput (direct call into the next
// operator, no serialization) and WriterOutput (serializes once, then every RecordWriter of the
// chain's outputs routes it). Task thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "ckpt/engine/state/keyed_state_backend.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/timer_service.h"
#include "record_writer.h"

namespace ckpt::engine::runtime {

class OperatorDriver {
 public:
  OperatorDriver(std::unique_ptr<Operator> op, std::unique_ptr<KeyedStateBackend> keyed,
                 std::unique_ptr<OperatorStateStore> operator_state);

  // Creates the context (after the output is known).
  void SetContext(OperatorContextInit init);

  // One record of `input`; keyed operators get their current key set first.
  base::Status ProcessRecord(Record& record, uint32_t input);
  // Fires due event-time timers, lets the operator see the watermark, forwards it.
  base::Status ProcessWatermark(int64_t watermark);
  // Fires processing-time timers due at `now_ms`.
  base::Status FireProcessingTimers(int64_t now_ms);
  // Earliest processing-time timer, if keyed and any.
  std::optional<int64_t> NextProcessingTimerMs() const;

  Operator* op() { return op_.get(); }
  OperatorContext* ctx() { return ctx_.get(); }
  KeyedStateBackend* keyed() { return keyed_.get(); }
  OperatorStateStore* operator_state() { return operator_state_.get(); }
  int64_t current_watermark() const { return watermark_; }

 private:
  base::Status FireTimer(const Timer& timer);

  std::unique_ptr<Operator> op_;
  std::unique_ptr<KeyedStateBackend> keyed_;
  std::unique_ptr<OperatorStateStore> operator_state_;
  std::unique_ptr<OperatorContext> ctx_;
  std::string key_scratch_;
  int64_t watermark_ = kNoTimestamp;
};

class ChainingOutput final : public Output {
 public:
  explicit ChainingOutput(OperatorDriver* next) : next_(next) {}
  base::Status Collect(Record& record) override { return next_->ProcessRecord(record, 0); }
  base::Status EmitWatermark(int64_t watermark) override {
    return next_->ProcessWatermark(watermark);
  }

 private:
  OperatorDriver* next_;
};

class WriterOutput final : public Output {
 public:
  void AddWriter(std::unique_ptr<RecordWriter> writer) { writers_.push_back(std::move(writer)); }
  base::Status Collect(Record& record) override;
  base::Status EmitWatermark(int64_t watermark) override;
  void Flush();
  void FlushIdle();  // RecordWriter::FlushIdle
  bool HasIdlePartialBuffer() const;  // RecordWriter::HasIdlePartialBuffer
  void BroadcastEvent(const StreamEvent& event);
  // Per writer, per target: the buffers the event overtook (unaligned barrier).
  std::vector<std::vector<std::vector<CapturedBuffer>>> BroadcastPriorityEvent(
      const StreamEvent& event);
  void Clear();
  bool empty() const { return writers_.empty(); }
  const std::vector<std::unique_ptr<RecordWriter>>& writers() const { return writers_; }
  uint64_t records_out() const { return records_out_; }
  // Frame bytes written by every writer (numBytesOut).
  uint64_t bytes_out() const;
  // The last watermark sent to the writers (kNoTimestamp: none yet).
  int64_t output_watermark() const { return output_watermark_; }

 private:
  std::vector<std::unique_ptr<RecordWriter>> writers_;
  std::string scratch_;
  uint64_t records_out_ = 0;
  int64_t output_watermark_ = kNoTimestamp;
};

}  // namespace ckpt::engine::runtime
