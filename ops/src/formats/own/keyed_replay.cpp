// KeyedStateView: key-group reads of canonical handles and changelog replay.
#include "formats/own/keyed_replay.h"

#include <algorithm>

#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"
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

base::Result<std::vector<KeyedChange>> KeyedStateView::Changes(
    const pb::ChangelogStateHandle& h, std::optional<uint32_t> key_group) {
  auto cached = tails_.find(&h);
  if (cached == tails_.end()) {
    std::vector<KeyedChange> all;
    for (const auto& seg : h.segments()) {
      const uint32_t index = seg.slice().file_index();
      if (index >= snapshot_.files.size() || snapshot_.files[index].resolved_path.empty()) {
        return Status::Corruption(snapshot_.metadata_path + ": changelog segment names file #" +
                                  std::to_string(index) + ", which cannot be resolved");
      }
      if (seg.slice().length() == 0) continue;
      const std::string& path = snapshot_.files[index].resolved_path;
      CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs_, path));
      const uint64_t end = seg.slice().offset() + seg.slice().length();
      CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIteratorAt(seg.slice().offset(), UINT64_MAX));
      format::RecordRef rec;
      while (true) {
        CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
        if (!more || rec.logical_offset >= end) break;
        format::ChangelogRecord c;
        if (!format::DecodeChangelogRecord(rec.bytes, &c) ||
            c.change.state_index >= static_cast<uint32_t>(op_.states_size())) {
          return Status::Corruption(path + ": malformed changelog record at logical offset " +
                                    std::to_string(rec.logical_offset));
        }
        all.push_back({c.sequence, c.op, c.key_group,
                       {c.change.state_index, std::string(c.change.key), std::string(c.change.ns),
                        std::string(c.change.user_key), std::string(c.change.value)}});
      }
    }
    std::stable_sort(all.begin(), all.end(), [](const KeyedChange& a, const KeyedChange& b) {
      return a.sequence < b.sequence;
    });
    cached = tails_.emplace(&h, std::move(all)).first;
  }
  if (!key_group) return cached->second;
  std::vector<KeyedChange> out;
  for (const auto& c : cached->second) {
    if (c.key_group == *key_group) out.push_back(c);
  }
  return out;
}

base::Status KeyedStateView::Apply(
    const KeyedChange& c,
    std::map<std::tuple<uint32_t, std::string, std::string, std::string>, std::string>* state) {
  const KeyedValue& e = c.entry;
  auto id = std::make_tuple(e.state_index, e.key, e.ns, e.user_key);
  const pb::StateDescriptor& d = op_.states(static_cast<int>(e.state_index));
  auto clear_all = [&] {
    auto lo = state->lower_bound(std::make_tuple(e.state_index, e.key, e.ns, std::string()));
    while (lo != state->end() && std::get<0>(lo->first) == e.state_index &&
           std::get<1>(lo->first) == e.key && std::get<2>(lo->first) == e.ns) {
      lo = state->erase(lo);
    }
  };
  switch (c.op) {
    case format::ChangeOp::kPut:
      (*state)[id] = e.value;
      return Status::OK();
    case format::ChangeOp::kDelete:
      // Without a user key on a MAP state: the whole map of (key, namespace).
      if (e.user_key.empty() && d.kind() == pb::STATE_MAP) {
        clear_all();
      } else {
        state->erase(id);
      }
      return Status::OK();
    case format::ChangeOp::kClear:
      clear_all();
      return Status::OK();
    case format::ChangeOp::kAppend: {
      // A LIST record holds the whole list (LIST of value_type); an append one element.
      const pb::TypeDescriptor list_type = format::types::List(d.value_type());
      format::List list;
      auto it = state->find(id);
      if (it != state->end()) {
        CKPT_ASSIGN_OR_RETURN(format::Value current, format::DecodeValueExact(list_type, it->second));
        if (auto* l = std::get_if<format::List>(&current.v)) list = std::move(*l);
      }
      CKPT_ASSIGN_OR_RETURN(format::Value element, format::DecodeValueExact(d.value_type(), e.value));
      list.elements.push_back(std::move(element));
      CKPT_ASSIGN_OR_RETURN(std::string encoded, format::EncodeValue(list_type, format::Value(list)));
      (*state)[id] = std::move(encoded);
      return Status::OK();
    }
  }
  return Status::OK();
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
  std::map<std::tuple<uint32_t, std::string, std::string, std::string>, std::string> state;
  for (auto& v : base) {
    state[std::make_tuple(v.state_index, std::move(v.key), std::move(v.ns), std::move(v.user_key))] =
        std::move(v.value);
  }
  CKPT_ASSIGN_OR_RETURN(std::vector<KeyedChange> changes, Changes(cl, g));
  for (const auto& c : changes) {
    Status st = Apply(c, &state);
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
