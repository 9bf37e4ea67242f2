#include "rewrite/relocate_copy.h"

#include <algorithm>
#include <set>

#include "ckpt/base/checksum.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "rewrite/output_publish.h"

namespace ckpt::ops::internal {
namespace {

constexpr size_t kCopyBlockBytes = 1u << 20;

std::string_view ScopeName(pb::FileScope scope) {
  switch (scope) {
    case pb::EXCLUSIVE: return "exclusive";
    case pb::SHARED: return "shared";
    case pb::TASK_OWNED: return "task-owned";
    case pb::EXTERNAL: return "external";
    default: return "unspecified";
  }
}

void VisitKeyed(pb::KeyedStateHandle* h, const std::function<void(uint32_t*)>& fn) {
  if (h->has_key_groups()) {
    uint32_t i = h->key_groups().file_index();
    fn(&i);
    h->mutable_key_groups()->set_file_index(i);
  } else if (h->has_rocksdb()) {
    auto* r = h->mutable_rocksdb();
    for (auto& f : *r->mutable_sst_files()) {
      uint32_t i = f.file_index();
      fn(&i);
      f.set_file_index(i);
    }
    for (auto& f : *r->mutable_meta_files()) {
      uint32_t i = f.file_index();
      fn(&i);
      f.set_file_index(i);
    }
  } else if (h->has_changelog()) {
    auto* c = h->mutable_changelog();
    for (auto& m : *c->mutable_materialized()) VisitKeyed(&m, fn);
    for (auto& s : *c->mutable_segments()) {
      uint32_t i = s.slice().file_index();
      fn(&i);
      s.mutable_slice()->set_file_index(i);
    }
  }
}

template <typename Buffers>
void VisitSlices(Buffers* buffers, const std::function<void(uint32_t*)>& fn) {
  for (auto& b : *buffers) {
    uint32_t i = b.file_index();
    fn(&i);
    b.set_file_index(i);
  }
}

}  // namespace

void ForEachFileIndex(pb::OperatorState* op, const std::function<void(uint32_t*)>& fn) {
  for (auto& st : *op->mutable_subtasks()) {
    for (auto& k : *st.mutable_keyed_state()) VisitKeyed(&k, fn);
    for (auto& o : *st.mutable_operator_state()) {
      uint32_t i = o.file_index();
      fn(&i);
      o.set_file_index(i);
    }
    for (auto& c : *st.mutable_input_channel_state()) VisitSlices(c.mutable_buffers(), fn);
    for (auto& c : *st.mutable_output_channel_state()) VisitSlices(c.mutable_buffers(), fn);
  }
  if (op->has_coordinator_state() &&
      op->coordinator_state().location_case() == pb::CoordinatorState::kFileIndex) {
    uint32_t i = op->coordinator_state().file_index();
    fn(&i);
    op->mutable_coordinator_state()->set_file_index(i);
  }
}

void CompactFileTable(pb::CheckpointMetadata* metadata, const std::vector<bool>& keep) {
  std::vector<uint32_t> new_index(metadata->files_size(), 0);
  google::protobuf::RepeatedPtrField<pb::FileEntry> kept;
  for (int i = 0; i < metadata->files_size(); ++i) {
    if (static_cast<size_t>(i) < keep.size() && keep[i]) {
      new_index[i] = static_cast<uint32_t>(kept.size());
      *kept.Add() = metadata->files(i);
    }
  }
  metadata->mutable_files()->Swap(&kept);
  for (auto& op : *metadata->mutable_operators()) {
    ForEachFileIndex(&op, [&](uint32_t* i) {
      if (*i < new_index.size()) *i = new_index[*i];
    });
  }
}

std::vector<std::string> PlanOutputPaths(const pb::CheckpointMetadata& metadata) {
  std::vector<std::string> out(metadata.files_size());
  std::set<std::string> taken;
  // EXCLUSIVE files keep their names; claim those first so a shared file never displaces one.
  for (int i = 0; i < metadata.files_size(); ++i) {
    const auto& f = metadata.files(i);
    if (f.scope() == pb::EXCLUSIVE && taken.insert(f.path()).second) out[i] = f.path();
  }
  for (int i = 0; i < metadata.files_size(); ++i) {
    if (!out[i].empty()) continue;
    const auto& f = metadata.files(i);
    std::string base;
    switch (f.scope()) {
      case pb::SHARED: base = "shared/" + f.path(); break;
      case pb::TASK_OWNED: base = "taskowned/" + f.path(); break;
      case pb::EXTERNAL: base = "external/" + base::BaseName(f.path()); break;
      default: base = "files/" + base::BaseName(f.path()); break;
    }
    std::string candidate = base;
    for (int n = 1; !taken.insert(candidate).second; ++n) {
      candidate = base + "-" + std::to_string(n);
    }
    out[i] = candidate;
  }
  return out;
}

void MakeSelfContained(pb::CheckpointMetadata* metadata, const std::vector<std::string>& paths,
                       const std::string& provenance_key, const std::string& source_dir) {
  // The copy keeps the snapshot's true kind: handles are copied, not materialized, so RocksDB
  // or changelog handles make a NATIVE savepoint (tied to its backend), never a canonical one.
  bool native = false;
  for (const auto& op : metadata->operators()) {
    for (const auto& st : op.subtasks()) {
      for (const auto& h : st.keyed_state()) native = native || h.has_rocksdb() || h.has_changelog();
    }
  }
  for (int i = 0; i < metadata->files_size(); ++i) {
    auto* f = metadata->mutable_files(i);
    native = native || f->kind() == pb::ROCKSDB_SST || f->kind() == pb::ROCKSDB_META ||
             f->kind() == pb::CHANGELOG;
    f->set_path(paths[i]);
    f->set_scope(pb::EXCLUSIVE);
    f->set_created_by_checkpoint_id(metadata->checkpoint_id());
  }
  if (metadata->kind() != pb::SAVEPOINT) {
    metadata->set_kind(pb::SAVEPOINT);
    // A checkpoint's retention policy means nothing for a user-owned savepoint.
    metadata->set_retention(pb::RETENTION_POLICY_UNSPECIFIED);
  }
  if (native) {
    metadata->set_savepoint_format(pb::NATIVE);
  } else if (metadata->savepoint_format() == pb::SAVEPOINT_FORMAT_UNSPECIFIED) {
    metadata->set_savepoint_format(pb::CANONICAL);
  }
  // Every file is now the snapshot's own: nothing is referenced from an earlier checkpoint.
  metadata->set_checkpoint_type(pb::FULL);
  (*metadata->mutable_properties())[provenance_key] = source_dir;
}

base::Result<std::vector<RelocatedFile>> PlanCopy(const std::string& source_dir,
                                                  const pb::CheckpointMetadata& metadata,
                                                  const std::vector<std::string>& paths) {
  std::vector<RelocatedFile> files;
  files.reserve(metadata.files_size());
  for (int i = 0; i < metadata.files_size(); ++i) {
    const auto& f = metadata.files(i);
    auto resolved = format::ResolveFile(source_dir, f);
    if (!resolved.ok()) {
      return resolved.status().WithContext(base::JoinPath(source_dir, format::kMetadataFileName) +
                                           ": file #" + std::to_string(i));
    }
    RelocatedFile rf;
    rf.source_path = *resolved;
    rf.output_path = paths[i];
    rf.original_scope = std::string(ScopeName(f.scope()));
    rf.size_bytes = f.size_bytes();
    rf.checksum_xxh3 = f.checksum_xxh3();
    files.push_back(std::move(rf));
  }
  return files;
}

RelocatedFile SamePathCopy(const std::string& source_dir, const std::string& path,
                           uint64_t size_bytes) {
  RelocatedFile f;
  f.source_path = base::JoinPath(source_dir, path);
  f.output_path = path;
  f.original_scope = "exclusive";
  f.size_bytes = size_bytes;
  return f;
}

MetadataWriter WriteMetadataBytes(base::Fs& fs, const std::string& metadata_bytes,
                                  const std::vector<std::pair<std::string, std::string>>* new_files) {
  return [&fs, &metadata_bytes, new_files](const std::string& dir) -> base::Status {
    if (new_files != nullptr) {
      for (const auto& [name, bytes] : *new_files) {
        CKPT_RETURN_IF_ERROR(fs.PublishAtomic(base::JoinPath(dir, name), bytes));
      }
    }
    return fs.PublishAtomic(base::JoinPath(dir, format::kMetadataFileName), metadata_bytes);
  };
}

base::Status CheckOutputAbsent(base::Fs& fs, const std::string& path) {
  auto info = fs.Stat(path);
  if (info.ok()) {
    return base::Status::AlreadyExists(path + " already exists; refusing to overwrite it");
  }
  if (info.status().IsNotFound()) return base::Status::OK();
  return info.status();
}

namespace {

// "<output_dir>.tmp", where WriteSnapshotCopyWith builds the copy.
std::string TempOutputDir(const std::string& output_dir) {
  std::string dir = output_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + ".tmp";
}

// Opens a referenced file, checking it is there with the size the metadata records.
base::Result<std::unique_ptr<base::RandomAccessFile>> OpenSource(base::Fs& fs,
                                                                 const RelocatedFile& file) {
  auto src = fs.OpenRead(file.source_path);
  if (!src.ok()) {
    if (src.status().IsNotFound()) {
      return base::Status::Corruption("referenced file " + file.source_path + " is missing");
    }
    return src.status();
  }
  if ((*src)->Size() != file.size_bytes) {
    return base::Status::Corruption("referenced file " + file.source_path + " has " +
                                    std::to_string((*src)->Size()) + " bytes, metadata says " +
                                    std::to_string(file.size_bytes));
  }
  return src;
}

// Reads `src` whole, in blocks, handing each to `sink` (nullptr: read only); checks its XXH3
// against the metadata when `verify_checksum`.
base::Status Transfer(const base::RandomAccessFile& src, const RelocatedFile& file,
                      base::WritableFile* sink, bool verify_checksum,
                      const base::Progress& progress, uint64_t* done, uint64_t total,
                      std::string* buffer) {
  base::Xxh3Stream hash;
  uint64_t offset = 0;
  while (offset < file.size_bytes) {
    if (progress.cancelled()) return base::Status::Cancelled("copy of " + file.source_path);
    size_t want = static_cast<size_t>(std::min<uint64_t>(kCopyBlockBytes, file.size_bytes - offset));
    CKPT_ASSIGN_OR_RETURN(size_t got, src.ReadAt(offset, want, buffer->data()));
    if (got == 0) {
      return base::Status::Corruption("referenced file " + file.source_path +
                                      " ended early at byte " + std::to_string(offset));
    }
    std::string_view chunk(buffer->data(), got);
    hash.Update(chunk);
    if (sink != nullptr) CKPT_RETURN_IF_ERROR(sink->Append(chunk));
    offset += got;
    *done += got;
    progress.Report(*done, total, file.source_path);
  }
  if (verify_checksum && hash.Digest() != file.checksum_xxh3) {
    return base::Status::Corruption("referenced file " + file.source_path + " has XXH3 " +
                                    base::ChecksumHex(hash.Digest()) + ", metadata says " +
                                    base::ChecksumHex(file.checksum_xxh3));
  }
  return base::Status::OK();
}

// Brings one file into the copy at `dest` (created exclusively): a hard link where asked and
// possible, else a copy. Checked first either way, so a link never publishes a damaged file.
base::Status CopyOrLink(base::Fs& fs, const RelocatedFile& file, const std::string& dest,
                        const CopyOptions& options, const base::Progress& progress,
                        uint64_t* done, uint64_t total, std::string* buffer, CopyResult* result) {
  CKPT_ASSIGN_OR_RETURN(auto src, OpenSource(fs, file));
  if (options.transfer == FileTransfer::kLinkOrCopy) {
    if (options.verify_checksums) {
      CKPT_RETURN_IF_ERROR(Transfer(*src, file, nullptr, true, progress, done, total, buffer));
    }
    base::Status linked = fs.HardLink(file.source_path, dest);
    if (linked.ok()) {
      if (!options.verify_checksums) {
        *done += file.size_bytes;
        progress.Report(*done, total, file.source_path);
      }
      ++result->files_linked;
      return base::Status::OK();
    }
    if (linked.code() != base::StatusCode::kUnimplemented) return linked;
    if (options.verify_checksums) *done -= file.size_bytes;  // counted again by the copy
  }
  CKPT_ASSIGN_OR_RETURN(auto out, fs.OpenWriteExclusive(dest));
  CKPT_RETURN_IF_ERROR(Transfer(*src, file, out.get(), options.verify_checksums, progress, done,
                                total, buffer));
  CKPT_RETURN_IF_ERROR(out->Sync());
  CKPT_RETURN_IF_ERROR(out->Close());
  result->bytes_copied += file.size_bytes;
  return base::Status::OK();
}

base::Result<CopyResult> CopyAll(base::Fs& fs, const std::vector<RelocatedFile>& files,
                                 const std::string& output_dir,
                                 const MetadataWriter& write_metadata, const CopyOptions& options,
                                 const base::Progress& progress) {
  uint64_t total = 0;
  for (const auto& f : files) total += f.size_bytes;
  std::set<std::string> dirs{output_dir};
  uint64_t done = 0;
  CopyResult result;
  std::string buffer(kCopyBlockBytes, '\0');
  for (const auto& f : files) {
    std::string dest = base::JoinPath(output_dir, f.output_path);
    std::string parent = base::DirName(dest);
    if (dirs.insert(parent).second) {
      CKPT_RETURN_IF_ERROR(fs.CreateDirs(parent));
      // Intermediate directories need their entries synced too.
      for (std::string up = base::DirName(parent); up.size() > output_dir.size();
           up = base::DirName(up)) {
        dirs.insert(up);
      }
    }
    CKPT_RETURN_IF_ERROR(
        CopyOrLink(fs, f, dest, options, progress, &done, total, &buffer, &result));
  }
  // Children before parents, so every new directory entry is durable before `_metadata`.
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) CKPT_RETURN_IF_ERROR(fs.SyncDir(*it));
  CKPT_RETURN_IF_ERROR(write_metadata(output_dir));
  return result;
}

}  // namespace

