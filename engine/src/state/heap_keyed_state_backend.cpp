// HeapKeyedStateBackend: the heap backend's snapshot (copy-on-write freeze), entry count and the
// per-state internals over its hash tables.
#include "ckpt/engine/state/heap_keyed_state_backend.h"

#include <memory>
#include <string>
#include <utility>

#include "ckpt/engine/state/state_backend_config.h"
#include "state/backend_core.h"
#include "state/heap_internal_state.h"

namespace ckpt::engine {

HeapKeyedStateBackend::HeapKeyedStateBackend(uint32_t max_parallelism,
                                             format::KeyGroupRange key_groups, std::string owner)
    : KeyedStateBackend(max_parallelism, key_groups, std::move(owner)) {}

HeapKeyedStateBackend::~HeapKeyedStateBackend() = default;

StateBackendKind HeapKeyedStateBackend::kind() const { return StateBackendKind::kHeap; }

const CowStats& HeapKeyedStateBackend::cow_stats() const { return core()->cow; }

std::unique_ptr<KeyedStateSnapshot> HeapKeyedStateBackend::Snapshot() {
  return std::make_unique<state_internal::HeapKeyedStateSnapshot>(state_internal::Freeze(*core()));
}

base::Result<std::unique_ptr<state_internal::InternalKeyedState>>
HeapKeyedStateBackend::CreateInternalState(uint32_t id) {
  std::unique_ptr<state_internal::InternalKeyedState> s =
      std::make_unique<state_internal::HeapInternalState>(core(), id);
  return s;
}

uint64_t HeapKeyedStateBackend::NumEntries() const {
  uint64_t n = 0;
  for (const auto& s : core()->states) {
    for (const auto& slot : s.values) {
      if (slot.table) n += slot.table->size();
    }
    for (const auto& slot : s.maps) {
      if (slot.table) slot.table->ForEach([&](const auto& e) { n += e.payload.size(); });
    }
  }
  n += core()->event_timers.table->size() + core()->processing_timers.table->size();
  return n;
}

}  // namespace ckpt::engine
