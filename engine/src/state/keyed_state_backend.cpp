// KeyedStateBackend: registration, current key/namespace and the per-state internals, common to
// every backend.
#include "ckpt/engine/state/keyed_state_backend.h"

#include <string>
#include <utility>

#include "ckpt/engine/record.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/state/internal_keyed_state.h"
#include "ckpt/engine/state/keyed_restore_source.h"
#include "ckpt/engine/state/snapshot_async_part.h"
#include "ckpt/engine/state/keyed_state_snapshot.h"
#include "ckpt/engine/state/state_backend_config.h"
#include "ckpt/engine/state/timer_service.h"
#include "ckpt/format/value_codec.h"
#include "state/backend_core.h"
#include "state/canonical_snapshot.h"

namespace ckpt::engine {

using state_internal::BackendCore;
using state_internal::FrozenKeyedState;

KeyedStateBackend::KeyedStateBackend(uint32_t max_parallelism, format::KeyGroupRange key_groups,
                                     std::string owner)
    : core_(std::make_shared<BackendCore>()) {
  core_->max_parallelism = max_parallelism;
  core_->range = key_groups;
  core_->owner = std::move(owner);
  core_->ns_hash = state_internal::HashBytes({});
  core_->UpdateHash();
  // The two timer states are declared up front so every subtask of an operator declares the
  // same states in the same order (a record's state_index must mean the same on all subtasks).
  core_->TimerStateId(true).status().IgnoreError();
  core_->TimerStateId(false).status().IgnoreError();
  timers_ = std::make_shared<TimerService>(core_.get());
}

KeyedStateBackend::KeyedStateBackend(KeyedStateBackend& inner)
    : core_(inner.core_), timers_(inner.timers_) {}

KeyedStateBackend::~KeyedStateBackend() = default;

uint32_t KeyedStateBackend::max_parallelism() const { return core_->max_parallelism; }
format::KeyGroupRange KeyedStateBackend::key_group_range() const { return core_->range; }
const std::string& KeyedStateBackend::owner() const { return core_->owner; }
TimerService* KeyedStateBackend::timer_service() { return timers_.get(); }
base::Result<std::unique_ptr<SnapshotAsyncPart>> KeyedStateBackend::SnapshotSync(
    const CheckpointOptions& options) {
  (void)options;
  return state_internal::MakeCanonicalAsyncPart(Snapshot());
}

base::Status KeyedStateBackend::Restore(const KeyedRestoreSource& source) {
  if (HasChangelogHandles(source)) return RestoreWithChangelog(source);
  CKPT_ASSIGN_OR_RETURN(std::vector<int64_t> local_of,
                        state_internal::DeclareSnapshotStates(this, source));
  for (const pb::SubtaskState& st : source.operator_state->subtasks()) {
    for (const pb::KeyedStateHandle& h : st.keyed_state()) {
      if (!h.has_key_groups()) {
        return base::Status::Unimplemented(
            core_->owner + ": the " + std::string(StateBackendKindName(kind())) +
            " backend restores canonical keyed state handles only; subtask " +
            std::to_string(st.subtask_index()) + " of the snapshot has a " +
            (h.has_rocksdb() ? "RocksDB" : h.has_changelog() ? "changelog" : "empty") +
            " handle (restore it with the backend that wrote it, or take a canonical savepoint)");
      }
      CKPT_RETURN_IF_ERROR(
          state_internal::RestoreCanonicalHandle(this, source, h.key_groups(), local_of));
    }
  }
  return base::Status::OK();
}

void KeyedStateBackend::NotifyCheckpointComplete(int64_t checkpoint_id) { (void)checkpoint_id; }
void KeyedStateBackend::NotifyCheckpointAborted(int64_t checkpoint_id) { (void)checkpoint_id; }

base::Result<state_internal::InternalKeyedState*> KeyedStateBackend::Internal(uint32_t id) {
  if (internals_.size() <= id) internals_.resize(id + 1);
  if (!internals_[id]) {
    CKPT_ASSIGN_OR_RETURN(internals_[id], CreateInternalState(id));
  }
  return internals_[id].get();
}

namespace {

base::Status CheckKind(const pb::StateDescriptor& d, pb::StateKind want, const std::string& owner) {
  if (d.kind() != want) {
    return base::Status::InvalidArgument(owner + ": state '" + d.name() + "' is declared as " +
                                         pb::StateKind_Name(d.kind()) + ", expected " +
                                         pb::StateKind_Name(want));
  }
  return base::Status::OK();
}

}  // namespace

base::Result<ValueState> KeyedStateBackend::GetValueState(const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_VALUE, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  CKPT_ASSIGN_OR_RETURN(state_internal::InternalKeyedState * internal, Internal(id));
  return ValueState(internal);
}

base::Result<ListState> KeyedStateBackend::GetListState(const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_LIST, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  CKPT_ASSIGN_OR_RETURN(state_internal::InternalKeyedState * internal, Internal(id));
  return ListState(internal);
}

base::Result<MapState> KeyedStateBackend::GetMapState(const pb::StateDescriptor& descriptor) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_MAP, core_->owner));
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  CKPT_ASSIGN_OR_RETURN(state_internal::InternalKeyedState * internal, Internal(id));
  return MapState(internal);
}

