// FaultInjectionFs: wraps another Fs and fails chosen mutating operations, for crash-safety tests.
// Mutating operations (OpenWrite*, Append, Sync, Close, Rename, SyncDir, CreateDirs, Remove*) are
// counted in order; reads are never failed. Thread-safe.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "ckpt/base/fs.h"

namespace ckpt::base {

class FaultInjectionFs final : public Fs {
 public:
  explicit FaultInjectionFs(Fs& target) : target_(target) {}

  // After `n` successful mutating operations, every further one fails with IOError, as if the
  // process had died at that point (nothing after it reaches the disk). -1 disables.
  void CrashAfter(int64_t n) { crash_after_ = n; }
  // Fails only the mutating operation with this (0-based) sequence number. -1 disables.
  void FailOperation(int64_t n) { fail_op_ = n; }
  // Appends to files whose path contains `needle` keep only the first half of their bytes
  // (a torn write) and report success.
  void TruncateWritesTo(std::string needle);
  // Mutating operations attempted so far (including failed ones).
  int64_t operations() const { return ops_.load(); }
  bool crashed() const { return crashed_.load(); }

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWriteExclusive(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& dir) override;
  Status CreateDirs(const std::string& dir) override;
  Status RemoveFile(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  Result<std::vector<DirEntry>> ListDir(const std::string& dir) override;
  Result<FileInfo> Stat(const std::string& path) override;
  // Never failed: a lock is not a write.
  Result<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override;

  // Used by the wrapped files: returns IOError if operation `what` must fail.
  Status Admit(std::string_view what);
  bool ShouldTruncate(const std::string& path);

 private:
  Fs& target_;
  std::atomic<int64_t> ops_{0};
  std::atomic<int64_t> crash_after_{-1};
  std::atomic<int64_t> fail_op_{-1};
  std::atomic<bool> crashed_{false};
  std::mutex mu_;
  std::string truncate_needle_;
};

}  // namespace ckpt::base
