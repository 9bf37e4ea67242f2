// The operator catalog: kind -> factory.
#include "ckpt/engine/operator_registry.h"

#include "ckpt/engine/operator_context.h"

#include <chrono>

namespace ckpt::engine {

int64_t OperatorContext::CurrentProcessingTimeMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

base::Status OperatorRegistry::Register(OperatorKind kind) {
  if (kind.kind.empty()) return base::Status::InvalidArgument("operator kind name is empty");
  if (!kind.factory) {
    return base::Status::InvalidArgument("operator kind '" + kind.kind + "' has no factory");
  }
  std::string name = kind.kind;
  auto [it, inserted] = kinds_.emplace(name, std::move(kind));
  (void)it;
  if (!inserted) {
    return base::Status::AlreadyExists("operator kind '" + name + "' is already registered");
  }
  return base::Status::OK();
}

const OperatorKind* OperatorRegistry::Find(std::string_view kind) const {
  auto it = kinds_.find(kind);
  return it == kinds_.end() ? nullptr : &it->second;
}

base::Result<std::unique_ptr<Operator>> OperatorRegistry::Create(
    std::string_view kind, const OperatorParams& params) const {
  const OperatorKind* k = Find(kind);
  if (k == nullptr) {
    std::string known;
    for (const auto& [name, unused] : kinds_) {
      (void)unused;
      known += known.empty() ? name : ", " + name;
    }
    return base::Status::InvalidArgument(params.operator_label() + ": unknown kind '" +
                                         std::string(kind) + "' (known kinds: " + known + ")");
  }
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<Operator> op, k->factory(params));
  if (op == nullptr) {
    return base::Status::Internal(params.operator_label() + ": factory returned null");
  }
  return op;
}

std::vector<std::string> OperatorRegistry::Kinds() const {
  std::vector<std::string> out;
  for (const auto& [name, unused] : kinds_) {
    (void)unused;
    out.push_back(name);
  }
  return out;
}

const OperatorRegistry& OperatorRegistry::Builtin() {
  static const OperatorRegistry* registry = [] {
    auto* r = new OperatorRegistry();
    RegisterBuiltinOperators(*r);
    return r;
  }();
  return *registry;
}

}  // namespace ckpt::engine
