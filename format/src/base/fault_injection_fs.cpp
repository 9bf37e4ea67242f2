#include "ckpt/base/fault_injection_fs.h"

namespace ckpt::base {
namespace {

class FaultyWritableFile final : public WritableFile {
 public:
  FaultyWritableFile(FaultInjectionFs& fs, std::unique_ptr<WritableFile> target)
      : fs_(fs), target_(std::move(target)), truncate_(fs.ShouldTruncate(target_->path())) {}

  Status Append(std::string_view data) override {
    CKPT_RETURN_IF_ERROR(fs_.Admit("append " + path()));
    if (truncate_) data = data.substr(0, data.size() / 2);
    return target_->Append(data);
  }
  Status Sync() override {
    CKPT_RETURN_IF_ERROR(fs_.Admit("fsync " + path()));
    return target_->Sync();
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

}  // namespace

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

Result<std::unique_ptr<WritableFile>> FaultInjectionFs::OpenWrite(const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("create " + path));
  CKPT_ASSIGN_OR_RETURN(auto f, target_.OpenWrite(path));
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(*this, std::move(f)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFs::OpenWriteExclusive(
    const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("create " + path));
  CKPT_ASSIGN_OR_RETURN(auto f, target_.OpenWriteExclusive(path));
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(*this, std::move(f)));
}

Status FaultInjectionFs::Rename(const std::string& from, const std::string& to) {
  CKPT_RETURN_IF_ERROR(Admit("rename " + from));
  return target_.Rename(from, to);
}
Status FaultInjectionFs::SyncDir(const std::string& dir) {
  CKPT_RETURN_IF_ERROR(Admit("fsync directory " + dir));
  return target_.SyncDir(dir);
}
Status FaultInjectionFs::CreateDirs(const std::string& dir) {
  CKPT_RETURN_IF_ERROR(Admit("mkdir " + dir));
  return target_.CreateDirs(dir);
}
Status FaultInjectionFs::RemoveFile(const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("remove " + path));
  return target_.RemoveFile(path);
}
Status FaultInjectionFs::RemoveDir(const std::string& path) {
  CKPT_RETURN_IF_ERROR(Admit("remove directory " + path));
  return target_.RemoveDir(path);
}
Result<std::vector<DirEntry>> FaultInjectionFs::ListDir(const std::string& dir) {
  return target_.ListDir(dir);
}
Result<FileInfo> FaultInjectionFs::Stat(const std::string& path) { return target_.Stat(path); }

Result<std::unique_ptr<FileLock>> FaultInjectionFs::TryLockFile(const std::string& path) {
  return target_.TryLockFile(path);
}

}  // namespace ckpt::base
