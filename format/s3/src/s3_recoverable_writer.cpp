// The S3 RecoverableWriter (ckpt/base/recoverable_writer.h), as Flink's S3RecoverableWriter: a
// file being written is a multipart upload of the object at its final key; parts of
// config().part_size_bytes are uploaded as the data comes and the rest, however small, as the
// last part at CloseForCommit; Commit completes the upload, and a completed object whose ETag is
// the multipart ETag of the recorded parts counts as committed.
#include <cctype>
#include <mutex>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/base/recoverable_writer.h"
#include "ckpt/s3/crypto.h"
#include "ckpt/s3/s3_fs.h"

namespace ckpt::s3 {
namespace {

std::string LocationOf(const S3Location& at) { return at.scheme + "://" + at.bucket + "/" + at.key; }

class S3RecoverableStream final : public base::RecoverableStream {
 public:
  S3RecoverableStream(S3Client& client, S3Location at, std::string upload_id)
      : client_(client), at_(std::move(at)), upload_id_(std::move(upload_id)) {}

  base::Status Write(std::string_view data) override {
    if (closed_) return base::Status::FailedPrecondition(LocationOf(at_) + ": written after close");
    buffer_.append(data);
    size_bytes_ += data.size();
    if (buffer_.size() >= client_.config().part_size_bytes) return UploadBuffer();
    return base::Status::OK();
  }

  base::Result<base::RecoverableCommit> CloseForCommit() override {
    if (closed_) return base::Status::FailedPrecondition(LocationOf(at_) + ": closed twice");
    if (!buffer_.empty() || etags_.empty()) CKPT_RETURN_IF_ERROR(UploadBuffer());
    closed_ = true;
    return base::RecoverableCommit{LocationOf(at_), upload_id_, etags_, size_bytes_};
  }

  uint64_t size_bytes() const override { return size_bytes_; }

 private:
  base::Status UploadBuffer() {
    base::Result<std::string> etag = client_.UploadPart(
        at_.bucket, at_.key, upload_id_, static_cast<int>(etags_.size() + 1), buffer_);
    if (!etag.ok()) return etag.status();
    etags_.push_back(std::move(etag).value());
    buffer_.clear();
    return base::Status::OK();
  }

  S3Client& client_;
  const S3Location at_;
  const std::string upload_id_;
  std::vector<std::string> etags_;
  std::string buffer_;
  uint64_t size_bytes_ = 0;
  bool closed_ = false;
};

class S3RecoverableWriter final : public base::RecoverableWriter {
 public:
  explicit S3RecoverableWriter(S3Client& client) : client_(client) {}

  base::Result<std::unique_ptr<base::RecoverableStream>> Open(
      const std::string& location) override {
    CKPT_ASSIGN_OR_RETURN(S3Location at, ParseS3Location(location));
    CKPT_ASSIGN_OR_RETURN(std::string upload_id, client_.CreateMultipartUpload(at.bucket, at.key));
    return std::unique_ptr<base::RecoverableStream>(
        std::make_unique<S3RecoverableStream>(client_, std::move(at), std::move(upload_id)));
  }

  base::Status Commit(const base::RecoverableCommit& commit) override {
    CKPT_ASSIGN_OR_RETURN(S3Location at, ParseS3Location(commit.location));
    base::Status completed =
        client_.CompleteMultipartUpload(at.bucket, at.key, commit.upload_id, commit.part_etags);
    if (completed.ok()) return completed;
    // Completed before a failure: the object with the ETag these parts give is the proof.
    const std::string expected = MultipartETag(commit.part_etags);
    base::Result<ObjectInfo> object = client_.Head(at.bucket, at.key);
    if (object.ok() && !expected.empty()) {
      std::string etag = object->etag;
      for (char& c : etag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (etag == expected && object->size_bytes == commit.size_bytes) return base::Status::OK();
    }
    if (completed.IsNotFound() && object.status().IsNotFound()) {
      return base::Status::NotFound("upload " + commit.upload_id + " of " + commit.location +
                                    " is gone and the object is missing: " +
                                    completed.message());
    }
    if (object.ok()) {
      return base::Status::IOError(completed.message() + "; the object " + commit.location +
                                   " exists with ETag \"" + object->etag + "\", not \"" +
                                   expected + "\" of the recorded parts");
    }
    return completed;
  }

  base::Result<std::vector<base::OpenUpload>> ListOpen(const std::string& prefix) override {
    CKPT_ASSIGN_OR_RETURN(S3Location at, ParseS3Location(prefix));
    CKPT_ASSIGN_OR_RETURN(std::vector<MultipartUploadInfo> uploads,
                          client_.ListMultipartUploads(at.bucket, at.key));
    std::vector<base::OpenUpload> out;
    for (MultipartUploadInfo& u : uploads) {
      out.push_back({LocationOf({at.scheme, at.bucket, u.key}), std::move(u.upload_id), u.initiated_ms});
    }
    return out;
  }

  base::Status Abort(const base::OpenUpload& upload) override {
    CKPT_ASSIGN_OR_RETURN(S3Location at, ParseS3Location(upload.location));
    return client_.AbortMultipartUpload(at.bucket, at.key, upload.upload_id);
  }

 private:
  S3Client& client_;
};

base::Result<base::RecoverableWriter*> ResolveS3RecoverableWriter(std::string_view location) {
  CKPT_ASSIGN_OR_RETURN(base::ResolvedLocation resolved, base::ResolveFs(location));
  auto* fs = dynamic_cast<S3Fs*>(resolved.fs);
  if (fs == nullptr) {
    return base::Status::Internal(std::string(location) + " does not resolve to an S3 filesystem");
  }
  // One writer per S3Fs; the process has one S3Fs (RegisterS3Schemes).
  static std::mutex mu;
  static S3Fs* owner = nullptr;
  static S3RecoverableWriter* writer = nullptr;  // never destroyed, as the S3Fs
  std::lock_guard<std::mutex> lock(mu);
  if (owner != fs) {
    owner = fs;
    writer = new S3RecoverableWriter(fs->client());
  }
  return static_cast<base::RecoverableWriter*>(writer);
}

}  // namespace

void RegisterS3RecoverableWriters() {
  for (const std::string_view scheme : kS3Schemes) {
    base::RegisterRecoverableWriterScheme(std::string(scheme), ResolveS3RecoverableWriter);
  }
}

}  // namespace ckpt::s3
