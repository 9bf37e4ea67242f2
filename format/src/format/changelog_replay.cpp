// ReadChangelogChanges and ApplyChangelogChange: see changelog_replay.h.
#include "ckpt/format/changelog_replay.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "ckpt/format/value_codec.h"

namespace ckpt::format {

using base::Status;

base::Result<std::vector<ChangelogChange>> ReadChangelogChanges(
    const pb::ChangelogStateHandle& handle, uint32_t state_count,
    std::optional<KeyGroupRange> key_groups, const ChangelogSegmentOpener& open) {
  std::vector<ChangelogChange> changes;
  for (const pb::ChangelogSegment& seg : handle.segments()) {
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<StateFileReader> reader, open(seg));
    if (reader == nullptr) continue;
    // The slice ends at the first record at or past offset + length (a container may hold the
    // segments of several subtasks back to back).
    const uint64_t end = seg.slice().offset() + seg.slice().length();
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<RecordIterator> it,
                          reader->NewIteratorAt(seg.slice().offset(), UINT64_MAX));
    RecordRef rec;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
      if (!more || rec.logical_offset >= end) break;
      ChangelogRecord c;
      if (!DecodeChangelogRecord(rec.bytes, &c) || c.change.state_index >= state_count) {
        return Status::Corruption(reader->path() +
                                  ": malformed changelog record at logical offset " +
                                  std::to_string(rec.logical_offset));
      }
      if (key_groups && !key_groups->Contains(c.key_group)) continue;
      changes.push_back({c.sequence, c.op, c.key_group, c.change.state_index,
                         std::string(c.change.key), std::string(c.change.ns),
                         std::string(c.change.user_key), std::string(c.change.value)});
    }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const ChangelogChange& a, const ChangelogChange& b) {
                     return a.sequence < b.sequence;
                   });
  return changes;
}

base::Status ApplyChangelogChange(const pb::StateDescriptor& state, const ChangelogChange& change,
                                  ChangelogEntries* entries) {
  const ChangelogChange& c = change;
  ChangelogEntryId id(c.state_index, c.key, c.ns, c.user_key);
  auto clear_all = [&] {
    auto lo = entries->lower_bound(ChangelogEntryId(c.state_index, c.key, c.ns, std::string()));
    while (lo != entries->end() && std::get<0>(lo->first) == c.state_index &&
           std::get<1>(lo->first) == c.key && std::get<2>(lo->first) == c.ns) {
      lo = entries->erase(lo);
    }
  };
  switch (c.op) {
    case ChangeOp::kPut:
      (*entries)[id] = c.value;
      return Status::OK();
    case ChangeOp::kDelete:
      if (c.user_key.empty() && state.kind() == pb::STATE_MAP) {
        clear_all();
      } else {
        entries->erase(id);
      }
      return Status::OK();
    case ChangeOp::kClear:
      clear_all();
      return Status::OK();
    case ChangeOp::kAppend: {
      const pb::TypeDescriptor list_type = types::List(state.value_type());
      List list;
      auto it = entries->find(id);
      if (it != entries->end()) {
        CKPT_ASSIGN_OR_RETURN(Value current, DecodeValueExact(list_type, it->second));
        if (auto* l = std::get_if<List>(&current.v)) list = std::move(*l);
      }
      CKPT_ASSIGN_OR_RETURN(Value element, DecodeValueExact(state.value_type(), c.value));
      list.elements.push_back(std::move(element));
      CKPT_ASSIGN_OR_RETURN(std::string encoded, EncodeValue(list_type, Value(list)));
      (*entries)[id] = std::move(encoded);
      return Status::OK();
    }
  }
  return Status::OK();
}

}  // namespace ckpt::format
