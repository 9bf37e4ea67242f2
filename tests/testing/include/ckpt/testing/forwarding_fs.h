// ForwardingFs: an Fs that passes every call to another one (Fs::Default() unless given). Tests
// derive from it and override only the call they make fail or behave differently. Thread-safe
// as the target is.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"

namespace ckpt::testing {

class ForwardingFs : public base::Fs {
 public:
  explicit ForwardingFs(base::Fs& target = base::Fs::Default()) : target_(target) {}

  base::Result<std::unique_ptr<base::RandomAccessFile>> OpenRead(const std::string& p) override {
    return target_.OpenRead(p);
  }
  base::Result<std::unique_ptr<base::WritableFile>> OpenWrite(const std::string& p) override {
    return target_.OpenWrite(p);
  }
  base::Result<std::unique_ptr<base::WritableFile>> OpenWriteExclusive(
      const std::string& p) override {
    return target_.OpenWriteExclusive(p);
  }
  base::Status Rename(const std::string& from, const std::string& to) override {
    return target_.Rename(from, to);
  }
  base::Status HardLink(const std::string& existing, const std::string& link) override {
    return target_.HardLink(existing, link);
  }
  base::Status SyncDir(const std::string& d) override { return target_.SyncDir(d); }
  base::Status CreateDirs(const std::string& d) override { return target_.CreateDirs(d); }
  base::Status RemoveFile(const std::string& p) override { return target_.RemoveFile(p); }
  base::Status RemoveDir(const std::string& p) override { return target_.RemoveDir(p); }
  base::Result<std::vector<base::DirEntry>> ListDir(const std::string& d) override {
    return target_.ListDir(d);
  }
  base::Result<base::FileInfo> Stat(const std::string& p) override { return target_.Stat(p); }
  base::Result<base::FileInfo> LinkStat(const std::string& p) override {
    return target_.LinkStat(p);
  }

 protected:
  base::Fs& target_;
};

}  // namespace ckpt::testing
