// Fs: the filesystem seam. Every byte the project reads or writes goes through it, so tests can
// inject faults (FaultInjectionFs) and a later object-store backend fits. Implementations are
// thread-safe; file objects are used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"

namespace ckpt::base {

// A file opened for positional reads.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to `n` bytes at `offset` into `scratch`; returns the count read (short only at EOF).
  // IOError on failure.
  virtual Result<size_t> ReadAt(uint64_t offset, size_t n, char* scratch) const = 0;
  // The file's size in bytes when it was opened.
  virtual uint64_t Size() const = 0;
  virtual const std::string& path() const = 0;
};

// A file opened for sequential appends. Close() must be called; data is durable only after Sync().
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Status Append(std::string_view data) = 0;
  virtual Status Sync() = 0;   // fsync
  virtual Status Close() = 0;  // idempotent
  virtual const std::string& path() const = 0;
};

// An exclusive advisory lock on a file, held until this object is destroyed (flock(2) on POSIX:
// released by the kernel when the process dies, so a kill -9 never leaves a stale lock).
class FileLock {
 public:
  virtual ~FileLock() = default;
  virtual const std::string& path() const = 0;
};

// What a directory entry is. kOther: a FIFO, socket or device.
enum class FileType { kRegular, kDirectory, kSymlink, kOther };

// "regular file", "directory", "symbolic link", "FIFO, socket or device".
const char* FileTypeName(FileType type);

struct FileInfo {
  uint64_t size_bytes = 0;
  int64_t mtime_ms = 0;  // modification time, ms since the Unix epoch
  bool is_dir = false;
  // Stat: the type of what `path` names after following links (never kSymlink); LinkStat: of
  // the entry itself.
  FileType type = FileType::kRegular;
};

struct DirEntry {
  std::string name;  // a single path component
  bool is_dir = false;  // a directory (a symbolic link to one is not)
  FileType type = FileType::kRegular;  // the entry itself: links are not followed
};

class Fs {
 public:
  virtual ~Fs() = default;

  // The process-wide POSIX filesystem.
  static Fs& Default();

