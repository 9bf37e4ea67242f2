// BroadcastState: a map that is identical on every subtask of an operator (STATE_BROADCAST); on
// restore every new subtask receives subtask 0's copy. Ordered by the key's encoded bytes.
// Cheap handle, valid as long as its OperatorStateStore. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>

#include "ckpt/base/status.h"
#include "ckpt/format/value.h"

namespace ckpt::engine {

namespace state_internal {
struct OperatorStoreCore;
}  // namespace state_internal

class BroadcastState {
 public:
  BroadcastState() = default;
  // The value under `key`, or nullptr. Valid until the next write.
  const format::Value* Get(const format::Value& key) const;
  // InvalidArgument if `key` does not match the declared key type.
  base::Status Put(const format::Value& key, format::Value value);
  void Remove(const format::Value& key);
  void Clear();
  size_t Size() const;
  // In key byte order; stops early if `fn` returns false. `fn` must not modify the store.
  void ForEach(const std::function<bool(const format::Value& key,
                                        const format::Value& value)>& fn) const;

 private:
  friend class OperatorStateStore;
  BroadcastState(state_internal::OperatorStoreCore* core, uint32_t id) : core_(core), id_(id) {}
  state_internal::OperatorStoreCore* core_ = nullptr;
  uint32_t id_ = 0;
};

}  // namespace ckpt::engine
