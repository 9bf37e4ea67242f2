#include "ckpt/base/posix_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ckpt::base {

Status ErrnoToStatus(int err, std::string_view what) {
  std::string m(what);
  m += ": ";
  m += std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR: return Status::NotFound(std::move(m));
    case EEXIST: return Status::AlreadyExists(std::move(m));
    case ENOTEMPTY: return Status::FailedPrecondition(std::move(m));
    default: return Status::IOError(std::move(m));
  }
}

namespace {

class PosixFileLock final : public FileLock {
 public:
  PosixFileLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixFileLock() override { ::close(fd_); }  // closing the descriptor releases the flock
  const std::string& path() const override { return path_; }

 private:
  int fd_;
  std::string path_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Result<size_t> ReadAt(uint64_t offset, size_t n, char* scratch) const override {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, scratch + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return ErrnoToStatus(errno, "read " + path_);
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return done;
  }
  uint64_t Size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
};

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override { Close().IgnoreError(); }

  Status Append(std::string_view data) override {
    if (fd_ < 0) return Status::FailedPrecondition("append to closed file " + path_);
    while (!data.empty()) {
      ssize_t w = ::write(fd_, data.data(), data.size());
      if (w < 0) {
        if (errno == EINTR) continue;
        return ErrnoToStatus(errno, "write " + path_);
      }
      data.remove_prefix(static_cast<size_t>(w));
    }
    return Status::OK();
  }
  Status Sync() override {
    if (fd_ >= 0 && ::fdatasync(fd_) != 0) return ErrnoToStatus(errno, "fsync " + path_);
    return Status::OK();
  }
  Status Close() override {
    if (fd_ < 0) return Status::OK();
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return ErrnoToStatus(errno, "close " + path_);
    return Status::OK();
  }
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
};

Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoToStatus(errno, "create " + path);
  return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
}

FileType TypeOf(mode_t mode) {
  if (S_ISREG(mode)) return FileType::kRegular;
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISLNK(mode)) return FileType::kSymlink;
  return FileType::kOther;
}

FileInfo ToInfo(const struct stat& st) {
  FileInfo info;
  info.size_bytes = static_cast<uint64_t>(st.st_size);
  info.mtime_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  info.type = TypeOf(st.st_mode);
  info.is_dir = info.type == FileType::kDirectory;
  return info;
}

// O_NONBLOCK: opening a FIFO without a writer must not wait for one (it is refused right after
// by the type check); it has no effect on regular files. O_NOFOLLOW: a link in a snapshot is
// reported, never read through.
Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path, bool follow_links) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_links ? 0 : O_NOFOLLOW);
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    struct stat lst {};
    if (err == ELOOP && !follow_links && ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
      return Status::FailedPrecondition(path + " is a symbolic link; links are not followed");
    }
    return ErrnoToStatus(err, "open " + path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoToStatus(err, "stat " + path);
  }
  const FileType type = TypeOf(st.st_mode);
  if (type != FileType::kRegular) {
    ::close(fd);
    const char* what = S_ISFIFO(st.st_mode)   ? "FIFO"
                       : S_ISSOCK(st.st_mode) ? "socket"
                       : type == FileType::kOther ? "device"
                                                  : FileTypeName(type);
    return Status::FailedPrecondition(path + " is a " + what + ", not a regular file");
  }
  return std::unique_ptr<RandomAccessFile>(
      new PosixRandomAccessFile(path, fd, static_cast<uint64_t>(st.st_size)));
}

}  // namespace

Fs& Fs::Default() {
  static PosixFs fs;
  return fs;
}

Result<std::unique_ptr<RandomAccessFile>> PosixFs::OpenRead(const std::string& path) {
  return OpenForRead(path, /*follow_links=*/false);
}

Result<std::unique_ptr<RandomAccessFile>> PosixFs::OpenReadFollowingLinks(
    const std::string& path) {
  return OpenForRead(path, /*follow_links=*/true);
}

