#include "ckpt/format/layout.h"

#include "ckpt/base/fs.h"

namespace ckpt::format {
namespace {

bool IsLowerHex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string_view StripTrailingSlashes(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  return p;
}

// Corruption unless every '/'-separated component of `rest` is a plain name.
base::Status CheckComponents(std::string_view full, std::string_view rest) {
  size_t start = 0;
  while (true) {
    size_t slash = rest.find('/', start);
    std::string_view comp =
        rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (comp.empty() || comp == "." || comp == "..") {
      return base::Status::Corruption("file reference '" + std::string(full) +
                                      "' has a component \"" + std::string(comp) +
                                      "\"; a reference may not escape its directory");
    }
    if (slash == std::string_view::npos) return base::Status::OK();
    start = slash + 1;
  }
}

}  // namespace

std::string JobDir(std::string_view checkpoint_root, std::string_view job_id_hex) {
  return base::JoinPath(checkpoint_root, job_id_hex);
}

std::string CheckpointDir(std::string_view job_dir, int64_t checkpoint_id) {
  return base::JoinPath(job_dir, std::string(kCheckpointDirPrefix) + std::to_string(checkpoint_id));
}

std::optional<int64_t> ParseCheckpointDirName(std::string_view name) {
  if (name.substr(0, kCheckpointDirPrefix.size()) != kCheckpointDirPrefix) return std::nullopt;
  std::string_view digits = name.substr(kCheckpointDirPrefix.size());
  // 18 digits always fit in int64; leading zeros are refused so each id has one directory name.
  if (digits.empty() || digits.size() > 18 || (digits.size() > 1 && digits[0] == '0')) {
    return std::nullopt;
  }
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::string NewSavepointDirName(std::string_view job_id_hex, std::mt19937_64& rng) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string name(kSavepointDirPrefix);
  name.append(job_id_hex.substr(0, 6));
  name.push_back('-');
  uint64_t r = rng();
  for (int i = 0; i < 12; ++i) name.push_back(kDigits[(r >> (4 * (11 - i))) & 0xf]);
  return name;
}

bool IsSavepointDirName(std::string_view name) {
  if (name.substr(0, kSavepointDirPrefix.size()) != kSavepointDirPrefix) return false;
  std::string_view rest = name.substr(kSavepointDirPrefix.size());
  return rest.size() == 6 + 1 + 12 && rest[6] == '-' && IsLowerHex(rest.substr(0, 6)) &&
         IsLowerHex(rest.substr(7));
}

base::Result<std::string> JobIdHex(std::string_view job_id_bytes) {
  if (job_id_bytes.size() != 16) {
    return base::Status::Corruption("job id has " + std::to_string(job_id_bytes.size()) +
                                    " bytes, expected 16");
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : job_id_bytes) {
    auto b = static_cast<uint8_t>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

base::Status CheckRelativePath(std::string_view path) {
  if (path.empty()) return base::Status::Corruption("file reference is empty");
  if (path.find('\0') != std::string_view::npos) {
    return base::Status::Corruption("file reference contains a NUL byte");
  }
  if (path[0] == '/') {
    return base::Status::Corruption("file reference '" + std::string(path) +
                                    "' is absolute; only EXTERNAL files may be");
  }
  return CheckComponents(path, path);
}

base::Result<std::string> ResolveFile(std::string_view snapshot_dir, const pb::FileEntry& file) {
  return ResolveFile(snapshot_dir, file.scope(), file.path());
}

base::Result<std::string> ResolveFile(std::string_view snapshot_dir, pb::FileScope scope,
                                      std::string_view p) {
  std::string_view dir = StripTrailingSlashes(snapshot_dir);
  switch (scope) {
    case pb::EXCLUSIVE:
      CKPT_RETURN_IF_ERROR(CheckRelativePath(p));
      return base::JoinPath(dir, p);
    case pb::SHARED:
      CKPT_RETURN_IF_ERROR(CheckRelativePath(p));
      return base::JoinPath(base::JoinPath(base::DirName(dir), kSharedDirName), p);
    case pb::TASK_OWNED:
      CKPT_RETURN_IF_ERROR(CheckRelativePath(p));
      return base::JoinPath(base::JoinPath(base::DirName(dir), kTaskOwnedDirName), p);
    case pb::EXTERNAL:
      if (p.empty() || p[0] != '/') {
        return base::Status::Corruption("EXTERNAL file reference '" + std::string(p) +
                                        "' is not absolute");
      }
      if (p.find('\0') != std::string_view::npos) {
        return base::Status::Corruption("file reference contains a NUL byte");
      }
      if (p.size() == 1) return base::Status::Corruption("EXTERNAL file reference is '/'");
      CKPT_RETURN_IF_ERROR(CheckComponents(p, p.substr(1)));
      return std::string(p);
    default:
      return base::Status::Corruption("file reference '" + std::string(p) + "' has unknown scope " +
                                      std::to_string(static_cast<int>(scope)));
  }
}

base::Result<SnapshotLocation> LocateSnapshot(base::Fs& fs, const std::string& user_path) {
  auto info = fs.Stat(user_path);
  if (!info.ok()) {
    if (info.status().IsNotFound()) {
      return base::Status::NotFound(user_path + " does not exist");
    }
    return info.status();
  }
  SnapshotLocation loc;
  if (!info->is_dir) {
    loc.metadata = user_path;
    loc.dir = base::DirName(user_path);
    return loc;
  }
  loc.dir = std::string(StripTrailingSlashes(user_path));
  loc.metadata = base::JoinPath(loc.dir, kMetadataFileName);
  auto meta = fs.Stat(loc.metadata);
  if (meta.ok() && !meta->is_dir) return loc;
  if (!meta.ok() && !meta.status().IsNotFound()) return meta.status();
  // Point the user at the snapshots when they gave a job directory.
  auto entries = fs.ListDir(loc.dir);
  if (entries.ok()) {
    std::string newest;
    int64_t newest_id = -1;
    for (const auto& e : *entries) {
      auto id = ParseCheckpointDirName(e.name);
      if (e.is_dir && id && *id > newest_id) {
        newest_id = *id;
        newest = e.name;
      }
    }
    if (newest_id >= 0) {
      return base::Status::NotFound(loc.dir + " has no _metadata: it looks like a job directory; " +
                                    "give one of its checkpoints, e.g. " +
                                    base::JoinPath(loc.dir, newest));
    }
  }
  return base::Status::NotFound(loc.dir +
                                " has no _metadata: it is an incomplete checkpoint, not restorable");
}

}  // namespace ckpt::format
