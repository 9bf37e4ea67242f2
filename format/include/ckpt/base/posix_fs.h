// PosixFs: Fs over POSIX calls. Stateless and thread-safe. errno is converted to Status here
// and nowhere else; every message names the path.
#pragma once

#include "ckpt/base/fs.h"

namespace ckpt::base {

class PosixFs final : public Fs {
 public:
  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) override;
  Result<std::unique_ptr<RandomAccessFile>> OpenReadFollowingLinks(
      const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWriteExclusive(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& dir) override;
  Status CreateDirs(const std::string& dir) override;
  Status RemoveFile(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  Result<std::vector<DirEntry>> ListDir(const std::string& dir) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<FileInfo> LinkStat(const std::string& path) override;
  Status HardLink(const std::string& existing, const std::string& link) override;
  Result<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override;
  // flock(2): true.
  bool SupportsLocks() const override;
  // PublishAtomic and PublishDir: Fs's defaults (tmp file, fsync, rename, fsync directory).
};

// Converts an errno value into a Status naming `what` (usually "open <path>").
Status ErrnoToStatus(int err, std::string_view what);

}  // namespace ckpt::base
