// slow: passes records through after a fixed delay per record (or per `every` records), so a
// job has a bottleneck and backpressure reaches the sources — for checkpoint-under-
// backpressure demos and tests of alignment time.
#include <chrono>
#include <thread>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/output.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

class SlowOperator final : public Operator {
 public:
  SlowOperator(int64_t delay_us, int64_t every) : delay_us_(delay_us), every_(every) {}

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    if (++count_ % every_ == 0 && delay_us_ > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us_));
    }
    return ctx_->output().Collect(record);
  }

 private:
  const int64_t delay_us_;
  const int64_t every_;
  int64_t count_ = 0;
  OperatorContext* ctx_ = nullptr;
};

base::Result<std::unique_ptr<Operator>> CreateSlow(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"delay_us", "every"}));
  CKPT_ASSIGN_OR_RETURN(int64_t delay_us, GetIntInRange(params, "delay_us", 1000, 0, 60000000));
  CKPT_ASSIGN_OR_RETURN(int64_t every, GetIntInRange(params, "every", 1, 1, 1 << 30));
  return std::unique_ptr<Operator>(std::make_unique<SlowOperator>(delay_us, every));
}

}  // namespace

base::Status RegisterSlowOperator(OperatorRegistry& registry) {
  return registry.Register(
      {"slow", "pass-through sleeping delay_us every `every` records (a bottleneck)", CreateSlow,
       nullptr});
}

}  // namespace ckpt::engine::operators
