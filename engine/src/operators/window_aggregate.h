// The aggregates of the window operators (sum, count, min, max over int64 values): as a reduce
// function for reducing state, and as a fold over a buffered list for list state. Private to
// engine/src/operators. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value.h"

namespace ckpt::engine::operators {

enum class WindowAggregate { kSum, kCount, kMin, kMax };

// "sum", "count", "min", "max", in the order of WindowAggregate's enumerators.
const std::vector<std::string>& WindowAggregateNames();

// What is stored for one input value: the value itself, or 1 for count.
format::Value AggregateInput(WindowAggregate aggregate, int64_t value);
// Folds stored inputs (reducing state's function).
ReduceFunction AggregateReducer(WindowAggregate aggregate);
// Folds a buffered list of stored inputs; requires a non-empty list of int64 values.
int64_t FoldAggregate(WindowAggregate aggregate, const std::vector<format::Value>& inputs);

}  // namespace ckpt::engine::operators
