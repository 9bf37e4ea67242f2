// MapState: a map from user key to value per (key, namespace) of a KeyedStateBackend, ordered
// by the user key's encoded bytes. Cheap handle, valid as long as its backend; acts on the
// current key and namespace. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>

#include "ckpt/base/status.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
class InternalKeyedState;
}  // namespace state_internal

class MapState {
 public:
  MapState() = default;
  // The value under `user_key`, or nullptr. Valid until the next write. InvalidArgument is not
  // possible here: a user key that does not encode with the declared type is simply absent.
  const format::Value* Get(const format::Value& user_key) const;
  bool Contains(const format::Value& user_key) const;
  // Inserts or replaces. InvalidArgument if `user_key` does not match the declared user-key
  // type; FailedPrecondition if the current key group is not owned.
  base::Status Put(const format::Value& user_key, format::Value value);
  // Removes one entry (no-op if absent).
  base::Status Remove(const format::Value& user_key);
  // Removes the whole map of the current key and namespace.
  base::Status Clear();
  bool IsEmpty() const;
  size_t Size() const;
  // Calls `fn` for each entry in user-key byte order; stops early if `fn` returns false.
  // `fn` must not modify this backend.
  void ForEach(const std::function<bool(const format::Value& user_key,
                                        const format::Value& value)>& fn) const;

 private:
  friend class KeyedStateBackend;
  explicit MapState(state_internal::InternalKeyedState* state) : state_(state) {}
  state_internal::InternalKeyedState* state_ = nullptr;
};

}  // namespace ckpt::engine
