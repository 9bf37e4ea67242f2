// ResolvingFs: forwards each call to the Fs its location resolves to (see resolving_fs.h).
#include "ckpt/base/resolving_fs.h"

#include <utility>

#include "ckpt/base/fs_resolver.h"

namespace ckpt::base {
namespace {

class ResolvingFsImpl : public Fs {
 public:
  Result<std::unique_ptr<RandomAccessFile>> OpenRead(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->OpenRead(at.path);
  }
  Result<std::unique_ptr<RandomAccessFile>> OpenReadFollowingLinks(
      const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->OpenReadFollowingLinks(at.path);
  }
  Result<std::unique_ptr<WritableFile>> OpenWrite(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->OpenWrite(at.path);
  }
  Result<std::unique_ptr<WritableFile>> OpenWriteExclusive(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->OpenWriteExclusive(at.path);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    CKPT_ASSIGN_OR_RETURN(auto both, ResolveBoth(from, to));
    if (both.first.fs != both.second.fs) return AcrossFilesystems("rename", from, to);
    return both.first.fs->Rename(both.first.path, both.second.path);
  }
  Status HardLink(const std::string& existing, const std::string& link) override {
    CKPT_ASSIGN_OR_RETURN(auto both, ResolveBoth(existing, link));
    if (both.first.fs != both.second.fs) {
      return Status::Unimplemented("cannot link " + link + " to " + existing +
                                   ": they are on different filesystems");
    }
    return both.first.fs->HardLink(both.first.path, both.second.path);
  }
  Status SyncDir(const std::string& dir) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(dir));
    return at.fs->SyncDir(at.path);
  }
  Status CreateDirs(const std::string& dir) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(dir));
    return at.fs->CreateDirs(at.path);
  }
  Status RemoveFile(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->RemoveFile(at.path);
  }
  Status RemoveDir(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->RemoveDir(at.path);
  }
  Result<std::vector<DirEntry>> ListDir(const std::string& dir) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(dir));
    return at.fs->ListDir(at.path);
  }
  Result<FileInfo> Stat(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->Stat(at.path);
  }
  Result<FileInfo> LinkStat(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->LinkStat(at.path);
  }
  Result<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->TryLockFile(at.path);
  }
  bool SupportsLocks() const override { return false; }
  Status PublishAtomic(const std::string& path, std::string_view bytes) override {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation at, ResolveFs(path));
    return at.fs->PublishAtomic(at.path, bytes);
  }
  Status PublishDir(const std::string& tmp_dir, const std::string& final_dir) override {
    CKPT_ASSIGN_OR_RETURN(auto both, ResolveBoth(tmp_dir, final_dir));
    if (both.first.fs != both.second.fs) return AcrossFilesystems("publish", tmp_dir, final_dir);
    return both.first.fs->PublishDir(both.first.path, both.second.path);
  }

 private:
  static Result<std::pair<ResolvedLocation, ResolvedLocation>> ResolveBoth(const std::string& a,
                                                                          const std::string& b) {
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation first, ResolveFs(a));
    CKPT_ASSIGN_OR_RETURN(ResolvedLocation second, ResolveFs(b));
    return std::make_pair(std::move(first), std::move(second));
  }
  static Status AcrossFilesystems(const std::string& what, const std::string& a,
                                  const std::string& b) {
    return Status::InvalidArgument("cannot " + what + " " + a + " as " + b +
                                   ": they are on different filesystems");
  }
};

}  // namespace

Fs& ResolvingFs() {
  static ResolvingFsImpl* fs = new ResolvingFsImpl();  // never destroyed: used until exit
  return *fs;
}

}  // namespace ckpt::base
