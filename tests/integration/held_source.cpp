// HoldingSourcesRegistry: the built-in operators, with "sequence-source" holding at its end of
// input instead of finishing (see itcase_util.h).
#include <memory>

#include <gtest/gtest.h>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/testing/gtest_util.h"
#include "forwarding_source.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

// The wrapped source, idle once its input is exhausted (it still takes checkpoint triggers and
// stop requests: an idle source waits for mail); after Stop it ends as the source would.
class HeldEndSource final : public ForwardingSource {
 public:
  using ForwardingSource::ForwardingSource;
  base::Result<engine::SourceStatus> PollNext() override {
    if (exhausted_) {
      return stopping_ ? engine::SourceStatus::kEndOfInput
                       : engine::SourceStatus::kNothingAvailable;
    }
    base::Result<engine::SourceStatus> s = source().PollNext();
    if (s.ok() && *s == engine::SourceStatus::kEndOfInput && !stopping_) {
      exhausted_ = true;
      return engine::SourceStatus::kNothingAvailable;
    }
    return s;
  }
  int64_t IdleWaitMicros() const override {
    return exhausted_ ? 10000 : source().IdleWaitMicros();
  }
  void Stop(bool drain) override {
    stopping_ = true;
    source().Stop(drain);
  }

 private:
  bool exhausted_ = false;
  bool stopping_ = false;
};

std::unique_ptr<engine::OperatorRegistry> MakeHoldingSourcesRegistry() {
  auto registry = std::make_unique<engine::OperatorRegistry>();
  const engine::OperatorRegistry& builtin = engine::OperatorRegistry::Builtin();
  for (const std::string& name : builtin.Kinds()) {
    engine::OperatorKind kind = *builtin.Find(name);
    if (name == "sequence-source") {
      kind.factory = [](const engine::OperatorParams& params)
          -> base::Result<std::unique_ptr<engine::Operator>> {
        CKPT_ASSIGN_OR_RETURN(std::unique_ptr<engine::Operator> inner,
                              engine::OperatorRegistry::Builtin().Create("sequence-source",
                                                                         params));
        return std::unique_ptr<engine::Operator>(std::make_unique<HeldEndSource>(std::move(inner)));
      };
    }
    EXPECT_OK(registry->Register(std::move(kind)));
  }
  return registry;
}

}  // namespace

const engine::OperatorRegistry* HoldingSourcesRegistry() {
  static const std::unique_ptr<engine::OperatorRegistry> registry = MakeHoldingSourcesRegistry();
  return registry.get();
}

}  // namespace ckpt::itcase
