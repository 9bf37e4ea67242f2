// OperatorRegistry: the catalog mapping an OperatorSpec.kind to a factory. The engine creates one
// operator instance per subtask through it, and one instance per operator when a job is checked
// before it runs, so a factory must validate params and return InvalidArgument naming the
// operator and field (OperatorParams does that). Register before running jobs; lookups are
// thread-safe afterwards (no concurrent Register).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_coordinator.h"
#include "ckpt/engine/operator_params.h"

namespace ckpt::engine {

using OperatorFactory =
    std::function<base::Result<std::unique_ptr<Operator>>(const OperatorParams& params)>;
using CoordinatorFactory = std::function<base::Result<std::unique_ptr<OperatorCoordinator>>(
    const OperatorParams& params, uint32_t parallelism)>;

struct OperatorKind {
  std::string kind;         // e.g. "keyed-sum"
  std::string description;  // one line, shown by `ckpt-engine kinds`
  OperatorFactory factory;
  // Optional; set for operators with job-level logic (e.g. split enumerators).
  CoordinatorFactory coordinator_factory;
};

class OperatorRegistry {
 public:
  // AlreadyExists if `kind.kind` is registered; InvalidArgument if it is empty or has no factory.
  base::Status Register(OperatorKind kind);

  // Null if `kind` is unknown.
  const OperatorKind* Find(std::string_view kind) const;

  // Creates an operator. InvalidArgument "operator '<id>': unknown kind '<kind>'" (listing the
  // known kinds) or the factory's error.
  base::Result<std::unique_ptr<Operator>> Create(std::string_view kind,
                                                 const OperatorParams& params) const;

  // Registered kinds, sorted.
  std::vector<std::string> Kinds() const;

  // A registry with RegisterBuiltinOperators applied (built once, immutable).
  static const OperatorRegistry& Builtin();

 private:
  std::map<std::string, OperatorKind, std::less<>> kinds_;
};

// Registers the built-in catalog (engine/src/operators/). Defined in builtin_operators.cpp.
void RegisterBuiltinOperators(OperatorRegistry& registry);

}  // namespace ckpt::engine