base::Result<CopyResult> WriteSnapshotCopy(base::Fs& fs, const std::vector<RelocatedFile>& files,
                                           const std::string& output_dir,
                                           const pb::CheckpointMetadata& output_metadata,
                                           const CopyOptions& options,
                                           const base::Progress& progress) {
  return WriteSnapshotCopyWith(
      fs, files, output_dir,
      [&](const std::string& dir) { return format::WriteMetadataFile(fs, dir, output_metadata); },
      options, progress);
}

base::Result<CopyResult> WriteSnapshotCopyWith(base::Fs& fs,
                                               const std::vector<RelocatedFile>& files,
                                               const std::string& output_dir,
                                               const MetadataWriter& write_metadata,
                                               const CopyOptions& options,
                                               const base::Progress& progress) {
  CKPT_RETURN_IF_ERROR(CheckOutputAbsent(fs, output_dir));
  // Built in OUT.tmp and renamed (RocksDB's Checkpoint does the same): OUT either does not
  // exist or is complete. A leftover OUT.tmp may be someone's data: refuse rather than delete.
  const std::string tmp = TempOutputDir(output_dir);
  if (fs.Stat(tmp).ok()) {
    return base::Status::AlreadyExists(tmp + " exists (left by an interrupted run?); remove it "
                                       "to write " + output_dir);
  }
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(tmp));
  auto copied = CopyAll(fs, files, tmp, write_metadata, options, progress);
  base::Result<Publication> publication =
      copied.ok() ? PublishIfValid(fs, tmp, output_dir, progress)
                  : base::Result<Publication>(copied.status());
  if (!publication.ok()) {
    // Never leave a half-written copy that a user might mistake for a snapshot.
    base::RemoveAll(fs, tmp).IgnoreError();
    return publication.status().WithContext("writing " + output_dir);
  }
  copied->published = publication->published;
  copied->refused = std::move(publication->refused);
  copied->verification = std::move(publication->verification);
  return copied;
}

}  // namespace ckpt::ops::internal
