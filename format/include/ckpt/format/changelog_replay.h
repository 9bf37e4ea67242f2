// Changelog replay (FORMAT.md "Changelog records"): the changes of a changelog handle's log
// segments, read in handle order and sorted by sequence, and their effect on the encoded
// entries of one key group. Shared by every reader that restores or shows a changelog handle
// (the engine's restore, dump and diff). Pure functions over their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"

namespace ckpt::format {

// One change of a log segment, with owned bytes.
struct ChangelogChange {
  uint64_t sequence = 0;
  ChangeOp op = ChangeOp::kPut;
  uint32_t key_group = 0;
  uint32_t state_index = 0;  // into the operator's OperatorState.states
  std::string key, ns, user_key, value;
};

// Opens the CHANGELOG container that holds `segment`'s slice, or returns null to skip the
// segment (the caller decides how a segment is resolved and verified, and whether an empty
// slice is read at all). Its errors are returned as they are.
using ChangelogSegmentOpener = std::function<base::Result<std::unique_ptr<StateFileReader>>(
    const pb::ChangelogSegment& segment)>;

// The changes of `handle`'s segments, opened in handle order through `open`, whose key group
// lies in `key_groups` (every key group when nullopt), stably sorted by sequence. Requires
// `open` to be callable. Corruption naming the container's path and the logical offset for a
// record that does not decode or names a state index >= `state_count`; a read error of a
// container as the reader returns it.
base::Result<std::vector<ChangelogChange>> ReadChangelogChanges(
    const pb::ChangelogStateHandle& handle, uint32_t state_count,
    std::optional<KeyGroupRange> key_groups, const ChangelogSegmentOpener& open);

// The encoded entries of one key group: (state index, key, namespace, user key) -> value.
using ChangelogEntryId = std::tuple<uint32_t, std::string, std::string, std::string>;
using ChangelogEntries = std::map<ChangelogEntryId, std::string>;

// Applies `change` to `entries`; `state` is the descriptor of change.state_index. A put sets the
// value (a map entry when the user key is set); a delete removes it, or the whole map of
// (key, namespace) for a MAP state without a user key; a clear removes every entry of
// (state, key, namespace); an append decodes the stored LIST (a LIST of the value type),
// adds the element and stores it encoded again. Corruption when a stored list or the appended
// element does not decode; nothing else fails.
base::Status ApplyChangelogChange(const pb::StateDescriptor& state, const ChangelogChange& change,
                                  ChangelogEntries* entries);

}  // namespace ckpt::format