  // Opens a regular file for reading. A symbolic link as the last path component is not
  // followed, and a FIFO, socket or device is refused without blocking: a snapshot's files must
  // be its own regular files (a FIFO would hang the reader, a link could read /etc/passwd).
  // NotFound if `path` does not exist; FailedPrecondition if it is a symbolic link or not a
  // regular file (the message names the path and what it is); IOError otherwise on failure.
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) = 0;
  // As OpenRead, but follows symbolic links: for files a user names on the command line or in a
  // job spec (a job spec mounted as a link), never for files a snapshot references. Still refuses
  // FIFOs, sockets and devices (FailedPrecondition). Default: OpenRead.
  virtual Result<std::unique_ptr<RandomAccessFile>> OpenReadFollowingLinks(
      const std::string& path);
  // Creates or truncates `path`. IOError on failure (NotFound if the directory is missing).
  virtual Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) = 0;
  // Creates `path` only if absent: AlreadyExists otherwise.
  virtual Result<std::unique_ptr<WritableFile>> OpenWriteExclusive(const std::string& path) = 0;
  // Atomically replaces `to` with `from` (rename(2)).
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Gives the regular file `existing` a second name `link` (link(2); a symbolic link is never
  // followed): the bytes are shared, not copied, and `link` needs no fsync of its own, only one
  // of its directory. For writing a snapshot whose immutable files are the same as another's.
  // AlreadyExists if `link` exists; NotFound if `existing` does not; FailedPrecondition if
  // `existing` is not a regular file; Unimplemented where this filesystem cannot share a
  // file's bytes between two names (the default; on POSIX: across filesystems or where the
  // filesystem has no hard links): copy the bytes instead. IOError otherwise.
  virtual Status HardLink(const std::string& existing, const std::string& link);
  // fsyncs a directory so renames and creations in it are durable.
  virtual Status SyncDir(const std::string& dir) = 0;
  // mkdir -p.
  virtual Status CreateDirs(const std::string& dir) = 0;
  // Removes a file; NotFound if absent.
  virtual Status RemoveFile(const std::string& path) = 0;
  // Removes an empty directory; NotFound if absent, FailedPrecondition if not empty.
  virtual Status RemoveDir(const std::string& path) = 0;
  // Entries of `dir` sorted by name, without "." and "..".
  virtual Result<std::vector<DirEntry>> ListDir(const std::string& dir) = 0;
  // Follows symbolic links. NotFound if absent.
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  // As Stat, but describes a symbolic link itself (lstat(2)). Default: Stat (for filesystems
  // without links).
  virtual Result<FileInfo> LinkStat(const std::string& path);
  // Takes an exclusive lock on `path` (created if missing, its directory must exist) without
  // waiting. FailedPrecondition if another holder (another process, or another FileLock of this
  // process) has it; NotFound if the directory is missing; IOError otherwise. Unimplemented on a
  // filesystem without locks (the default).
  virtual Result<std::unique_ptr<FileLock>> TryLockFile(const std::string& path);
  // Whether TryLockFile works here, i.e. whether this filesystem can prove that no other process
  // (a running engine) holds a job directory. Callers that must not race a running job (prune,
  // the engine taking its job directory) refuse with FailedPrecondition when it is false instead
  // of assuming nobody runs. Default: false (as TryLockFile's default); PosixFs: true; wrappers
  // answer for what they wrap.
  virtual bool SupportsLocks() const;

  // Publishes `bytes` as the file `path` so that a reader sees either the old file (or none) or
  // all of `bytes`, and `path` survives a crash once this returns OK. Replaces an existing
  // `path`; its directory must exist. For `_metadata`, reference files and markers.
  // The default composes the primitive steps, each through this Fs's own virtual calls (so a
  // wrapper such as FaultInjectionFs sees and can fail every one): OpenWriteExclusive of
  // `<path>.tmp-<random>`, Append, Sync, Close, Rename onto `path`, SyncDir of its directory;
  // the temporary file is removed when a step before the rename's success fails. An object
  // store overrides it with a single conditional put. Errors: those of the failing step.
  virtual Status PublishAtomic(const std::string& path, std::string_view bytes);
  // Publishes the finished directory `tmp_dir` (every file in it already durable) under the
  // name `final_dir`, which must not exist, in one step: readers see all of it or nothing.
  // `tmp_dir` and `final_dir` are siblings. For the outputs of relocate, remap and rescale.
  // The default: Rename(tmp_dir, final_dir), then SyncDir of final_dir's parent, each through
  // this Fs's virtual calls. Errors: those of the failing step (on POSIX the rename fails
  // when `final_dir` exists and is not empty).
  virtual Status PublishDir(const std::string& tmp_dir, const std::string& final_dir);
};

// Reads a whole file (OpenRead: no symbolic links, regular files only). Corruption-safe:
// refuses files larger than `max_bytes` (InvalidArgument).
Result<std::string> ReadFileToString(Fs& fs, const std::string& path,
                                     uint64_t max_bytes = uint64_t{1} << 32);
// As ReadFileToString, through OpenReadFollowingLinks: for files a user names.
Result<std::string> ReadUserFileToString(Fs& fs, const std::string& path,
                                         uint64_t max_bytes = uint64_t{1} << 32);

// Writes `data` to `path` atomically: fs.PublishAtomic(path, data) (on POSIX
// `<path>.tmp-<random>`, fsync, rename, fsync directory). A reader never sees a partial file.
// Replaces an existing `path`.
Status WriteFileAtomic(Fs& fs, const std::string& path, std::string_view data);

// Removes `path` and everything below it. OK if it does not exist. A symbolic link is removed
// itself, never followed (the directory it points to is left alone).
Status RemoveAll(Fs& fs, const std::string& path);

// Path helpers (pure string functions, '/' separated).
std::string JoinPath(std::string_view a, std::string_view b);
std::string DirName(std::string_view path);   // "a/b/c" -> "a/b"; "c" -> "."
std::string BaseName(std::string_view path);  // "a/b/c" -> "c"

}  // namespace ckpt::base
