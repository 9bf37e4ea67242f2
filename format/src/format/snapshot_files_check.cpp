#include "ckpt/format/snapshot_files_check.h"

#include "ckpt/base/checksum.h"
#include "ckpt/format/layout.h"

namespace ckpt::format {
namespace {

std::string SizeMismatch(const ExpectedFile& f, uint64_t actual) {
  return f.shown + " has " + std::to_string(actual) + " bytes, the metadata records " +
         (f.size_is_lower_bound ? "at least " : "") + std::to_string(f.size_bytes);
}

base::Status CheckChecksum(base::Fs& fs, const ExpectedFile& f, std::string* buffer) {
  base::Result<std::unique_ptr<base::RandomAccessFile>> file = fs.OpenRead(f.path);
  if (!file.ok()) {
    if (file.status().IsNotFound()) return base::Status::NotFound("missing " + f.shown);
    if (file.status().code() == base::StatusCode::kFailedPrecondition) {
      return base::Status::Corruption(f.shown + ": " + file.status().message());
    }
    return file.status();
  }
  CKPT_ASSIGN_OR_RETURN(base::FileDigest d, base::Xxh3OfFile(**file, buffer));
  if (!d.complete) {
    return base::Status::Corruption(f.shown + " ends at byte " + std::to_string(d.bytes) +
                                    " while it is read, the metadata records " +
                                    std::to_string(f.size_bytes) + " bytes");
  }
  if (d.checksum != *f.checksum_xxh3) {
    return base::Status::Corruption(f.shown + ": XXH3 is " + base::ChecksumHex(d.checksum) +
                                    ", the metadata records " +
                                    base::ChecksumHex(*f.checksum_xxh3));
  }
  return base::Status::OK();
}

}  // namespace

base::Result<std::vector<ExpectedFile>> ExpectedFilesOf(const std::string& snapshot_dir,
                                                        const pb::CheckpointMetadata& md) {
  std::vector<ExpectedFile> out;
  out.reserve(static_cast<size_t>(md.files_size()));
  for (const pb::FileEntry& f : md.files()) {
    if (f.scope() == pb::EXTERNAL) continue;
    CKPT_ASSIGN_OR_RETURN(std::string path, ResolveFile(snapshot_dir, f));
    ExpectedFile e;
    e.path = std::move(path);
    e.shown = f.path();
    if (f.scope() == pb::SHARED) e.shown = std::string(kSharedDirName) + "/" + f.path();
    if (f.scope() == pb::TASK_OWNED) e.shown = std::string(kTaskOwnedDirName) + "/" + f.path();
    e.size_bytes = f.size_bytes();
    e.checksum_xxh3 = f.checksum_xxh3();
    out.push_back(std::move(e));
  }
  return out;
}

base::Status CheckExpectedFiles(base::Fs& fs, const std::vector<ExpectedFile>& files,
                                const FilesCheckOptions& options) {
  std::string buffer;
  for (const ExpectedFile& f : files) {
    base::Result<base::FileInfo> info = fs.Stat(f.path);
    if (!info.ok()) {
      if (info.status().IsNotFound()) return base::Status::NotFound("missing " + f.shown);
      return info.status();
    }
    if (info->is_dir) return base::Status::Corruption(f.shown + " is a directory, not a file");
    const bool size_ok = f.size_is_lower_bound ? info->size_bytes >= f.size_bytes
                                               : info->size_bytes == f.size_bytes;
    if (!size_ok) return base::Status::Corruption(SizeMismatch(f, info->size_bytes));
    if (options.verify_checksums && f.checksum_xxh3) {
      CKPT_RETURN_IF_ERROR(CheckChecksum(fs, f, &buffer));
    }
  }
  return base::Status::OK();
}

base::Status CheckSnapshotFiles(base::Fs& fs, const std::string& snapshot_dir,
                                const pb::CheckpointMetadata& md,
                                const FilesCheckOptions& options) {
  CKPT_ASSIGN_OR_RETURN(std::vector<ExpectedFile> files, ExpectedFilesOf(snapshot_dir, md));
  return CheckExpectedFiles(fs, files, options);
}

}  // namespace ckpt::format
