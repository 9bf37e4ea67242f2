// S3Fs: see s3_fs.h.
#include "ckpt/s3/s3_fs.h"

#include <algorithm>

#include "s3_files.h"
#include "s3_lease.h"

namespace ckpt::s3 {
namespace {

// The key prefix of the directory `loc` ("" for the bucket, else "key/").
std::string FsDirPrefix(const S3Location& loc) { return loc.key.empty() ? "" : loc.key + "/"; }

std::string FsLocationString(const S3Location& loc) {
  return loc.scheme + "://" + loc.bucket + (loc.key.empty() ? "" : "/" + loc.key);
}

bool FsIsMetadata(const std::string& rel) {
  return rel == "_metadata" || (rel.size() > 10 && rel.substr(rel.size() - 10) == "/_metadata");
}

}  // namespace

S3Fs::S3Fs(std::unique_ptr<S3Client> client) : client_(std::move(client)) {}
S3Fs::~S3Fs() = default;

base::Result<std::unique_ptr<base::RandomAccessFile>> S3Fs::OpenRead(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(path));
  if (loc.key.empty()) {
    return base::Status::FailedPrecondition(path + " is a bucket, not an object");
  }
  base::Result<ObjectInfo> info = client_->Head(loc.bucket, loc.key);
  if (info.status().IsNotFound()) {
    base::Result<ListPage> under = client_->ListPageOf(loc.bucket, FsDirPrefix(loc), "", "", 1);
    if (under.ok() && !under->objects.empty()) {
      return base::Status::FailedPrecondition(path + " is a directory (an S3 prefix), not an object");
    }
  }
  if (!info.ok()) return info.status();
  return MakeS3ReadFile(*client_, std::move(loc), path, info->size_bytes);
}

base::Result<std::unique_ptr<base::WritableFile>> S3Fs::OpenWrite(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(path));
  if (loc.key.empty()) return base::Status::InvalidArgument(path + ": cannot write a bucket");
  return MakeS3WriteFile(*client_, std::move(loc), path, false);
}

base::Result<std::unique_ptr<base::WritableFile>> S3Fs::OpenWriteExclusive(
    const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(path));
  if (loc.key.empty()) return base::Status::InvalidArgument(path + ": cannot write a bucket");
  base::Result<ObjectInfo> existing = client_->Head(loc.bucket, loc.key);
  if (existing.ok()) return base::Status::AlreadyExists(path + " already exists");
  if (!existing.status().IsNotFound()) return existing.status();
  return MakeS3WriteFile(*client_, std::move(loc), path, true);
}

base::Status S3Fs::Rename(const std::string& from, const std::string& to) {
  CKPT_ASSIGN_OR_RETURN(const S3Location src, ParseS3Location(from));
  CKPT_ASSIGN_OR_RETURN(const S3Location dst, ParseS3Location(to));
  if (src.key.empty() || dst.key.empty()) {
    return base::Status::InvalidArgument("cannot rename a bucket (" + from + " -> " + to + ")");
  }
  base::Result<ObjectInfo> info = client_->Head(src.bucket, src.key);
  if (info.ok()) {
    CKPT_RETURN_IF_ERROR(client_->Copy(src.bucket, src.key, dst.bucket, dst.key));
    return client_->Delete(src.bucket, src.key);
  }
  if (!info.status().IsNotFound()) return info.status();
  return MoveTree(src, dst, /*publish=*/false);
}

base::Status S3Fs::SyncDir(const std::string& dir) { return ParseS3Location(dir).status(); }

base::Status S3Fs::CreateDirs(const std::string& dir) { return ParseS3Location(dir).status(); }

base::Status S3Fs::RemoveFile(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(const S3Location loc, ParseS3Location(path));
  if (loc.key.empty()) return base::Status::InvalidArgument(path + " is a bucket, not a file");
  CKPT_RETURN_IF_ERROR(client_->Head(loc.bucket, loc.key).status());
  return client_->Delete(loc.bucket, loc.key);
}

base::Status S3Fs::RemoveDir(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(const S3Location loc, ParseS3Location(path));
  const std::string prefix = FsDirPrefix(loc);
  CKPT_ASSIGN_OR_RETURN(const ListPage page, client_->ListPageOf(loc.bucket, prefix, "", "", 2));
  bool marker = false;
  for (const ObjectInfo& o : page.objects) {
    if (o.key == prefix) {
      marker = true;
      continue;
    }
    return base::Status::FailedPrecondition(path + " is not empty (it holds s3://" + loc.bucket +
                                            "/" + o.key + ")");
  }
  if (marker) return client_->Delete(loc.bucket, prefix);
  return base::Status::OK();
}

base::Result<std::vector<base::DirEntry>> S3Fs::ListDir(const std::string& dir) {
  CKPT_ASSIGN_OR_RETURN(const S3Location loc, ParseS3Location(dir));
  const std::string prefix = FsDirPrefix(loc);
  CKPT_ASSIGN_OR_RETURN(const ListPage all, client_->ListAll(loc.bucket, prefix, "/"));
  std::vector<base::DirEntry> entries;
  for (const ObjectInfo& o : all.objects) {
    const std::string name = o.key.substr(prefix.size());
    if (name.empty()) continue;  // a directory marker object "dir/"
    entries.push_back({name, false, base::FileType::kRegular});
  }
  for (const std::string& p : all.common_prefixes) {
    std::string name = p.substr(prefix.size());
    while (!name.empty() && name.back() == '/') name.pop_back();
    if (name.empty()) continue;
    entries.push_back({name, true, base::FileType::kDirectory});
  }
  if (entries.empty() && !loc.key.empty() && all.objects.empty()) {
    return base::Status::NotFound(dir + ": no such directory (no object under s3://" +
                                  loc.bucket + "/" + prefix + ")");
  }
  std::sort(entries.begin(), entries.end(),
            [](const base::DirEntry& a, const base::DirEntry& b) { return a.name < b.name; });
  return entries;
}

