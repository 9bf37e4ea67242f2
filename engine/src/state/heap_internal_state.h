// HeapInternalState: the heap backend's per-state internals: one hash probe per access on the
// current (key, namespace) of the current key-group table (copy-on-write, backend_core.h).
#pragma once

#include <cstdint>
#include <functional>

#include "ckpt/engine/state/internal_keyed_state.h"
#include "state/backend_core.h"

namespace ckpt::engine::state_internal {

class HeapInternalState : public InternalKeyedState {
 public:
  HeapInternalState(BackendCore* core, uint32_t id) : c_(core), id_(id) {}

  const format::Value* Get() override;
  base::Status Put(format::Value value) override;
  base::Status Clear() override;
  base::Status AddToList(format::Value element) override;
  base::Status Fold(const format::Value& input) override;
  base::Result<int64_t> AddInt64(int64_t delta) override;
  const format::Value* MapGet(const format::Value& user_key) override;
  base::Status MapPut(const format::Value& user_key, format::Value value) override;
  base::Status MapRemove(const format::Value& user_key) override;
  size_t MapSize() override;
  void MapForEach(const std::function<bool(const format::Value& user_key,
                                           const format::Value& value)>& fn) override;
  const AggregateFunction& aggregate() const override { return c_->states[id_].aggregate; }

 private:
  bool IsMap() const { return c_->states[id_].descriptor.kind() == pb::STATE_MAP; }
  const UserMap* LookupMap() const;
  // Encodes `user_key` into the core's scratch buffer; false if it does not match the type.
  bool EncodeUserKey(const format::Value& user_key);

  BackendCore* c_;
  uint32_t id_;
};

}  // namespace ckpt::engine::state_internal
