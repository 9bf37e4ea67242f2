// validate --deep's single read of a container (validate_read_once.h).
#include "formats/own/validate_read_once.h"

#include <algorithm>

namespace ckpt::ops::internal {
namespace {

// A non-owning view of an open file, as OneFileFs hands it out.
class FileRef final : public base::RandomAccessFile {
 public:
  explicit FileRef(const base::RandomAccessFile& file) : file_(file) {}
  base::Result<size_t> ReadAt(uint64_t offset, size_t n, char* scratch) const override {
    return file_.ReadAt(offset, n, scratch);
  }
  uint64_t Size() const override { return file_.Size(); }
  const std::string& path() const override { return file_.path(); }

 private:
  const base::RandomAccessFile& file_;
};

}  // namespace

HashingFile::HashingFile(const base::RandomAccessFile& file,
                         std::function<void(size_t)> on_hashed)
    : file_(file), on_hashed_(std::move(on_hashed)) {}

void HashingFile::Hash(uint64_t offset, const char* data, size_t n) const {
  // Only bytes that extend the hashed prefix: [hashed_, offset + n) when offset <= hashed_.
  if (offset > hashed_ || offset + n <= hashed_) return;
  const auto skip = static_cast<size_t>(hashed_ - offset);
  hash_.Update(std::string_view(data + skip, n - skip));
  hashed_ += n - skip;
  if (on_hashed_) on_hashed_(n - skip);
}

base::Result<size_t> HashingFile::ReadAt(uint64_t offset, size_t n, char* scratch) const {
  CKPT_ASSIGN_OR_RETURN(size_t got, file_.ReadAt(offset, n, scratch));
  Hash(offset, scratch, got);
  return got;
}

base::Result<base::FileDigest> HashingFile::Finish(
    std::string* buffer, const std::function<base::Status(size_t)>& on_chunk) {
  constexpr size_t kChunkBytes = 1u << 20;  // as Xxh3OfFile's
  const uint64_t size = file_.Size();
  buffer->resize(kChunkBytes);
  base::FileDigest out;
  while (hashed_ < size) {
    const auto want = static_cast<size_t>(std::min<uint64_t>(kChunkBytes, size - hashed_));
    CKPT_ASSIGN_OR_RETURN(size_t n, file_.ReadAt(hashed_, want, buffer->data()));
    if (n == 0) {
      out.bytes = hashed_;
      return out;
    }
    hash_.Update(std::string_view(buffer->data(), n));
    hashed_ += n;
    if (on_chunk) CKPT_RETURN_IF_ERROR(on_chunk(n));
  }
  out.bytes = hashed_;
  out.complete = true;
  out.checksum = hash_.Digest();
  return out;
}

base::Result<std::unique_ptr<base::RandomAccessFile>> OneFileFs::OpenRead(
    const std::string& path) {
  if (path != path_) return target_.OpenRead(path);
  return std::unique_ptr<base::RandomAccessFile>(std::make_unique<FileRef>(file_));
}

}  // namespace ckpt::ops::internal
