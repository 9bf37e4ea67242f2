#include "operators/window_aggregate.h"

#include <algorithm>

namespace ckpt::engine::operators {
namespace {

int64_t Combine(WindowAggregate aggregate, int64_t a, int64_t b) {
  switch (aggregate) {
    case WindowAggregate::kSum:
    case WindowAggregate::kCount:
      return a + b;
    case WindowAggregate::kMin:
      return std::min(a, b);
    case WindowAggregate::kMax:
      return std::max(a, b);
  }
  return a;
}

int64_t AsInt(const format::Value& v) {
  const auto* i = std::get_if<int64_t>(&v.v);
  return i ? *i : 0;  // state values are written by this operator only, always int64
}

}  // namespace

const std::vector<std::string>& WindowAggregateNames() {
  static const std::vector<std::string> kNames = {"sum", "count", "min", "max"};
  return kNames;
}

format::Value AggregateInput(WindowAggregate aggregate, int64_t value) {
  return format::Value(aggregate == WindowAggregate::kCount ? int64_t{1} : value);
}

ReduceFunction AggregateReducer(WindowAggregate aggregate) {
  return [aggregate](format::Value& acc, const format::Value& in) {
    acc = format::Value(Combine(aggregate, AsInt(acc), AsInt(in)));
  };
}

int64_t FoldAggregate(WindowAggregate aggregate, const std::vector<format::Value>& inputs) {
  int64_t acc = AsInt(inputs.front());
  for (size_t i = 1; i < inputs.size(); ++i) acc = Combine(aggregate, acc, AsInt(inputs[i]));
  return acc;
}

}  // namespace ckpt::engine::operators