base::Result<base::FileInfo> S3Fs::Stat(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(const S3Location loc, ParseS3Location(path));
  base::FileInfo info;
  if (loc.key.empty()) {
    CKPT_RETURN_IF_ERROR(client_->ListPageOf(loc.bucket, "", "", "", 1).status());
    info.is_dir = true;
    info.type = base::FileType::kDirectory;
    return info;
  }
  base::Result<ObjectInfo> object = client_->Head(loc.bucket, loc.key);
  if (object.ok()) {
    info.size_bytes = object->size_bytes;
    info.mtime_ms = object->mtime_ms;
    return info;
  }
  if (!object.status().IsNotFound()) return object.status();
  CKPT_ASSIGN_OR_RETURN(const ListPage page,
                        client_->ListPageOf(loc.bucket, FsDirPrefix(loc), "", "", 1));
  if (page.objects.empty()) {
    return base::Status::NotFound(path + ": no such object or prefix");
  }
  info.is_dir = true;
  info.type = base::FileType::kDirectory;
  return info;
}

base::Status S3Fs::PublishAtomic(const std::string& path, std::string_view bytes) {
  CKPT_ASSIGN_OR_RETURN(const S3Location loc, ParseS3Location(path));
  if (loc.key.empty()) return base::Status::InvalidArgument(path + ": cannot write a bucket");
  if (bytes.size() > client_->config().part_size_bytes) {
    return client_->PutMultipart(loc.bucket, loc.key, bytes);
  }
  return client_->Put(loc.bucket, loc.key, bytes);
}

base::Status S3Fs::PublishDir(const std::string& tmp_dir, const std::string& final_dir) {
  CKPT_ASSIGN_OR_RETURN(const S3Location from, ParseS3Location(tmp_dir));
  CKPT_ASSIGN_OR_RETURN(const S3Location to, ParseS3Location(final_dir));
  if (from.key.empty() || to.key.empty()) {
    return base::Status::InvalidArgument("cannot publish a bucket (" + tmp_dir + " -> " +
                                         final_dir + ")");
  }
  CKPT_ASSIGN_OR_RETURN(const ListPage existing,
                        client_->ListPageOf(to.bucket, FsDirPrefix(to), "", "", 1));
  if (!existing.objects.empty()) {
    return base::Status::AlreadyExists(final_dir + " exists and is not empty");
  }
  return MoveTree(from, to, /*publish=*/true);
}

base::Result<std::unique_ptr<base::FileLock>> S3Fs::TryLockFile(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(path));
  return TryTakeS3Lease(*client_, std::move(loc), path, client_->config().lease_ttl_ms);
}

bool S3Fs::SupportsLocks() const { return true; }

base::Result<std::vector<std::string>> S3Fs::ObjectsUnder(const S3Location& dir) {
  const std::string prefix = FsDirPrefix(dir);
  CKPT_ASSIGN_OR_RETURN(const ListPage all, client_->ListAll(dir.bucket, prefix, ""));
  std::vector<std::string> rel;
  for (const ObjectInfo& o : all.objects) {
    if (o.key.size() > prefix.size()) rel.push_back(o.key.substr(prefix.size()));
  }
  return rel;
}

base::Status S3Fs::MoveTree(const S3Location& from, const S3Location& to, bool publish) {
  CKPT_ASSIGN_OR_RETURN(std::vector<std::string> rel, ObjectsUnder(from));
  if (rel.empty()) return base::Status::NotFound(FsLocationString(from) + ": no such object or prefix");
  // "_metadata" files last: a snapshot is visible only once everything it names is there.
  std::stable_partition(rel.begin(), rel.end(),
                        [](const std::string& r) { return !FsIsMetadata(r); });
  std::vector<std::string> sources;
  std::vector<std::string> copies;
  for (const std::string& r : rel) {
    const std::string src_key = FsDirPrefix(from) + r;
    const std::string dst_key = FsDirPrefix(to) + r;
    base::Status copied = publish && FsIsMetadata(r)
                              ? CreateObjectFrom(from.bucket, src_key, to.bucket, dst_key)
                              : client_->Copy(from.bucket, src_key, to.bucket, dst_key);
    if (!copied.ok()) {
      // A publication that fails before its _metadata leaves no part of itself under the final
      // name (a retry would find it "not empty"). A _metadata another writer created first
      // means the objects there may be that writer's: they stay.
      if (publish && !copies.empty() && copied.code() != base::StatusCode::kAlreadyExists) {
        client_->DeleteMany(to.bucket, copies).IgnoreError();
      }
      return copied;
    }
    copies.push_back(dst_key);
    sources.push_back(src_key);
  }
  return client_->DeleteMany(from.bucket, sources);
}

base::Status S3Fs::CreateObjectFrom(const std::string& src_bucket, const std::string& src_key,
                                    const std::string& dst_bucket, const std::string& dst_key) {
  CKPT_ASSIGN_OR_RETURN(const std::string bytes, client_->Get(src_bucket, src_key));
  base::Status put = bytes.size() > client_->config().part_size_bytes
                         ? client_->PutMultipart(dst_bucket, dst_key, bytes, true)
                         : client_->Put(dst_bucket, dst_key, bytes, true);
  // A server without conditional writes: the HEAD that Put made first found no object.
  if (put.code() == base::StatusCode::kUnimplemented) {
    return client_->Put(dst_bucket, dst_key, bytes);
  }
  return put;
}

}  // namespace ckpt::s3
