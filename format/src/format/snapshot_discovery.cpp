// DiscoverSnapshots: the breadth-first walk whose rules snapshot_discovery.h documents.
#include "ckpt/format/snapshot_discovery.h"

#include <algorithm>
#include <deque>

#include "ckpt/format/layout.h"

namespace ckpt::format {
namespace {

bool IsJobIdName(std::string_view name) {
  if (name.size() != 32) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool Skipped(std::string_view name) {
  return name == kSharedDirName || name == kTaskOwnedDirName || name.empty() ||
         name.front() == '.' || (name.size() > 4 && name.substr(name.size() - 4) == ".tmp");
}

base::Result<bool> HasMetadata(base::Fs& fs, const std::string& dir) {
  auto info = fs.Stat(base::JoinPath(dir, kMetadataFileName));
  if (info.ok()) return !info->is_dir;
  if (info.status().IsNotFound()) return false;
  return info.status();
}

std::string Join(const std::string& rel, const std::string& name) {
  return rel.empty() ? name : rel + "/" + name;
}

}  // namespace

base::Result<std::vector<DiscoveredSnapshot>> DiscoverSnapshots(base::Fs& fs,
                                                                const std::string& root,
                                                                const DiscoveryOptions& options) {
  CKPT_ASSIGN_OR_RETURN(base::FileInfo info, fs.Stat(root));
  if (!info.is_dir) return base::Status::InvalidArgument(root + " is not a directory");
  std::vector<DiscoveredSnapshot> out;
  CKPT_ASSIGN_OR_RETURN(bool root_is_snapshot, HasMetadata(fs, root));
  if (root_is_snapshot) {
    DiscoveredSnapshot s;
    s.dir = root;
    s.has_metadata = true;
    if (auto id = ParseCheckpointDirName(base::BaseName(root))) s.checkpoint_id = *id;
    out.push_back(std::move(s));
    return out;
  }
  struct Pending {
    std::string rel;
    uint32_t depth;
  };
  std::deque<Pending> queue{{"", 0}};
  while (!queue.empty()) {
    Pending p = std::move(queue.front());
    queue.pop_front();
    const std::string dir = p.rel.empty() ? root : base::JoinPath(root, p.rel);
    auto listed = fs.ListDir(dir);
    if (!listed.ok()) return listed.status().WithContext("discovering snapshots under " + root);
    std::vector<base::DirEntry> entries = std::move(listed).value();
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    for (const auto& e : entries) {
      if (!e.is_dir || Skipped(e.name)) continue;
      const std::string rel = Join(p.rel, e.name);
      const std::string child = base::JoinPath(root, rel);
      CKPT_ASSIGN_OR_RETURN(bool has_metadata, HasMetadata(fs, child));
      const std::optional<int64_t> id = ParseCheckpointDirName(e.name);
      if (has_metadata || id || IsSavepointDirName(e.name)) {
        DiscoveredSnapshot s;
        s.rel = rel;
        s.dir = child;
        s.has_metadata = has_metadata;
        s.checkpoint_id = id;
        if (id) {
          s.job_rel = p.rel;
          std::string_view root_name = root;
          while (root_name.size() > 1 && root_name.back() == '/') root_name.remove_suffix(1);
          const std::string job_name =
              p.rel.empty() ? base::BaseName(root_name) : base::BaseName(p.rel);
          if (IsJobIdName(job_name)) s.job_id_hex = job_name;
        }
        out.push_back(std::move(s));
        continue;
      }
      if (p.depth + 1 < options.max_depth) queue.push_back({rel, p.depth + 1});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const DiscoveredSnapshot& a, const DiscoveredSnapshot& b) { return a.rel < b.rel; });
  return out;
}

}  // namespace ckpt::format
