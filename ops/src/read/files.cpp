// files: the file table with owners, existence and who references each file.
#include "ckpt/ops/files.h"

#include <algorithm>
#include <map>

#include "ckpt/format/layout.h"
#include "model/file_fs.h"

namespace ckpt::ops {
namespace {

// Path of a file as seen from the snapshot directory: "x" (exclusive), "../shared/x" (shared),
// "../taskowned/x" (task-owned), the absolute path (external).
std::string LocationFromSnapshot(const SnapshotFile& f) {
  switch (f.scope) {
    case FileScope::kExclusive: return f.path;
    case FileScope::kShared: return "../" + std::string(format::kSharedDirName) + "/" + f.path;
    case FileScope::kTaskOwned:
      return "../" + std::string(format::kTaskOwnedDirName) + "/" + f.path;
    case FileScope::kExternal: return f.path;
    case FileScope::kUnspecified: break;
  }
  return f.path;
}

std::string Owner(const SnapshotFile& f) {
  switch (f.scope) {
    case FileScope::kShared:
      // A creator of 0 is not recorded: never "chk-0".
      return f.created_by_checkpoint_id != 0
                 ? "shared (chk-" + std::to_string(f.created_by_checkpoint_id) + ")"
                 : "shared";
    default: return std::string(FileScopeName(f.scope));
  }
}

}  // namespace

base::Result<std::vector<FileRow>> ListFiles(base::Fs& fs, const Snapshot& snapshot) {
  std::map<uint32_t, std::vector<std::string>> refs;
  for (const auto& op : snapshot.operators) {
    const std::string who = op.uid.empty() ? op.id_hex : op.uid;
    for (const auto& st : op.subtasks) {
      std::vector<uint32_t> files;
      for (const auto& k : st.keyed) files.insert(files.end(), k.file_indexes.begin(), k.file_indexes.end());
      for (const auto& h : st.operator_state) files.push_back(h.file_index);
      for (const auto& c : st.channels) files.insert(files.end(), c.file_indexes.begin(), c.file_indexes.end());
      std::sort(files.begin(), files.end());
      files.erase(std::unique(files.begin(), files.end()), files.end());
      for (uint32_t f : files) refs[f].push_back(who + "/" + std::to_string(st.index));
    }
    if (op.coordinator && op.coordinator->file_index) {
      refs[*op.coordinator->file_index].push_back(who + "/coordinator");
    }
  }
  std::vector<FileRow> rows;
  for (const auto& f : snapshot.files) {
    FileRow r;
    r.index = f.index;
    r.path = f.path;
    r.location = LocationFromSnapshot(f);
    r.scope = f.scope;
    r.kind = f.kind;
    r.owner = Owner(f);
    r.size_bytes = f.size_bytes;
    r.checksum_xxh3 = f.checksum_xxh3;
    r.created_by_checkpoint_id = f.created_by_checkpoint_id;
    if (!f.resolved_path.empty()) {
      auto info = FsOfSnapshotFile(fs, snapshot.dir, f.resolved_path).Stat(f.resolved_path);
      if (info.ok() && !info->is_dir) {
        r.exists = true;
        r.actual_size = static_cast<int64_t>(info->size_bytes);
      } else if (!info.ok() && !info.status().IsNotFound()) {
        return info.status().WithContext("files of " + snapshot.metadata_path);
      }
    }
    auto it = refs.find(f.index);
    if (it != refs.end()) r.referenced_by = it->second;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace ckpt::ops
