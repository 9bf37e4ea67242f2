// ReadEngineRocksDb: see engine_rocksdb.h.
#include "formats/own/engine_rocksdb.h"

#include <algorithm>
#include <string>

#include "ckpt/format/rocksdb_key_layout.h"
#include "ckpt/format/value_codec.h"
#ifdef CKPT_HAVE_FLINK_ROCKSDB
#include "ckpt/flink/rocksdb_snapshot.h"
#endif

namespace ckpt::ops::internal {

using base::Status;

Status ReadEngineRocksDb(base::Fs& fs, const Snapshot& snapshot, const pb::OperatorState& op,
                         const pb::RocksDbStateHandle& handle,
                         std::map<uint32_t, std::vector<KeyedValue>>* out) {
  const std::string where = snapshot.metadata_path + ": RocksDB handle of backend " +
                            handle.backend_id() + " (key groups " +
                            std::to_string(handle.key_group_start()) + "-" +
                            std::to_string(handle.key_group_end()) + ")";
#ifndef CKPT_HAVE_FLINK_ROCKSDB
  (void)fs;
  (void)op;
  (void)out;
  return Status::Unimplemented(where + ": this build has no RocksDB to read native keyed state");
#else
  std::vector<flink::RocksDbFile> files;
  auto add = [&](const pb::RocksDbFile& f) -> Status {
    if (f.file_index() >= snapshot.files.size() ||
        snapshot.files[f.file_index()].resolved_path.empty()) {
      return Status::Corruption(where + ": RocksDB file " + f.local_name() + " names file #" +
                                std::to_string(f.file_index()) + ", which cannot be resolved");
    }
    const std::string& path = snapshot.files[f.file_index()].resolved_path;
    flink::RocksDbFile file;
    file.local_name = f.local_name();
    file.source = path;
    CKPT_ASSIGN_OR_RETURN(file.bytes, base::ReadFileToString(fs, path));
    files.push_back(std::move(file));
    return Status::OK();
  };
  for (const auto& f : handle.sst_files()) CKPT_RETURN_IF_ERROR(add(f));
  for (const auto& f : handle.meta_files()) CKPT_RETURN_IF_ERROR(add(f));

  // Column family -> declared state.
  std::map<std::string, uint32_t, std::less<>> state_of_cf;
  for (const auto& [state, cf] : handle.column_families()) {
    for (int i = 0; i < op.states_size(); ++i) {
      if (op.states(i).name() == state) state_of_cf[cf] = static_cast<uint32_t>(i);
    }
  }
  format::rocksdb_layout::ParsedKey pk;
  std::string list_bytes;
  Status st = flink::ReadRocksDbSnapshot(
      files,
      [&](const flink::RocksDbEntry& e) -> Status {
        auto found = state_of_cf.find(e.column_family);
        if (found == state_of_cf.end()) {
          return Status::Corruption("column family '" + std::string(e.column_family) +
                                    "' belongs to no declared state");
        }
        const pb::StateDescriptor& d = op.states(static_cast<int>(found->second));
        if (!format::rocksdb_layout::ParseStateKey(e.key, &pk)) {
          return Status::Corruption("state '" + d.name() +
                                    "': a key is not in the engine's RocksDB key layout");
        }
        KeyedValue v;
        v.state_index = found->second;
        v.key = pk.key;
        v.ns = pk.ns;
        if (d.kind() == pb::STATE_MAP) v.user_key = std::string(pk.user_key);
        if (d.kind() == pb::STATE_LIST) {
          base::Result<format::Value> list =
              format::rocksdb_layout::DecodeListValue(d.value_type(), e.value, d.name());
          if (!list.ok()) return list.status();
          list_bytes.clear();
          CKPT_RETURN_IF_ERROR(
              format::EncodeValue(format::types::List(d.value_type()), *list, &list_bytes));
          v.value = list_bytes;
        } else {
          v.value = std::string(e.value);
        }
        (*out)[pk.key_group].push_back(std::move(v));
        return Status::OK();
      },
      flink::RocksDbListMerge::kConcatenate);
  if (!st.ok()) return st.WithContext(where);
  // Column families come in name order: put each key group's states in declaration order,
  // keeping RocksDB's key order within a state.
  for (auto& [g, values] : *out) {
    std::stable_sort(values.begin(), values.end(), [](const KeyedValue& a, const KeyedValue& b) {
      return a.state_index < b.state_index;
    });
  }
  return Status::OK();
#endif
}

}  // namespace ckpt::ops::internal
