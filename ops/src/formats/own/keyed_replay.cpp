// KeyedStateView: key-group reads of canonical handles and changelog replay.
#include "formats/own/keyed_replay.h"

#include <algorithm>
#include <utility>

#include "ckpt/format/state_file_reader.h"
#include "formats/own/engine_rocksdb.h"

namespace ckpt::ops::internal {

using base::Status;

bool KeyedStateView::Range(const pb::KeyedStateHandle& h, uint32_t* start, uint32_t* end) {
  switch (h.handle_case()) {
    case pb::KeyedStateHandle::kKeyGroups:
      *start = h.key_groups().key_group_start();
      *end = h.key_groups().key_group_end();
      return true;
    case pb::KeyedStateHandle::kRocksdb:
      *start = h.rocksdb().key_group_start();
      *end = h.rocksdb().key_group_end();
      return true;
    case pb::KeyedStateHandle::kChangelog:
      *start = h.changelog().key_group_start();
      *end = h.changelog().key_group_end();
      return true;
    case pb::KeyedStateHandle::HANDLE_NOT_SET:
      break;
  }
  return false;
}

base::Result<const format::KeyedStateReader*> KeyedStateView::Reader(uint32_t index) {
  auto it = readers_.find(index);
  if (it != readers_.end()) return it->second.get();
  if (index >= snapshot_.files.size()) {
    return Status::Corruption(snapshot_.metadata_path + ": keyed handle names file #" +
                              std::to_string(index) + ", beyond the file table");
  }
  const SnapshotFile& f = snapshot_.files[index];
  if (f.resolved_path.empty()) {
    return Status::Corruption(snapshot_.metadata_path + ": file #" + std::to_string(index) +
                              ": " + f.resolve_error);
  }
  CKPT_ASSIGN_OR_RETURN(auto reader,
                        format::KeyedStateReader::Open(fs_, f.resolved_path, op_.states()));
  const format::KeyedStateReader* raw = reader.get();
  readers_[index] = std::move(reader);
  return raw;
}

base::Status KeyedStateView::ReadKeyGroups(const pb::KeyGroupsStateHandle& h, uint32_t g,
                                           std::vector<KeyedValue>* out) {
  if (g < h.key_group_start() || g > h.key_group_end()) return Status::OK();
  CKPT_ASSIGN_OR_RETURN(const format::KeyedStateReader* reader, Reader(h.file_index()));
  CKPT_ASSIGN_OR_RETURN(format::KeyedRecordIterator it, reader->NewKeyGroupIterator(g));
  format::KeyedEntry e;
  while (true) {
    CKPT_ASSIGN_OR_RETURN(bool more, it.Next(&e));
    if (!more) return Status::OK();
    out->push_back({e.record.state_index, std::string(e.record.key), std::string(e.record.ns),
                    std::string(e.record.user_key), std::string(e.record.value)});
  }
}

base::Status KeyedStateView::ReadRocksDb(const pb::RocksDbStateHandle& h, uint32_t g,
                                         std::vector<KeyedValue>* out) {
  if (g < h.key_group_start() || g > h.key_group_end()) return Status::OK();
  auto cached = rocksdb_.find(&h);
  if (cached == rocksdb_.end()) {
    std::map<uint32_t, std::vector<KeyedValue>> all;
    CKPT_RETURN_IF_ERROR(ReadEngineRocksDb(fs_, snapshot_, op_, h, &all));
    cached = rocksdb_.emplace(&h, std::move(all)).first;
  }
  auto found = cached->second.find(g);
  if (found != cached->second.end()) out->insert(out->end(), found->second.begin(), found->second.end());
  return Status::OK();
}

base::Result<const std::vector<format::ChangelogChange>*> KeyedStateView::Tail(
    const pb::ChangelogStateHandle& h) {
  auto cached = tails_.find(&h);
  if (cached != tails_.end()) return &cached->second;
  auto open_segment = [&](const pb::ChangelogSegment& seg)
      -> base::Result<std::unique_ptr<format::StateFileReader>> {
    const uint32_t index = seg.slice().file_index();
    if (index >= snapshot_.files.size() || snapshot_.files[index].resolved_path.empty()) {
      return Status::Corruption(snapshot_.metadata_path + ": changelog segment names file #" +
                                std::to_string(index) + ", which cannot be resolved");
    }
    if (seg.slice().length() == 0) return std::unique_ptr<format::StateFileReader>();
    return format::StateFileReader::Open(fs_, snapshot_.files[index].resolved_path);
  };
  const auto state_count = static_cast<uint32_t>(op_.states_size());
  CKPT_ASSIGN_OR_RETURN(std::vector<format::ChangelogChange> all,
                        format::ReadChangelogChanges(h, state_count, std::nullopt, open_segment));
  return &tails_.emplace(&h, std::move(all)).first->second;
}

base::Result<std::vector<KeyedChange>> KeyedStateView::Changes(
    const pb::ChangelogStateHandle& h, std::optional<uint32_t> key_group) {
  CKPT_ASSIGN_OR_RETURN(const std::vector<format::ChangelogChange>* tail, Tail(h));
  std::vector<KeyedChange> out;
  for (const format::ChangelogChange& c : *tail) {
    if (key_group && c.key_group != *key_group) continue;
    out.push_back({c.sequence, c.op, c.key_group,
                   {c.state_index, c.key, c.ns, c.user_key, c.value}});
  }
  return out;
}

base::Status KeyedStateView::Read(const pb::KeyedStateHandle& h, uint32_t g,
                                  std::vector<KeyedValue>* out) {
  switch (h.handle_case()) {
    case pb::KeyedStateHandle::kKeyGroups:
      return ReadKeyGroups(h.key_groups(), g, out);
    case pb::KeyedStateHandle::kRocksdb:
      return ReadRocksDb(h.rocksdb(), g, out);
    case pb::KeyedStateHandle::HANDLE_NOT_SET:
      return Status::OK();
    case pb::KeyedStateHandle::kChangelog:
      break;
  }
  const pb::ChangelogStateHandle& cl = h.changelog();
  if (g < cl.key_group_start() || g > cl.key_group_end()) return Status::OK();
  std::vector<KeyedValue> base;
  for (const auto& m : cl.materialized()) CKPT_RETURN_IF_ERROR(Read(m, g, &base));
  format::ChangelogEntries state;
  for (auto& v : base) {
    state[std::make_tuple(v.state_index, std::move(v.key), std::move(v.ns), std::move(v.user_key))] =
        std::move(v.value);
  }
  CKPT_ASSIGN_OR_RETURN(const std::vector<format::ChangelogChange>* tail, Tail(cl));
  for (const format::ChangelogChange& c : *tail) {
    if (c.key_group != g) continue;
    const pb::StateDescriptor& d = op_.states(static_cast<int>(c.state_index));
    Status st = format::ApplyChangelogChange(d, c, &state);
    if (!st.ok()) {
      return st.WithContext(snapshot_.metadata_path + ": replaying change #" +
                            std::to_string(c.sequence) + " in key group " + std::to_string(g));
    }
  }
  for (auto& [id, value] : state) {
    out->push_back({std::get<0>(id), std::get<1>(id), std::get<2>(id), std::get<3>(id), value});
  }
  return Status::OK();
}

}  // namespace ckpt::ops::internal
