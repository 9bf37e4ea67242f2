// Recoverables nest: FileSink wraps the file system's CommitRecoverable / ResumeRecoverable in
// OutputStreamBased{Pending,InProgress}FileRecoverable (a big-endian magic, then the inner one
// SimpleVersioned); the local file system's LocalRecoverable is little-endian: magic, i64
// offset, i32 target length, i32 temp length, the two absolute paths.
#include "formats/flink/connector_file.h"

#include <cstdio>

#include "formats/flink/connector_common.h"

namespace ckpt::ops::internal::connector {

using base::Status;

namespace {

constexpr int32_t kPendingSplitsMagic = static_cast<int32_t>(0xDEADBEEF);
constexpr int32_t kBucketStateMagic = 0x1e764b79;
constexpr int32_t kCommittableMagic = 0x1e765c80;
constexpr int32_t kPendingWrapperMagic = 0x2c853c89;
constexpr int32_t kInProgressWrapperMagic = static_cast<int32_t>(0xb3a4073d);
constexpr int32_t kLocalRecoverableMagic = 0x1e744b57;

base::Status ExpectMagic(flink::DataInput& in, int32_t magic, const char* what) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t m, in.ReadI32());
  if (m != magic) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " magic number %08X (expected %08X)", static_cast<uint32_t>(m),
                  static_cast<uint32_t>(magic));
    return in.Error(at, std::string(what) + buf);
  }
  return Status::OK();
}

// A recoverable (SimpleVersioned bytes `v`), unwrapping FileSink's wrappers, into `t`'s paths.
Status DecodeRecoverable(const flink::DataInput& outer, const Versioned& v, SinkTransaction* t) {
  flink::DataInput in = Open(outer, v);
  if (v.bytes.size() >= 4) {
    const auto* u = reinterpret_cast<const uint8_t*>(v.bytes.data());
    const int32_t be = static_cast<int32_t>((uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) |
                                            (uint32_t{u[2]} << 8) | uint32_t{u[3]});
    if (be == kPendingWrapperMagic || be == kInProgressWrapperMagic) {
      if (v.version < 1 || v.version > 2) {
        return UnsupportedVersion(in, "file recoverable wrapper", v.version);
      }
      CKPT_RETURN_IF_ERROR(in.Skip(4));
      if (v.version == 2) {  // the target path (if known) and the size, ahead of the recoverable
        CKPT_ASSIGN_OR_RETURN(bool has_path, in.ReadBool());
        if (has_path) CKPT_RETURN_IF_ERROR(in.ReadUtf().status());
        CKPT_RETURN_IF_ERROR(in.ReadI64().status());
      }
      CKPT_ASSIGN_OR_RETURN(Versioned inner, ReadVersioned(in));
      CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a file recoverable wrapper"));
      return DecodeRecoverable(in, inner, t);
    }
  }
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t magic, ReadLeI32(in));
  if (magic != kLocalRecoverableMagic) {
    return in.Error(at, "not a local file system recoverable (only those are decoded)");
  }
  if (v.version != 1) return UnsupportedVersion(in, "LocalRecoverable", v.version);
  CKPT_ASSIGN_OR_RETURN(int64_t offset, ReadLeI64(in));
  const uint64_t lengths_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t target_len, ReadLeI32(in));
  CKPT_ASSIGN_OR_RETURN(int32_t temp_len, ReadLeI32(in));
  if (target_len < 0 || temp_len < 0 ||
      static_cast<uint64_t>(target_len) + static_cast<uint64_t>(temp_len) != in.remaining()) {
    return in.Error(lengths_at, "LocalRecoverable path lengths " + std::to_string(target_len) +
                                    " + " + std::to_string(temp_len) + " do not match the " +
                                    std::to_string(in.remaining()) + " bytes left");
  }
  CKPT_ASSIGN_OR_RETURN(std::string_view target, in.ReadBytes(static_cast<uint64_t>(target_len)));
  CKPT_ASSIGN_OR_RETURN(std::string_view temp, in.ReadBytes(static_cast<uint64_t>(temp_len)));
  if (offset < 0) return in.Error(at, "negative LocalRecoverable offset " + std::to_string(offset));
  t->final_path = std::string(target);
  t->pending_path = std::string(temp);
  t->size_bytes = static_cast<uint64_t>(offset);
  return Status::OK();
}

}  // namespace

