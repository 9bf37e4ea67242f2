// StateDescriptor builders and the compatibility check used when a restored state is adopted.
#include "ckpt/engine/state/state_descriptors.h"

#include <utility>

#include "ckpt/format/value_codec.h"

namespace ckpt::engine {

namespace {

pb::StateDescriptor Make(std::string name, pb::StateKind kind, pb::TypeDescriptor key_type,
                         pb::TypeDescriptor namespace_type, pb::TypeDescriptor user_key_type,
                         pb::TypeDescriptor value_type) {
  pb::StateDescriptor d;
  d.set_name(std::move(name));
  d.set_kind(kind);
  if (IsKeyedStateKind(kind)) {
    if (key_type.kind() != pb::TypeDescriptor::KIND_UNSPECIFIED) {
      *d.mutable_key_type() = std::move(key_type);
    }
    *d.mutable_namespace_type() = namespace_type.kind() == pb::TypeDescriptor::KIND_UNSPECIFIED
                                      ? format::types::Void()
                                      : std::move(namespace_type);
  }
  if (user_key_type.kind() != pb::TypeDescriptor::KIND_UNSPECIFIED) {
    *d.mutable_user_key_type() = std::move(user_key_type);
  }
  *d.mutable_value_type() = std::move(value_type);
  return d;
}

bool SameType(const pb::TypeDescriptor& a, const pb::TypeDescriptor& b) {
  return a.SerializeAsString() == b.SerializeAsString();
}

}  // namespace

pb::StateDescriptor ValueStateDescriptor(std::string name, pb::TypeDescriptor value_type,
                                         pb::TypeDescriptor key_type,
                                         pb::TypeDescriptor namespace_type) {
  return Make(std::move(name), pb::STATE_VALUE, std::move(key_type), std::move(namespace_type),
              {}, std::move(value_type));
}
pb::StateDescriptor ListStateDescriptor(std::string name, pb::TypeDescriptor element_type,
                                        pb::TypeDescriptor key_type,
                                        pb::TypeDescriptor namespace_type) {
  return Make(std::move(name), pb::STATE_LIST, std::move(key_type), std::move(namespace_type),
              {}, std::move(element_type));
}
pb::StateDescriptor MapStateDescriptor(std::string name, pb::TypeDescriptor user_key_type,
                                       pb::TypeDescriptor value_type, pb::TypeDescriptor key_type,
                                       pb::TypeDescriptor namespace_type) {
  return Make(std::move(name), pb::STATE_MAP, std::move(key_type), std::move(namespace_type),
              std::move(user_key_type), std::move(value_type));
}
pb::StateDescriptor ReducingStateDescriptor(std::string name, pb::TypeDescriptor value_type,
                                            pb::TypeDescriptor key_type,
                                            pb::TypeDescriptor namespace_type) {
  return Make(std::move(name), pb::STATE_REDUCING, std::move(key_type),
              std::move(namespace_type), {}, std::move(value_type));
}
pb::StateDescriptor AggregatingStateDescriptor(std::string name,
                                               pb::TypeDescriptor accumulator_type,
                                               pb::TypeDescriptor key_type,
                                               pb::TypeDescriptor namespace_type) {
  return Make(std::move(name), pb::STATE_AGGREGATING, std::move(key_type),
              std::move(namespace_type), {}, std::move(accumulator_type));
}
pb::StateDescriptor OperatorListStateDescriptor(std::string name,
                                                pb::TypeDescriptor element_type) {
  return Make(std::move(name), pb::STATE_OPERATOR_LIST, {}, {}, {}, std::move(element_type));
}
pb::StateDescriptor UnionListStateDescriptor(std::string name, pb::TypeDescriptor element_type) {
  return Make(std::move(name), pb::STATE_OPERATOR_UNION, {}, {}, {}, std::move(element_type));
}
pb::StateDescriptor BroadcastStateDescriptor(std::string name, pb::TypeDescriptor key_type,
                                             pb::TypeDescriptor value_type) {
  return Make(std::move(name), pb::STATE_BROADCAST, {}, {}, std::move(key_type),
              std::move(value_type));
}


base::Status CheckStateCompatible(const pb::StateDescriptor& restored,
                                  const pb::StateDescriptor& requested) {
  const std::string what = "state '" + requested.name() + "'";
  if (restored.kind() != requested.kind()) {
    return base::Status::FailedPrecondition(what + " was " + pb::StateKind_Name(restored.kind()) +
                                            " and is now requested as " +
                                            pb::StateKind_Name(requested.kind()));
  }
  auto differs = [](const pb::TypeDescriptor& a, const pb::TypeDescriptor& b) {
    // An undeclared type (KIND_UNSPECIFIED) matches anything; VOID equals an unset namespace.
    auto norm = [](const pb::TypeDescriptor& t) {
      return t.kind() == pb::TypeDescriptor::KIND_UNSPECIFIED ? pb::TypeDescriptor() : t;
    };
    if (a.kind() == pb::TypeDescriptor::KIND_UNSPECIFIED ||
        b.kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
      return false;
    }
    return !SameType(norm(a), norm(b));
  };
  struct Field {
    const char* name;
    const pb::TypeDescriptor& a;
    const pb::TypeDescriptor& b;
  };
  const Field fields[] = {{"key type", restored.key_type(), requested.key_type()},
                          {"namespace type", restored.namespace_type(), requested.namespace_type()},
                          {"user key type", restored.user_key_type(), requested.user_key_type()},
                          {"value type", restored.value_type(), requested.value_type()}};
  for (const Field& f : fields) {
    if (differs(f.a, f.b)) {
      return base::Status::FailedPrecondition(what + ": " + f.name + " was " +
                                              format::TypeName(f.a) + ", now " +
                                              format::TypeName(f.b));
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
