#include "ckpt/base/fs.h"

#include <random>

#include "ckpt/base/checksum.h"

namespace ckpt::base {

Result<std::unique_ptr<FileLock>> Fs::TryLockFile(const std::string& path) {
  return Status::Unimplemented("this filesystem has no file locks (locking " + path + ")");
}

const char* FileTypeName(FileType type) {
  switch (type) {
    case FileType::kRegular: return "regular file";
    case FileType::kDirectory: return "directory";
    case FileType::kSymlink: return "symbolic link";
    case FileType::kOther: break;
  }
  return "FIFO, socket or device";
}

Result<std::unique_ptr<RandomAccessFile>> Fs::OpenReadFollowingLinks(const std::string& path) {
  return OpenRead(path);
}

Result<FileInfo> Fs::LinkStat(const std::string& path) { return Stat(path); }

Status Fs::HardLink(const std::string& existing, const std::string& link) {
  return Status::Unimplemented("this filesystem cannot link " + link + " to " + existing);
}

namespace {

Result<std::string> ReadAll(const RandomAccessFile& file, const std::string& path,
                            uint64_t max_bytes) {
  uint64_t size = file.Size();
  if (size > max_bytes) {
    return Status::InvalidArgument(path + ": file is " + std::to_string(size) +
                                   " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  std::string data(size, '\0');
  CKPT_ASSIGN_OR_RETURN(size_t n, file.ReadAt(0, size, data.data()));
  data.resize(n);
  return data;
}

}  // namespace

Result<std::string> ReadFileToString(Fs& fs, const std::string& path, uint64_t max_bytes) {
  CKPT_ASSIGN_OR_RETURN(auto file, fs.OpenRead(path));
  return ReadAll(*file, path, max_bytes);
}

Result<std::string> ReadUserFileToString(Fs& fs, const std::string& path, uint64_t max_bytes) {
  CKPT_ASSIGN_OR_RETURN(auto file, fs.OpenReadFollowingLinks(path));
  return ReadAll(*file, path, max_bytes);
}

bool Fs::SupportsLocks() const { return false; }

Status Fs::PublishAtomic(const std::string& path, std::string_view bytes) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string tmp = path + ".tmp-" + ChecksumHex(rng()).substr(0, 8);
  {
    CKPT_ASSIGN_OR_RETURN(auto file, OpenWriteExclusive(tmp));
    Status st = file->Append(bytes);
    if (st.ok()) st = file->Sync();
    if (st.ok()) st = file->Close();
    if (!st.ok()) {
      RemoveFile(tmp).IgnoreError();
      return st;
    }
  }
  Status st = Rename(tmp, path);
  if (!st.ok()) {
    RemoveFile(tmp).IgnoreError();
    return st;
  }
  return SyncDir(DirName(path));
}

Status Fs::PublishDir(const std::string& tmp_dir, const std::string& final_dir) {
  CKPT_RETURN_IF_ERROR(Rename(tmp_dir, final_dir));
  return SyncDir(DirName(final_dir));
}

Status WriteFileAtomic(Fs& fs, const std::string& path, std::string_view data) {
  return fs.PublishAtomic(path, data);
}

Status RemoveAll(Fs& fs, const std::string& path) {
  // LinkStat: a link to a directory is removed as a link, its target is never emptied.
  auto info = fs.LinkStat(path);
  if (!info.ok()) return info.status().IsNotFound() ? Status::OK() : info.status();
  if (info->type != FileType::kDirectory) return fs.RemoveFile(path);
  CKPT_ASSIGN_OR_RETURN(auto entries, fs.ListDir(path));
  for (const auto& e : entries) CKPT_RETURN_IF_ERROR(RemoveAll(fs, JoinPath(path, e.name)));
  return fs.RemoveDir(path);
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out;
  out.reserve(a.size() + 1 + b.size());  // one allocation: snapshots resolve every file's path
  out += a;
  if (out.back() != '/') out += '/';
  out += b;
  return out;
}

std::string DirName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace ckpt::base
