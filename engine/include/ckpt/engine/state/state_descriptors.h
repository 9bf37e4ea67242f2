// Builders for the StateDescriptor every state declares (name, kind, key/namespace/user-key/value
// types; metadata.proto), and the user functions of reducing and aggregating state. Pure
// functions; thread-safe.
#pragma once

#include <functional>
#include <string>

#include "ckpt/base/status.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/state_kind.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

// Folds `input` into `accumulator` in place (Flink's ReduceFunction, without the copy).
using ReduceFunction = std::function<void(format::Value& accumulator, const format::Value& input)>;

// Flink's AggregateFunction: the accumulator is what is stored (its type is the descriptor's
// value_type); `get_result` turns it into the value AggregatingState::Get returns.
struct AggregateFunction {
  std::function<format::Value()> create_accumulator;
  std::function<void(format::Value& accumulator, const format::Value& input)> add;
  std::function<format::Value(const format::Value& accumulator)> get_result;
};

// Keyed state descriptors. `key_type` may be left KIND_UNSPECIFIED: the backend then declares the
// natural type of the keys it sees (KeyTypeOf in record.h). `namespace_type` defaults to VOID.
pb::StateDescriptor ValueStateDescriptor(std::string name, pb::TypeDescriptor value_type,
                                         pb::TypeDescriptor key_type = {},
                                         pb::TypeDescriptor namespace_type = {});
pb::StateDescriptor ListStateDescriptor(std::string name, pb::TypeDescriptor element_type,
                                        pb::TypeDescriptor key_type = {},
                                        pb::TypeDescriptor namespace_type = {});
pb::StateDescriptor MapStateDescriptor(std::string name, pb::TypeDescriptor user_key_type,
                                       pb::TypeDescriptor value_type,
                                       pb::TypeDescriptor key_type = {},
                                       pb::TypeDescriptor namespace_type = {});
pb::StateDescriptor ReducingStateDescriptor(std::string name, pb::TypeDescriptor value_type,
                                            pb::TypeDescriptor key_type = {},
                                            pb::TypeDescriptor namespace_type = {});
pb::StateDescriptor AggregatingStateDescriptor(std::string name,
                                               pb::TypeDescriptor accumulator_type,
                                               pb::TypeDescriptor key_type = {},
                                               pb::TypeDescriptor namespace_type = {});

// Operator (non-keyed) state descriptors.
pb::StateDescriptor OperatorListStateDescriptor(std::string name, pb::TypeDescriptor element_type);
pb::StateDescriptor UnionListStateDescriptor(std::string name, pb::TypeDescriptor element_type);
pb::StateDescriptor BroadcastStateDescriptor(std::string name, pb::TypeDescriptor key_type,
                                             pb::TypeDescriptor value_type);

// True for the keyed kinds (VALUE, LIST, MAP, REDUCING, AGGREGATING, TIMERS): format's one
// definition, shared with ckpt::ops.
using format::IsKeyedStateKind;

// OK if a restored state's declaration `restored` can serve a registration `requested`: same
// kind and equal namespace, user-key and value types (and key type when both declare one).
// FailedPrecondition naming the state and the first difference otherwise.
base::Status CheckStateCompatible(const pb::StateDescriptor& restored,
                                  const pb::StateDescriptor& requested);

}  // namespace ckpt::engine