Result<std::unique_ptr<WritableFile>> PosixFs::OpenWrite(const std::string& path) {
  return OpenForWrite(path, O_TRUNC);
}

Result<std::unique_ptr<WritableFile>> PosixFs::OpenWriteExclusive(const std::string& path) {
  return OpenForWrite(path, O_EXCL);
}

Status PosixFs::Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return ErrnoToStatus(errno, "rename " + from + " to " + to);
  }
  return Status::OK();
}

Status PosixFs::HardLink(const std::string& existing, const std::string& link) {
  CKPT_ASSIGN_OR_RETURN(FileInfo info, LinkStat(existing));
  if (info.type != FileType::kRegular) {
    return Status::FailedPrecondition("cannot link " + link + " to " + existing + ": it is a " +
                                      FileTypeName(info.type) + ", not a regular file");
  }
  // Flags 0: a symbolic link at `existing` would be linked itself, never followed (and was
  // refused above).
  if (::linkat(AT_FDCWD, existing.c_str(), AT_FDCWD, link.c_str(), 0) != 0) {
    const int err = errno;
    if (err == EXDEV || err == EPERM || err == EOPNOTSUPP || err == EMLINK) {
      return Status::Unimplemented("cannot link " + link + " to " + existing + ": " +
                                   std::strerror(err));
    }
    return ErrnoToStatus(err, "link " + link + " to " + existing);
  }
  return Status::OK();
}

Status PosixFs::SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoToStatus(errno, "open directory " + dir);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoToStatus(err, "fsync directory " + dir);
  return Status::OK();
}

Status PosixFs::CreateDirs(const std::string& dir) {
  if (dir.empty()) return Status::OK();
  std::string partial;
  size_t pos = 0;
  while (pos <= dir.size()) {
    size_t next = dir.find('/', pos);
    if (next == std::string::npos) next = dir.size();
    partial = dir.substr(0, next);
    if (!partial.empty() && ::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoToStatus(errno, "mkdir " + partial);
    }
    pos = next + 1;
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return ErrnoToStatus(errno, "mkdir " + dir);
  if (!S_ISDIR(st.st_mode)) return Status::AlreadyExists(dir + " exists and is not a directory");
  return Status::OK();
}

Status PosixFs::RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) return ErrnoToStatus(errno, "remove " + path);
  return Status::OK();
}

Status PosixFs::RemoveDir(const std::string& path) {
  if (::rmdir(path.c_str()) != 0) return ErrnoToStatus(errno, "remove directory " + path);
  return Status::OK();
}

Result<std::vector<DirEntry>> PosixFs::ListDir(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return ErrnoToStatus(errno, "list " + dir);
  std::vector<DirEntry> out;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    FileType type = FileType::kOther;
    switch (e->d_type) {
      case DT_REG: type = FileType::kRegular; break;
      case DT_DIR: type = FileType::kDirectory; break;
      case DT_LNK: type = FileType::kSymlink; break;
      case DT_UNKNOWN: {
        struct stat st {};
        type = ::lstat(JoinPath(dir, name).c_str(), &st) == 0 ? TypeOf(st.st_mode)
                                                               : FileType::kRegular;
        break;
      }
      default: break;
    }
    const bool is_dir = type == FileType::kDirectory;
    out.push_back({std::move(name), is_dir, type});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

Result<FileInfo> PosixFs::Stat(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ErrnoToStatus(errno, "stat " + path);
  return ToInfo(st);
}

Result<FileInfo> PosixFs::LinkStat(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return ErrnoToStatus(errno, "stat " + path);
  return ToInfo(st);
}

Result<std::unique_ptr<FileLock>> PosixFs::TryLockFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return ErrnoToStatus(errno, "open lock file " + path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::FailedPrecondition(path + " is locked by another process");
    }
    return ErrnoToStatus(err, "flock " + path);
  }
  return std::unique_ptr<FileLock>(std::make_unique<PosixFileLock>(fd, path));
}

bool PosixFs::SupportsLocks() const { return true; }

}  // namespace ckpt::base
