// ForwardingSource: a source operator that forwards every call to the built-in source it wraps;
// test sources override PollNext (and what else they change) to hold back or gate input.
#pragma once

#include <memory>

#include "ckpt/engine/operator.h"

namespace ckpt::itcase {

class ForwardingSource : public engine::SourceOperator {
 public:
  explicit ForwardingSource(std::unique_ptr<engine::Operator> inner)
      : inner_(std::move(inner)), source_(dynamic_cast<engine::SourceOperator*>(inner_.get())) {}
  base::Status InitializeState(engine::OperatorContext& ctx, bool restoring) override {
    if (source_ == nullptr) return base::Status::Internal("the wrapped operator is not a source");
    return inner_->InitializeState(ctx, restoring);
  }
  base::Status Open(engine::OperatorContext& ctx) override { return inner_->Open(ctx); }
  base::Result<engine::SourceStatus> PollNext() override { return source_->PollNext(); }
  int64_t IdleWaitMicros() const override { return source_->IdleWaitMicros(); }
  void Stop(bool drain) override { source_->Stop(drain); }
  base::Status SnapshotState(int64_t checkpoint_id) override {
    return inner_->SnapshotState(checkpoint_id);
  }
  base::Status NotifyCheckpointComplete(int64_t checkpoint_id) override {
    return inner_->NotifyCheckpointComplete(checkpoint_id);
  }
  void NotifyCheckpointAborted(int64_t checkpoint_id) override {
    inner_->NotifyCheckpointAborted(checkpoint_id);
  }
  base::Status Finish() override { return inner_->Finish(); }
  void Close() override { inner_->Close(); }

 protected:
  engine::SourceOperator& source() { return *source_; }
  const engine::SourceOperator& source() const { return *source_; }

 private:
  std::unique_ptr<engine::Operator> inner_;
  engine::SourceOperator* const source_;
};

}  // namespace ckpt::itcase
