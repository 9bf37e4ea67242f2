#include "ckpt/base/fault_injection_fs.h"

#include <algorithm>

namespace ckpt::base {
namespace {

class FaultyWritableFile final : public WritableFile {
 public:
  FaultyWritableFile(FaultInjectionFs& fs, std::unique_ptr<WritableFile> target)
      : fs_(fs), target_(std::move(target)), truncate_(fs.ShouldTruncate(target_->path())) {}

  Status Append(std::string_view data) override {
    CKPT_RETURN_IF_ERROR(fs_.Admit("append " + path()));
    if (truncate_) data = data.substr(0, data.size() / 2);
    CKPT_RETURN_IF_ERROR(target_->Append(data));
    fs_.NoteAppend(path(), data.size());
    return Status::OK();
  }
  Status Sync() override {
    CKPT_RETURN_IF_ERROR(fs_.Admit("fsync " + path()));
    CKPT_RETURN_IF_ERROR(target_->Sync());
    fs_.NoteSync(path());
    return Status::OK();
  }
  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    Status admitted = fs_.Admit("close " + path());
    Status st = target_->Close();  // always release the descriptor
    return admitted.ok() ? st : admitted;
  }
  const std::string& path() const override { return target_->path(); }

 private:
  FaultInjectionFs& fs_;
  std::unique_ptr<WritableFile> target_;
  bool truncate_;
  bool closed_ = false;
};

std::string NormalDir(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

void FaultInjectionFs::NoteAppend(const std::string& path, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[path].size += bytes;
}

void FaultInjectionFs::NoteSync(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  FileData& f = files_[path];
  f.synced = f.size;
}

void FaultInjectionFs::Journal(DirChange change) {
  std::lock_guard<std::mutex> lock(mu_);
  journal_.push_back(std::move(change));
}

std::optional<std::string> FaultInjectionFs::ContentOf(const std::string& path) {
  auto info = target_.LinkStat(path);
  if (!info.ok() || info->type != FileType::kRegular) return std::nullopt;
  auto data = ReadFileToString(target_, path);
  if (!data.ok()) return std::nullopt;
  return std::move(data).value();
}

Status FaultInjectionFs::DropUnsyncedData() {
  std::vector<DirChange> journal;
  std::map<std::string, FileData> files;
  {
    std::lock_guard<std::mutex> lock(mu_);
    journal.swap(journal_);
    files.swap(files_);
  }
  auto write = [this](const std::string& path, const std::string& data) -> Status {
    CKPT_RETURN_IF_ERROR(target_.CreateDirs(DirName(path)));
    CKPT_ASSIGN_OR_RETURN(auto f, target_.OpenWrite(path));
    CKPT_RETURN_IF_ERROR(f->Append(data));
    CKPT_RETURN_IF_ERROR(f->Sync());
    return f->Close();
  };
  // Data first, under the names the files have now; then the directory changes, newest first.
  for (const auto& [path, f] : files) {
    if (f.synced >= f.size) continue;
    std::optional<std::string> data = ContentOf(path);
    if (!data || data->size() <= f.synced) continue;
    CKPT_RETURN_IF_ERROR(write(path, data->substr(0, f.synced)));
  }
  for (auto it = journal.rbegin(); it != journal.rend(); ++it) {
    const DirChange& c = *it;
    switch (c.kind) {
      case DirChange::Kind::kCreateFile: {
        Status st = target_.RemoveFile(c.path);
        if (!st.ok() && !st.IsNotFound()) return st;
        break;
      }
      case DirChange::Kind::kCreateDir:
        CKPT_RETURN_IF_ERROR(RemoveAll(target_, c.path));
        break;
      case DirChange::Kind::kRename:
        if (target_.LinkStat(c.path).ok()) CKPT_RETURN_IF_ERROR(target_.Rename(c.path, c.from));
        if (c.saved) CKPT_RETURN_IF_ERROR(write(c.path, *c.saved));
        break;
      case DirChange::Kind::kRemoveFile:
        if (c.saved) CKPT_RETURN_IF_ERROR(write(c.path, *c.saved));
        break;
      case DirChange::Kind::kRemoveDir:
        CKPT_RETURN_IF_ERROR(target_.CreateDirs(c.path));
        break;
    }
  }
  return Status::OK();
}

void FaultInjectionFs::TruncateWritesTo(std::string needle) {
  std::lock_guard<std::mutex> lock(mu_);
  truncate_needle_ = std::move(needle);
}

bool FaultInjectionFs::ShouldTruncate(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  return !truncate_needle_.empty() && path.find(truncate_needle_) != std::string::npos;
}

Status FaultInjectionFs::Admit(std::string_view what) {
  int64_t op = ops_.fetch_add(1);
  int64_t crash = crash_after_.load();
  if (crashed_.load() || (crash >= 0 && op >= crash)) {
    crashed_.store(true);
    return Status::IOError("injected crash before operation #" + std::to_string(op) + " (" +
                           std::string(what) + ")");
  }
  if (op == fail_op_.load()) {
    return Status::IOError("injected failure of operation #" + std::to_string(op) + " (" +
                           std::string(what) + ")");
  }
  return Status::OK();
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectionFs::OpenRead(const std::string& path) {
  return target_.OpenRead(path);
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectionFs::OpenReadFollowingLinks(
    const std::string& path) {
  return target_.OpenReadFollowingLinks(path);
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFs::OpenWrite(const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("create " + path));
  const bool existed = target_.LinkStat(path).ok();
  CKPT_ASSIGN_OR_RETURN(auto f, target_.OpenWrite(path));
  Track(path, existed);
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(*this, std::move(f)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFs::OpenWriteExclusive(
    const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("create " + path));
  CKPT_ASSIGN_OR_RETURN(auto f, target_.OpenWriteExclusive(path));
  Track(path, /*existed=*/false);
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(*this, std::move(f)));
}

void FaultInjectionFs::Track(const std::string& path, bool existed) {
  {
    // Truncated or new: nothing of it is durable until it is synced.
    std::lock_guard<std::mutex> lock(mu_);
    files_[path] = FileData{};
  }
  if (!existed) Journal({DirChange::Kind::kCreateFile, path, "", std::nullopt, {DirName(path)}});
}

Status FaultInjectionFs::HardLink(const std::string& existing, const std::string& link) {
  CKPT_RETURN_IF_ERROR(Admit("link " + link));
  CKPT_RETURN_IF_ERROR(target_.HardLink(existing, link));
  // A new directory entry: gone after a power loss unless its directory was synced.
  Journal({DirChange::Kind::kCreateFile, link, "", std::nullopt, {DirName(link)}});
  return Status::OK();
}

Status FaultInjectionFs::Rename(const std::string& from, const std::string& to) {
  CKPT_RETURN_IF_ERROR(Admit("rename " + from));
  std::optional<std::string> replaced = ContentOf(to);
  CKPT_RETURN_IF_ERROR(target_.Rename(from, to));
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The data of `from` (a file, or the files below a directory) now lives under `to`.
    files_.erase(to);
    std::map<std::string, FileData> moved;
    const std::string prefix = from + "/";
    for (auto it = files_.begin(); it != files_.end();) {
      if (it->first == from) {
        moved[to] = it->second;
      } else if (it->first.compare(0, prefix.size(), prefix) == 0) {
        moved[to + "/" + it->first.substr(prefix.size())] = it->second;
      } else {
        ++it;
        continue;
      }
      it = files_.erase(it);
    }
    files_.merge(moved);
  }
  Journal({DirChange::Kind::kRename, to, from, std::move(replaced),
           {NormalDir(DirName(from)), NormalDir(DirName(to))}});
  return Status::OK();
}
Status FaultInjectionFs::SyncDir(const std::string& dir) {
  CKPT_RETURN_IF_ERROR(Admit("fsync directory " + dir));
  CKPT_RETURN_IF_ERROR(target_.SyncDir(dir));
  const std::string d = NormalDir(dir);
  std::lock_guard<std::mutex> lock(mu_);
  for (DirChange& c : journal_) c.dirs.erase(d);
  journal_.erase(std::remove_if(journal_.begin(), journal_.end(),
                                [](const DirChange& c) { return c.dirs.empty(); }),
                 journal_.end());
  return Status::OK();
}
Status FaultInjectionFs::CreateDirs(const std::string& dir) {
  CKPT_RETURN_IF_ERROR(Admit("mkdir " + dir));
  // The components that do not exist yet, outermost first.
  std::vector<std::string> missing;
  for (std::string d = NormalDir(dir); !d.empty() && d != "." && d != "/";) {
    if (target_.LinkStat(d).ok()) break;
    missing.push_back(d);
    const std::string up = DirName(d);
    if (up == d) break;
    d = up;
  }
  CKPT_RETURN_IF_ERROR(target_.CreateDirs(dir));
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    Journal({DirChange::Kind::kCreateDir, *it, "", std::nullopt, {DirName(*it)}});
  }
  return Status::OK();
}
Status FaultInjectionFs::RemoveFile(const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("remove " + path));
  std::optional<std::string> content = ContentOf(path);
  CKPT_RETURN_IF_ERROR(target_.RemoveFile(path));
  {
    std::lock_guard<std::mutex> lock(mu_);
    files_.erase(path);
  }
  Journal({DirChange::Kind::kRemoveFile, path, "", std::move(content), {NormalDir(DirName(path))}});
  return Status::OK();
}
Status FaultInjectionFs::RemoveDir(const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("remove directory " + path));
  CKPT_RETURN_IF_ERROR(target_.RemoveDir(path));
  Journal({DirChange::Kind::kRemoveDir, NormalDir(path), "", std::nullopt,
           {NormalDir(DirName(NormalDir(path)))}});
  return Status::OK();
}
Result<std::vector<DirEntry>> FaultInjectionFs::ListDir(const std::string& dir) {
  return target_.ListDir(dir);
}
Result<FileInfo> FaultInjectionFs::Stat(const std::string& path) { return target_.Stat(path); }
Result<FileInfo> FaultInjectionFs::LinkStat(const std::string& path) {
  return target_.LinkStat(path);
}

Result<std::unique_ptr<FileLock>> FaultInjectionFs::TryLockFile(const std::string& path) {
  return target_.TryLockFile(path);
}

bool FaultInjectionFs::SupportsLocks() const { return target_.SupportsLocks(); }

}  // namespace ckpt::base