namespace {

// `with_file_info`: the layout that also records the file's modification time and size after
// the split's range (same serializer version 1; the bytes decide).
base::Result<SourcePosition> ReadFileSplit(flink::DataInput in, bool with_file_info) {
  SourcePosition p;
  CKPT_ASSIGN_OR_RETURN(p.split_id, in.ReadUtf());
  CKPT_ASSIGN_OR_RETURN(p.path, ReadFlinkPath(in));
  CKPT_ASSIGN_OR_RETURN(p.split_offset, in.ReadI64());
  CKPT_ASSIGN_OR_RETURN(p.split_length, in.ReadI64());
  if (with_file_info) {
    CKPT_RETURN_IF_ERROR(in.ReadI64().status());  // modification time
    CKPT_RETURN_IF_ERROR(in.ReadI64().status());  // file size
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t hosts, in.ReadCount("host count", 2));
  for (uint32_t i = 0; i < hosts; ++i) CKPT_RETURN_IF_ERROR(in.ReadUtf().status());
  CKPT_ASSIGN_OR_RETURN(bool has_position, in.ReadBool());
  if (has_position) {
    CKPT_ASSIGN_OR_RETURN(p.resume_offset, in.ReadI64());
    CKPT_ASSIGN_OR_RETURN(p.records_to_skip, in.ReadI64());
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a FileSourceSplit"));
  if (*p.split_offset < 0 || *p.split_length < 0) {
    return in.Error("FileSourceSplit with a negative offset or length");
  }
  return p;
}

}  // namespace

base::Result<SourcePosition> DecodeFileSplit(int32_t version, flink::DataInput& in) {
  if (version != 1) return UnsupportedVersion(in, "FileSourceSplit", version);
  auto with_info = ReadFileSplit(in, true);
  if (with_info.ok()) return with_info;
  auto plain = ReadFileSplit(in, false);
  if (plain.ok()) return plain;
  return with_info.status();
}

base::Result<FileEnumState> DecodeFileEnumState(int32_t version, flink::DataInput& in) {
  if (version != 1) return UnsupportedVersion(in, "PendingSplitsCheckpoint", version);
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t magic, ReadLeI32(in));
  if (magic != kPendingSplitsMagic) {
    return in.Error(at, "PendingSplitsCheckpoint magic number mismatch");
  }
  CKPT_ASSIGN_OR_RETURN(int32_t split_version, ReadLeI32(in));
  const uint64_t counts_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t splits, ReadLeI32(in));
  CKPT_ASSIGN_OR_RETURN(int32_t paths, ReadLeI32(in));
  if (splits < 0 || paths < 0 ||
      (static_cast<uint64_t>(splits) + static_cast<uint64_t>(paths)) * 4 > in.remaining()) {
    return in.Error(counts_at, "PendingSplitsCheckpoint counts " + std::to_string(splits) + "/" +
                                   std::to_string(paths) + " cannot fit in the " +
                                   std::to_string(in.remaining()) + " bytes left");
  }
  FileEnumState s;
  for (int32_t i = 0; i < splits; ++i) {
    const uint64_t len_at = in.offset();
    CKPT_ASSIGN_OR_RETURN(int32_t n, ReadLeI32(in));
    if (n < 0 || static_cast<uint64_t>(n) > in.remaining()) {
      return in.Error(len_at, "split length " + std::to_string(n) + " exceeds the bytes left");
    }
    const uint64_t split_at = in.offset();
    CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadBytes(static_cast<uint64_t>(n)));
    flink::DataInput split(b, in.file(), split_at);
    CKPT_ASSIGN_OR_RETURN(SourcePosition p, DecodeFileSplit(split_version, split));
    p.origin = PositionOrigin::kEnumeratorPending;
    s.pending.push_back(std::move(p));
  }
  for (int32_t i = 0; i < paths; ++i) {
    CKPT_ASSIGN_OR_RETURN(std::string path, ReadLeString(in, "processed path"));
    s.processed_paths.push_back(std::move(path));
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a PendingSplitsCheckpoint"));
  return s;
}

