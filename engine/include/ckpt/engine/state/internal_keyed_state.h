// InternalKeyedState: what the state handles (ValueState, ListState, MapState, ReducingState,
// AggregatingState) call. One object per declared state, created by the backend that stores it
// (heap tables, RocksDB column family); every method acts on the backend's current key and
// namespace. Methods a kind does not use are never called for it by its handle. Not thread-safe
// (the backend's thread only).
#pragma once

#include <cstddef>
#include <functional>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value.h"

namespace ckpt::engine::state_internal {

class InternalKeyedState {
 public:
  virtual ~InternalKeyedState() = default;

  // VALUE, REDUCING, AGGREGATING (the accumulator) and LIST (a format::List): the stored value
  // of the current key and namespace, or nullptr (none, or the key group is not owned). Valid
  // until the next write to the backend.
  virtual const format::Value* Get() = 0;
  // Replaces the value. FailedPrecondition if the current key group is not owned.
  virtual base::Status Put(format::Value value) = 0;
  // Removes the value or the whole map (no-op if absent).
  virtual base::Status Clear() = 0;
  // LIST: appends one element.
  virtual base::Status AddToList(format::Value element) = 0;
  // REDUCING: reduce(stored, input) or stores `input` first; AGGREGATING: add(accumulator,
  // input), creating the accumulator first.
  virtual base::Status Fold(const format::Value& input) = 0;
  // VALUE of type INT64: stores `delta` plus the stored int64 (`delta` alone when none is
  // stored) and returns it. FailedPrecondition if the current key group is not owned. The
  // default is Get then Put; a backend that can do it in one lookup without building a Value
  // (heap) or without decoding one (RocksDB) overrides it.
  virtual base::Result<int64_t> AddInt64(int64_t delta) {
    const format::Value* stored = Get();
    int64_t result = delta;
    if (stored != nullptr) {
      if (const auto* v = std::get_if<int64_t>(&stored->v)) result = *v + delta;
    }
    CKPT_RETURN_IF_ERROR(Put(format::Value(result)));
    return result;
  }

  // MAP. MapGet: the value or nullptr (also for a user key of the wrong type); valid until the
  // next write. MapPut: InvalidArgument if `user_key` does not match the declared type.
  virtual const format::Value* MapGet(const format::Value& user_key) = 0;
  virtual base::Status MapPut(const format::Value& user_key, format::Value value) = 0;
  virtual base::Status MapRemove(const format::Value& user_key) = 0;
  virtual size_t MapSize() = 0;
  // In user-key byte order; stops when `fn` returns false. `fn` must not modify the backend.
  virtual void MapForEach(
      const std::function<bool(const format::Value& user_key, const format::Value& value)>& fn) = 0;

  // AGGREGATING: the registered function (get_result turns the accumulator into the result).
  virtual const AggregateFunction& aggregate() const = 0;
};

}  // namespace ckpt::engine::state_internal
