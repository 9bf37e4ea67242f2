// Private to ckpt::ops: validate --deep reads each container once. HashingFile wraps the opened
// file and feeds XXH3 every byte it hands out that extends the prefix hashed so far, so the
// record pass (a StateFileReader opened through OneFileFs reads the header, then the blocks in
// file order) also yields the whole-file checksum; Finish reads and hashes only what the record
// pass did not read in order (the footer index and trailer, or everything after a damaged
// block). Not thread-safe: one per file and thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fs.h"

namespace ckpt::ops::internal {

class HashingFile final : public base::RandomAccessFile {
 public:
  // `on_hashed(n)`: n more bytes were hashed (for progress).
  HashingFile(const base::RandomAccessFile& file, std::function<void(size_t)> on_hashed);

  base::Result<size_t> ReadAt(uint64_t offset, size_t n, char* scratch) const override;
  uint64_t Size() const override { return file_.Size(); }
  const std::string& path() const override { return file_.path(); }

  // Hashes the rest of the file through `buffer` (large sequential reads); `on_chunk` as
  // Xxh3OfFile's (cancellation). The digest is Xxh3OfFile's for the same bytes.
  base::Result<base::FileDigest> Finish(std::string* buffer,
                                        const std::function<base::Status(size_t)>& on_chunk);

 private:
  void Hash(uint64_t offset, const char* data, size_t n) const;

  const base::RandomAccessFile& file_;
  const std::function<void(size_t)> on_hashed_;
  mutable base::Xxh3Stream hash_;
  mutable uint64_t hashed_ = 0;  // bytes [0, hashed_) are in hash_
};

// A filesystem that opens `path` as `file` (not owned, must outlive what OpenRead returns) and
// passes everything else to `target`: for handing an already open file to StateFileReader.
class OneFileFs final : public base::Fs {
 public:
  OneFileFs(base::Fs& target, std::string path, const base::RandomAccessFile& file)
      : target_(target), path_(std::move(path)), file_(file) {}

  base::Result<std::unique_ptr<base::RandomAccessFile>> OpenRead(const std::string& path) override;
  base::Result<std::unique_ptr<base::WritableFile>> OpenWrite(const std::string& path) override {
    return target_.OpenWrite(path);
  }
  base::Result<std::unique_ptr<base::WritableFile>> OpenWriteExclusive(
      const std::string& path) override {
    return target_.OpenWriteExclusive(path);
  }
  base::Status Rename(const std::string& from, const std::string& to) override {
    return target_.Rename(from, to);
  }
  base::Status SyncDir(const std::string& dir) override { return target_.SyncDir(dir); }
  base::Status CreateDirs(const std::string& dir) override { return target_.CreateDirs(dir); }
  base::Status RemoveFile(const std::string& path) override { return target_.RemoveFile(path); }
  base::Status RemoveDir(const std::string& path) override { return target_.RemoveDir(path); }
  base::Result<std::vector<base::DirEntry>> ListDir(const std::string& dir) override {
    return target_.ListDir(dir);
  }
  base::Result<base::FileInfo> Stat(const std::string& path) override {
    return target_.Stat(path);
  }
  base::Result<base::FileInfo> LinkStat(const std::string& path) override {
    return target_.LinkStat(path);
  }

 private:
  base::Fs& target_;
  const std::string path_;
  const base::RandomAccessFile& file_;
};

}  // namespace ckpt::ops::internal
