#include "rewrite/prune_uploads.h"

#include <algorithm>

#include "ckpt/format/layout.h"

namespace ckpt::ops::internal {
namespace {

// The first path component of `rel` ("chk-3" for "chk-3/a/b").
std::string_view FirstComponent(std::string_view rel) {
  return rel.substr(0, std::min(rel.size(), rel.find('/')));
}

bool IsCheckpointStorage(std::string_view dir) {
  return dir == format::kSharedDirName || dir == format::kTaskOwnedDirName ||
         (dir.size() > format::kCheckpointDirPrefix.size() &&
          dir.substr(0, format::kCheckpointDirPrefix.size()) == format::kCheckpointDirPrefix);
}

void Place(const ScannedRoot& scan, PlacedUpload* u) {
  size_t best = 0;
  for (size_t i = 0; i < scan.jobs.size(); ++i) {
    const std::string& job = scan.jobs[i].rel;
    bool inside = job.empty() || (u->rel.size() > job.size() + 1 &&
                                  u->rel.compare(0, job.size(), job) == 0 &&
                                  u->rel[job.size()] == '/');
    if (inside && (u->job < 0 || job.size() > best)) {
      u->job = static_cast<int>(i);
      best = job.size();
    }
  }
  if (u->job < 0) return;
  const std::string& job = scan.jobs[u->job].rel;
  std::string_view inner = std::string_view(u->rel).substr(job.empty() ? 0 : job.size() + 1);
  u->in_checkpoint_storage = inner.find('/') != std::string_view::npos &&
                             IsCheckpointStorage(FirstComponent(inner));
}

}  // namespace

OpenUploads ListOpenUploads(const ScannedRoot& scan) {
  OpenUploads out;
  if (!base::HasRecoverableWriter(scan.abs_root)) return out;
  base::Result<base::RecoverableWriter*> writer = base::RecoverableWriterFor(scan.abs_root);
  if (!writer.ok()) {
    out.listing_error = writer.status().message();
    return out;
  }
  const std::string prefix = scan.abs_root + "/";
  base::Result<std::vector<base::OpenUpload>> open = (*writer)->ListOpen(prefix);
  if (!open.ok()) {
    out.listing_error = open.status().message();
    return out;
  }
  for (base::OpenUpload& upload : *open) {
    if (upload.location.compare(0, prefix.size(), prefix) != 0) continue;
    PlacedUpload u;
    u.rel = upload.location.substr(prefix.size());
    u.upload = std::move(upload);
    Place(scan, &u);
    out.uploads.push_back(std::move(u));
  }
  std::sort(out.uploads.begin(), out.uploads.end(), [](const auto& a, const auto& b) {
    return a.rel != b.rel ? a.rel < b.rel : a.upload.upload_id < b.upload.upload_id;
  });
  return out;
}

}  // namespace ckpt::ops::internal
