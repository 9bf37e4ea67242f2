#include "operator_driver.h"

#include "stream_element_codec.h"

namespace ckpt::engine::runtime {

OperatorDriver::OperatorDriver(std::unique_ptr<Operator> op,
                               std::unique_ptr<KeyedStateBackend> keyed,
                               std::unique_ptr<OperatorStateStore> operator_state)
    : op_(std::move(op)), keyed_(std::move(keyed)), operator_state_(std::move(operator_state)) {}

void OperatorDriver::SetContext(OperatorContextInit init) {
  init.keyed_state = keyed_.get();
  init.operator_state = operator_state_.get();
  init.timer_service = keyed_ ? keyed_->timer_service() : nullptr;
  ctx_ = std::make_unique<OperatorContext>(std::move(init));
}

base::Status OperatorDriver::ProcessRecord(Record& record, uint32_t input) {
  if (keyed_) {
    key_scratch_.clear();
    base::Status st = EncodeRecordKey(record.key, &key_scratch_);
    if (!st.ok()) return st.WithContext(ctx_->name() + ": record key");
    uint32_t group = KeyGroupOfEncodedKey(key_scratch_, keyed_->max_parallelism());
    keyed_->SetCurrentKey(record.key, key_scratch_, group);
    ctx_->SetCurrentKeyForRuntime(record.key, key_scratch_, group);
  }
  return input == 0 ? op_->ProcessElement(record) : op_->ProcessElement2(record);
}

base::Status OperatorDriver::FireTimer(const Timer& timer) {
  ctx_->SetCurrentKeyForRuntime(keyed_->current_key(), keyed_->current_encoded_key(),
                                keyed_->current_key_group());
  return op_->OnTimer(timer);
}

base::Status OperatorDriver::ProcessWatermark(int64_t watermark) {
  if (watermark <= watermark_) return base::Status::OK();
  watermark_ = watermark;
  ctx_->SetCurrentWatermarkForRuntime(watermark);
  if (keyed_) {
    CKPT_RETURN_IF_ERROR(keyed_->timer_service()->AdvanceWatermark(
        watermark, [this](const Timer& t) { return FireTimer(t); }));
  }
  CKPT_RETURN_IF_ERROR(op_->ProcessWatermark(watermark));
  return ctx_->output().EmitWatermark(watermark);
}

base::Status OperatorDriver::FireProcessingTimers(int64_t now_ms) {
  if (!keyed_) return base::Status::OK();
  return keyed_->timer_service()->FireProcessingTimers(
      now_ms, [this](const Timer& t) { return FireTimer(t); });
}

std::optional<int64_t> OperatorDriver::NextProcessingTimerMs() const {
  if (!keyed_) return std::nullopt;
  return keyed_->timer_service()->NextProcessingTimerMs();
}

base::Status WriterOutput::Collect(Record& record) {
  ++records_out_;
  if (writers_.empty()) return base::Status::OK();
  scratch_.clear();
  AppendRecordElement(record, &scratch_);
  for (auto& w : writers_) CKPT_RETURN_IF_ERROR(w->Write(record, scratch_));
  return base::Status::OK();
}

uint64_t WriterOutput::bytes_out() const {
  uint64_t bytes = 0;
  for (const auto& w : writers_) bytes += w->bytes_written();
  return bytes;
}

base::Status WriterOutput::EmitWatermark(int64_t watermark) {
  output_watermark_ = watermark;
  if (writers_.empty()) return base::Status::OK();
  scratch_.clear();
  AppendWatermarkElement(watermark, &scratch_);
  for (auto& w : writers_) CKPT_RETURN_IF_ERROR(w->Broadcast(scratch_));
  return base::Status::OK();
}

void WriterOutput::Flush() {
  for (auto& w : writers_) w->Flush();
}

void WriterOutput::FlushIdle() {
  for (auto& w : writers_) w->FlushIdle();
}

bool WriterOutput::HasIdlePartialBuffer() const {
  for (const auto& w : writers_) {
    if (w->HasIdlePartialBuffer()) return true;
  }
  return false;
}

void WriterOutput::BroadcastEvent(const StreamEvent& event) {
  for (auto& w : writers_) w->BroadcastEvent(event);
}

std::vector<std::vector<std::vector<CapturedBuffer>>> WriterOutput::BroadcastPriorityEvent(
    const StreamEvent& event) {
  std::vector<std::vector<std::vector<CapturedBuffer>>> out;
  for (auto& w : writers_) out.push_back(w->BroadcastPriorityEvent(event));
  return out;
}

void WriterOutput::Clear() {
  for (auto& w : writers_) w->Clear();
}

}  // namespace ckpt::engine::runtime
