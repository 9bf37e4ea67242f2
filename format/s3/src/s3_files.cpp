// The S3Fs file objects: see s3_files.h.
#include "s3_files.h"

#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <vector>

namespace ckpt::s3 {
namespace {

class S3ReadFile final : public base::RandomAccessFile {
 public:
  S3ReadFile(S3Client& client, S3Location loc, std::string path, uint64_t size)
      : client_(client), loc_(std::move(loc)), path_(std::move(path)), size_(size) {}

  base::Result<size_t> ReadAt(uint64_t offset, size_t n, char* scratch) const override {
    if (offset >= size_ || n == 0) return size_t{0};
    n = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
    if (n >= kReadAheadBytes) {
      CKPT_ASSIGN_OR_RETURN(const std::string bytes,
                            client_.GetRange(loc_.bucket, loc_.key, offset, n));
      std::memcpy(scratch, bytes.data(), bytes.size());
      return bytes.size();
    }
    // Smaller reads (headers, index blocks, records read one by one, a checksum's 1 MiB chunks)
    // are served from one read-ahead block, so a sequential scan costs one request per block,
    // not per read: 8 MiB, where the per-request cost (a round trip, signing) is small against
    // the transfer even on a local server.
    std::lock_guard<std::mutex> lock(mu_);
    if (offset < block_start_ || offset + n > block_start_ + block_.size()) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kReadAheadBytes, size_ - offset));
      CKPT_ASSIGN_OR_RETURN(block_, client_.GetRange(loc_.bucket, loc_.key, offset, want));
      block_start_ = offset;
    }
    // offset >= block_start_ here; the block is short only if the object shrank since open.
    const size_t in_block = static_cast<size_t>(offset - block_start_);
    const size_t have = in_block >= block_.size() ? 0 : std::min(n, block_.size() - in_block);
    std::memcpy(scratch, block_.data() + (offset - block_start_), have);
    return have;
  }
  uint64_t Size() const override { return size_; }
  const std::string& path() const override { return path_; }

 private:
  static constexpr size_t kReadAheadBytes = size_t{8} << 20;

  S3Client& client_;
  const S3Location loc_;
  const std::string path_;
  const uint64_t size_;
  mutable std::mutex mu_;
  mutable uint64_t block_start_ = 0;
  mutable std::string block_;  // bytes [block_start_, block_start_ + size) of the object
};

class S3WriteFile final : public base::WritableFile {
 public:
  S3WriteFile(S3Client& client, S3Location loc, std::string path, bool exclusive)
      : client_(client), loc_(std::move(loc)), path_(std::move(path)), exclusive_(exclusive),
        part_size_(static_cast<size_t>(std::max<uint64_t>(1, client.config().part_size_bytes))),
        parallel_(static_cast<size_t>(std::max(1, client.config().max_parallel_parts))) {}

  ~S3WriteFile() override {
    if (!closed_) Abandon();
  }

  base::Status Append(std::string_view data) override {
    if (closed_) return base::Status::FailedPrecondition(path_ + ": append after close");
    CKPT_RETURN_IF_ERROR(error_);
    buffer_.append(data);
    while (buffer_.size() >= part_size_) {
      std::string part = buffer_.substr(0, part_size_);
      buffer_.erase(0, part_size_);
      error_ = StartPart(std::move(part));
      CKPT_RETURN_IF_ERROR(error_);
    }
    return base::Status::OK();
  }

  base::Status Sync() override { return error_; }

  base::Status Close() override {
    if (closed_) return close_status_;
    closed_ = true;
    close_status_ = Finish();
    if (!close_status_.ok()) Abandon();
    return close_status_;
  }

  const std::string& path() const override { return path_; }

 private:
  base::Status StartPart(std::string part) {
    if (upload_id_.empty()) {
      CKPT_ASSIGN_OR_RETURN(upload_id_, client_.CreateMultipartUpload(loc_.bucket, loc_.key));
    }
    while (in_flight_.size() >= parallel_) CKPT_RETURN_IF_ERROR(WaitOldest());
    const int number = static_cast<int>(etags_.size()) + 1;
    etags_.emplace_back();
    // The part's thread touches only its own body; ETags are stored here, on this thread.
    in_flight_.emplace_back(
        number, std::async(std::launch::async,
                           [&client = client_, bucket = loc_.bucket, key = loc_.key,
                            upload_id = upload_id_, number, body = std::move(part)] {
                             return client.UploadPart(bucket, key, upload_id, number, body);
                           }));
    return base::Status::OK();
  }

  base::Status WaitOldest() {
    auto [number, future] = std::move(in_flight_.front());
    in_flight_.pop_front();
    base::Result<std::string> etag = future.get();
    if (!etag.ok()) return etag.status();
    etags_[static_cast<size_t>(number - 1)] = std::move(etag).value();
    return base::Status::OK();
  }

  base::Status Finish() {
    CKPT_RETURN_IF_ERROR(error_);
    if (upload_id_.empty()) return client_.Put(loc_.bucket, loc_.key, buffer_, exclusive_);
    if (!buffer_.empty()) CKPT_RETURN_IF_ERROR(StartPart(std::move(buffer_)));
    base::Status first;
    while (!in_flight_.empty()) {
      base::Status st = WaitOldest();
      if (first.ok()) first = st;
    }
    CKPT_RETURN_IF_ERROR(first);
    if (exclusive_) {
      base::Result<ObjectInfo> existing = client_.Head(loc_.bucket, loc_.key);
      if (existing.ok()) return base::Status::AlreadyExists(path_ + ": the object already exists");
      if (!existing.status().IsNotFound()) return existing.status();
    }
    return client_.CompleteMultipartUpload(loc_.bucket, loc_.key, upload_id_, etags_, exclusive_);
  }

  // Waits for parts in flight and aborts the upload: nothing is published.
  void Abandon() {
    while (!in_flight_.empty()) WaitOldest().IgnoreError();
    if (!upload_id_.empty()) {
      client_.AbortMultipartUpload(loc_.bucket, loc_.key, upload_id_).IgnoreError();
      upload_id_.clear();
    }
  }

  S3Client& client_;
  const S3Location loc_;
  const std::string path_;
  const bool exclusive_;
  const size_t part_size_;
  const size_t parallel_;
  std::string buffer_;
  std::string upload_id_;
  std::vector<std::string> etags_;  // by part number - 1
  std::deque<std::pair<int, std::future<base::Result<std::string>>>> in_flight_;
  base::Status error_;
  bool closed_ = false;
  base::Status close_status_;
};

}  // namespace

std::unique_ptr<base::RandomAccessFile> MakeS3ReadFile(S3Client& client, S3Location loc,
                                                       std::string path, uint64_t size_bytes) {
  return std::make_unique<S3ReadFile>(client, std::move(loc), std::move(path), size_bytes);
}

std::unique_ptr<base::WritableFile> MakeS3WriteFile(S3Client& client, S3Location loc,
                                                    std::string path, bool exclusive) {
  return std::make_unique<S3WriteFile>(client, std::move(loc), std::move(path), exclusive);
}

}  // namespace ckpt::s3
