// FaultInjectionFs: wraps another Fs and fails chosen mutating operations, for crash-safety tests.
// Mutating operations (OpenWrite*, Append, Sync, Close, Rename, HardLink, SyncDir, CreateDirs,
// Remove*, also each step of PublishAtomic and PublishDir) are counted in order; reads are never
// failed. It also remembers what is not yet durable, so that DropUnsyncedData() can turn "the
// process died here" into "the machine lost power here", as LevelDB's FaultInjectionTestEnv
// does. Thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

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
  // Makes the wrapped filesystem look as after a power loss now: every file written through this
  // Fs is cut back to what its last Sync() made durable, and every directory change (a file or
  // directory created, renamed or removed) not followed by a SyncDir() of its directory (both
  // directories for a rename) is undone, newest first: created entries disappear, a rename is
  // reversed and the file it replaced comes back, removed files come back with their content,
  // removed directories come back. Works through the wrapped Fs (not counted, never failed);
  // forgets what it tracked. Call it after the operation under test returned. IOError if the
  // wrapped Fs fails while undoing.
  Status DropUnsyncedData();

  // Mutating operations attempted so far (including failed ones).
  int64_t operations() const { return ops_.load(); }
  bool crashed() const { return crashed_.load(); }

  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) override;
  Result<std::unique_ptr<RandomAccessFile>> OpenReadFollowingLinks(
      const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenWriteExclusive(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status HardLink(const std::string& existing, const std::string& link) override;
  Status SyncDir(const std::string& dir) override;
  Status CreateDirs(const std::string& dir) override;
  Status RemoveFile(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  Result<std::vector<DirEntry>> ListDir(const std::string& dir) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<FileInfo> LinkStat(const std::string& path) override;
  // Never failed: a lock is not a write.
  Result<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override;
  // What the wrapped Fs answers.
  bool SupportsLocks() const override;
  // PublishAtomic and PublishDir are deliberately not overridden: Fs's defaults run their
  // primitive steps through this wrapper, so each one is counted, can be failed, and is
  // journalled for DropUnsyncedData().

  // Used by the wrapped files: returns IOError if operation `what` must fail.
  Status Admit(std::string_view what);
  bool ShouldTruncate(const std::string& path);
  void NoteAppend(const std::string& path, uint64_t bytes);
  void NoteSync(const std::string& path);

 private:
  Fs& target_;
  std::atomic<int64_t> ops_{0};
  std::atomic<int64_t> crash_after_{-1};
  std::atomic<int64_t> fail_op_{-1};
  std::atomic<bool> crashed_{false};
  // A directory change that is not durable until every directory in `dirs` was synced.
  struct DirChange {
    enum class Kind { kCreateFile, kCreateDir, kRename, kRemoveFile, kRemoveDir } kind;
    std::string path;                  // the new, renamed-to or removed entry
    std::string from;                  // kRename: the old name
    std::optional<std::string> saved;  // content of a removed file or of a replaced rename target
    std::set<std::string> dirs;        // still to be synced
  };
  struct FileData {
    uint64_t size = 0;    // bytes appended through this Fs
    uint64_t synced = 0;  // of which durable
  };
  void Journal(DirChange change);
  void Track(const std::string& path, bool existed);
  std::optional<std::string> ContentOf(const std::string& path);

  std::mutex mu_;
  std::string truncate_needle_;
  std::vector<DirChange> journal_;
  std::map<std::string, FileData> files_;
};

}  // namespace ckpt::base