base::Result<ReducingState> KeyedStateBackend::GetReducingState(
    const pb::StateDescriptor& descriptor, ReduceFunction reduce) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_REDUCING, core_->owner));
  if (!reduce) {
    return base::Status::InvalidArgument(core_->owner + ": reducing state '" + descriptor.name() +
                                         "' needs a reduce function");
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  core_->states[id].reduce = std::move(reduce);
  CKPT_ASSIGN_OR_RETURN(state_internal::InternalKeyedState * internal, Internal(id));
  return ReducingState(internal);
}

base::Result<AggregatingState> KeyedStateBackend::GetAggregatingState(
    const pb::StateDescriptor& descriptor, AggregateFunction aggregate) {
  CKPT_RETURN_IF_ERROR(CheckKind(descriptor, pb::STATE_AGGREGATING, core_->owner));
  if (!aggregate.create_accumulator || !aggregate.add || !aggregate.get_result) {
    return base::Status::InvalidArgument(core_->owner + ": aggregating state '" +
                                         descriptor.name() + "' needs all three functions");
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t id, core_->Declare(descriptor, true));
  core_->states[id].aggregate = std::move(aggregate);
  CKPT_ASSIGN_OR_RETURN(state_internal::InternalKeyedState * internal, Internal(id));
  return AggregatingState(internal);
}

void KeyedStateBackend::SetCurrentKey(const format::Value& key, std::string_view encoded_key,
                                      uint32_t key_group) {
  BackendCore& c = *core_;
  c.current_key = key;
  c.current_encoded_key.assign(encoded_key);
  c.current_key_group = key_group;
  c.key_in_range = c.range.Contains(key_group);
  c.kg_index = c.key_in_range ? key_group - c.range.start : 0;
  c.key_hash = state_internal::HashBytes(encoded_key);
  c.UpdateHash();
  ++c.key_version;
  if (!c.key_type_known) {
    base::Result<pb::TypeDescriptor> type = KeyTypeOf(key);
    if (type.ok()) {
      c.key_type = *type;
      c.key_type_known = true;
    }
  }
}

base::Status KeyedStateBackend::SetCurrentKey(const format::Value& key) {
  std::string encoded;
  CKPT_RETURN_IF_ERROR_CTX(EncodeRecordKey(key, &encoded), core_->owner);
  const uint32_t group = KeyGroupOfEncodedKey(encoded, core_->max_parallelism);
  SetCurrentKey(key, encoded, group);
  if (!core_->key_in_range) return core_->NotOwned().WithContext("SetCurrentKey");
  return base::Status::OK();
}

const format::Value& KeyedStateBackend::current_key() const { return core_->current_key; }
std::string_view KeyedStateBackend::current_encoded_key() const {
  return core_->current_encoded_key;
}
uint32_t KeyedStateBackend::current_key_group() const { return core_->current_key_group; }

void KeyedStateBackend::SetCurrentNamespace(std::string_view encoded_namespace) {
  BackendCore& c = *core_;
  if (encoded_namespace == c.current_ns) return;
  c.current_ns.assign(encoded_namespace);
  c.ns_hash = state_internal::HashBytes(encoded_namespace);
  c.UpdateHash();
  ++c.key_version;
}

std::string_view KeyedStateBackend::current_namespace() const { return core_->current_ns; }

}  // namespace ckpt::engine
