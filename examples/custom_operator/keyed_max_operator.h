// KeyedMaxOperator: an example of a custom operator with its own keyed state, written against
// the engine's public C++ API (docs/engine-api.md). For every record it keeps the largest value
// seen for the record's key in a ValueState named "max" and emits (key, max) whenever the
// maximum grows. Used by one subtask's thread only, like every operator.
#pragma once

#include <memory>

#include "ckpt/base/result.h"
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_params.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/engine/state/value_state.h"

namespace example {

class KeyedMaxOperator final : public ckpt::engine::Operator {
 public:
  // `emit_every_record`: emit (key, max) for every input instead of only when it grows.
  explicit KeyedMaxOperator(bool emit_every_record) : emit_every_record_(emit_every_record) {}

  bool RequiresKeyedInput() const override { return true; }
  ckpt::base::Status InitializeState(ckpt::engine::OperatorContext& ctx, bool restoring) override;
  ckpt::base::Status Open(ckpt::engine::OperatorContext& ctx) override;
  ckpt::base::Status ProcessElement(ckpt::engine::Record& record) override;

 private:
  const bool emit_every_record_;
  ckpt::engine::OperatorContext* ctx_ = nullptr;
  ckpt::engine::ValueState max_;
};

// The factory the registry calls once per subtask (and once to validate the spec).
ckpt::base::Result<std::unique_ptr<ckpt::engine::Operator>> CreateKeyedMax(
    const ckpt::engine::OperatorParams& params);

// Registers the kind "keyed-max" in `registry`.
ckpt::base::Status RegisterKeyedMax(ckpt::engine::OperatorRegistry& registry);

}  // namespace example
