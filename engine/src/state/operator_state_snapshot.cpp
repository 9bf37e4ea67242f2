// OperatorStateSnapshot: encodes frozen operator states into OperatorRecords.
#include "ckpt/engine/state/operator_state_snapshot.h"

#include <string>
#include <utility>

#include "ckpt/format/value_codec.h"
#include "state/operator_store_core.h"

namespace ckpt::engine {

OperatorStateSnapshot::OperatorStateSnapshot(
    std::unique_ptr<state_internal::FrozenOperatorState> frozen)
    : frozen_(std::move(frozen)) {}
OperatorStateSnapshot::~OperatorStateSnapshot() = default;

const std::vector<pb::StateDescriptor>& OperatorStateSnapshot::states() const {
  return frozen_->states;
}

uint64_t OperatorStateSnapshot::NumEntries(uint32_t state_index) const {
  if (state_index >= frozen_->states.size()) return 0;
  if (frozen_->lists[state_index]) return frozen_->lists[state_index]->size();
  if (frozen_->broadcasts[state_index]) return frozen_->broadcasts[state_index]->size();
  return 0;
}

base::Status OperatorStateSnapshot::ForEachRecord(
    uint32_t state_index,
    const std::function<base::Status(const format::OperatorRecord&)>& emit) const {
  if (state_index >= frozen_->states.size()) {
    return base::Status::InvalidArgument("no operator state with index " +
                                         std::to_string(state_index));
  }
  const pb::StateDescriptor& d = frozen_->states[state_index];
  std::string value_buf;
  auto encode = [&](const format::Value& v) -> base::Status {
    value_buf.clear();
    base::Status st = format::EncodeValue(d.value_type(), v, &value_buf);
    if (!st.ok()) {
      return base::Status::InvalidArgument("operator state '" + d.name() +
                                           "': value does not match its declared type " +
                                           format::TypeName(d.value_type()) + ": " + st.message());
    }
    return base::Status::OK();
  };
  format::OperatorRecord rec;
  if (const auto& list = frozen_->lists[state_index]) {
    for (const format::Value& v : *list) {
      CKPT_RETURN_IF_ERROR(encode(v));
      rec.key = {};
      rec.value = value_buf;
      CKPT_RETURN_IF_ERROR(emit(rec));
    }
  }
  if (const auto& map = frozen_->broadcasts[state_index]) {
    for (const auto& [encoded_key, kv] : *map) {
      CKPT_RETURN_IF_ERROR(encode(kv.second));
      rec.key = encoded_key;
      rec.value = value_buf;
      CKPT_RETURN_IF_ERROR(emit(rec));
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::engine
