// The keyed state of one operator as a restore would see it, one key group at a time: canonical
// key-group handles read through format::KeyedStateReader, changelog handles replayed (their
// materialized base, then the log tail's changes in sequence order; FORMAT.md "Changelog").
// Shared by dump and diff --keys. Private to ckpt::ops; one thread per instance.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/changelog_replay.h"
#include "ckpt/format/keyed_state_reader.h"
#include "ckpt/format/records.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {

// One keyed entry with owned bytes.
struct KeyedValue {
  uint32_t state_index = 0;
  std::string key, ns, user_key, value;
  auto Identity() const { return std::tie(state_index, key, ns, user_key); }
};

// One change of a changelog log tail, owned.
struct KeyedChange {
  uint64_t sequence = 0;
  format::ChangeOp op = format::ChangeOp::kPut;
  uint32_t key_group = 0;
  KeyedValue entry;
};

class KeyedStateView {
 public:
  KeyedStateView(base::Fs& fs, const Snapshot& snapshot, const pb::OperatorState& op)
      : fs_(fs), snapshot_(snapshot), op_(op) {}

  // The entries of `key_group` held by `handle`, replayed when it is a changelog handle; in
  // file order for a key-groups handle, ordered by (state, key, namespace, user key) for a
  // replayed one or a native RocksDB one (read whole on first use, engine_rocksdb.h).
  // Unimplemented for RocksDB native handles in a build without RocksDB; Corruption naming the
  // file.
  base::Status Read(const pb::KeyedStateHandle& handle, uint32_t key_group,
                    std::vector<KeyedValue>* out);

  // The raw log-tail changes of a changelog handle for `key_group` (all key groups when
  // nullopt), in sequence order. Corruption naming the file.
  base::Result<std::vector<KeyedChange>> Changes(const pb::ChangelogStateHandle& handle,
                                                 std::optional<uint32_t> key_group);

  // The key-group range of a handle (inclusive); false for an empty handle.
  static bool Range(const pb::KeyedStateHandle& handle, uint32_t* start, uint32_t* end);

 private:
  base::Result<const format::KeyedStateReader*> Reader(uint32_t file_index);
  base::Status ReadKeyGroups(const pb::KeyGroupsStateHandle& h, uint32_t g,
                             std::vector<KeyedValue>* out);
  base::Status ReadRocksDb(const pb::RocksDbStateHandle& h, uint32_t g,
                          std::vector<KeyedValue>* out);
  // The log-tail changes of `h`, all key groups, read once (format/changelog_replay.h).
  base::Result<const std::vector<format::ChangelogChange>*> Tail(const pb::ChangelogStateHandle& h);

  base::Fs& fs_;
  const Snapshot& snapshot_;
  const pb::OperatorState& op_;
  std::map<uint32_t, std::unique_ptr<format::KeyedStateReader>> readers_;
  // Native RocksDB handles already read, by handle address: entries by key group.
  std::map<const pb::RocksDbStateHandle*, std::map<uint32_t, std::vector<KeyedValue>>> rocksdb_;
  // Log tails already read, by handle address, all key groups.
  std::map<const pb::ChangelogStateHandle*, std::vector<format::ChangelogChange>> tails_;
};

}  // namespace ckpt::ops::internal