base::Result<FileBucketState> DecodeFileBucketState(int32_t version, flink::DataInput& in) {
  if (version < 1 || version > 3) return UnsupportedVersion(in, "FileWriterBucketState", version);
  CKPT_RETURN_IF_ERROR(ExpectMagic(in, kBucketStateMagic, "FileWriterBucketState"));
  FileBucketState s;
  // The bucket ID through SimpleVersionedStringSerializer: a little-endian length, UTF-8.
  CKPT_ASSIGN_OR_RETURN(Versioned id, ReadVersioned(in));
  {
    flink::DataInput id_in = Open(in, id);
    CKPT_ASSIGN_OR_RETURN(s.bucket_id, ReadLeString(id_in, "bucket ID"));
    CKPT_RETURN_IF_ERROR(ExpectEnd(id_in, "a bucket ID"));
  }
  CKPT_ASSIGN_OR_RETURN(s.bucket_path, in.ReadUtf());
  CKPT_RETURN_IF_ERROR(in.ReadI64().status());  // in-progress file creation time
  CKPT_ASSIGN_OR_RETURN(bool has_in_progress, in.ReadBool());
  if (has_in_progress) {
    SinkTransaction t;
    t.action = SinkAction::kResume;
    CKPT_ASSIGN_OR_RETURN(Versioned r, ReadVersioned(in));
    CKPT_RETURN_IF_ERROR(DecodeRecoverable(in, r, &t));
    s.files.push_back(std::move(t));
  }
  if (version < 3) {
    CKPT_ASSIGN_OR_RETURN(int32_t pending_version, in.ReadI32());
    CKPT_ASSIGN_OR_RETURN(uint32_t checkpoints, in.ReadCount("checkpoint count", 12));
    for (uint32_t i = 0; i < checkpoints; ++i) {
      CKPT_ASSIGN_OR_RETURN(int64_t checkpoint_id, in.ReadI64());
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("pending file count", 4));
      for (uint32_t j = 0; j < n; ++j) {
        SinkTransaction t;
        t.action = SinkAction::kCommit;
        t.checkpoint_id = checkpoint_id;
        Versioned r;
        r.version = pending_version;
        r.offset = in.offset() + 4;
        CKPT_ASSIGN_OR_RETURN(r.bytes, in.ReadLengthPrefixed());
        CKPT_RETURN_IF_ERROR(DecodeRecoverable(in, r, &t));
        s.files.push_back(std::move(t));
      }
    }
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a FileWriterBucketState"));
  return s;
}

base::Result<std::vector<SinkTransaction>> DecodeFileCommittable(int32_t version,
                                                                 flink::DataInput& in) {
  if (version < 1 || version > 2) return UnsupportedVersion(in, "FileSinkCommittable", version);
  CKPT_RETURN_IF_ERROR(ExpectMagic(in, kCommittableMagic, "FileSinkCommittable"));
  if (version >= 2) CKPT_RETURN_IF_ERROR(in.ReadUtf().status());  // bucket ID
  std::vector<SinkTransaction> out;
  for (SinkAction action : {SinkAction::kCommit, SinkAction::kAbort}) {
    CKPT_ASSIGN_OR_RETURN(bool present, in.ReadBool());
    if (!present) continue;
    SinkTransaction t;
    t.action = action;
    CKPT_ASSIGN_OR_RETURN(Versioned r, ReadVersioned(in));
    CKPT_RETURN_IF_ERROR(DecodeRecoverable(in, r, &t));
    out.push_back(std::move(t));
  }
  if (version >= 2) {  // a compacted file to clean up (its path)
    CKPT_ASSIGN_OR_RETURN(bool present, in.ReadBool());
    if (present) CKPT_RETURN_IF_ERROR(in.ReadUtf().status());
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a FileSinkCommittable"));
  return out;
}

}  // namespace ckpt::ops::internal::connector
