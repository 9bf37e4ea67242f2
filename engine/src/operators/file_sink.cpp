// file-sink: the two-phase-commit file sink. Records become lines of
// ".part-<uid>-<subtask>-<n>.inprogress"; at a checkpoint barrier the file is closed and pending
// (recorded in the snapshot as a SinkCommittable); when that checkpoint completes it is renamed
// to "part-<uid>-<subtask>-<n>".
// On restore, the pending files of the restored snapshot are committed (idempotently) and
// in-progress files written after it are discarded. A stop-with-savepoint commits (the runtime
// notifies its completion); an intermediate savepoint does not (it is never notified), its files
// are committed by the next completed checkpoint.
// On an object store (a path with a base::RecoverableWriter, e.g. s3://bucket/out) a part file in
// progress is a multipart upload of "part-<uid>-<subtask>-<n>" instead: pending at a barrier with
// every byte uploaded, completed when the checkpoint completes (multipart_part_files.h).
#include <filesystem>

#include "ckpt/base/fs_resolver.h"

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operators/multipart_part_files.h"
#include "ckpt/engine/operators/part_file_committer.h"
#include "ckpt/engine/operators/part_file_writer.h"
#include "operators/builtin_kinds.h"
#include "operators/operator_util.h"

namespace ckpt::engine::operators {
namespace {

// Pending files closed by Finish() (end of input) wait for the next checkpoint to stamp them.
constexpr int64_t kUnstamped = -1;
// NotifyCheckpointComplete(kCommitAll) commits everything pending (job finished without
// checkpointing: nothing can be replayed any more).
constexpr int64_t kCommitAll = INT64_MAX;

struct SinkParams {
  std::string path;
  bool with_timestamp = false;
  int64_t buffer_bytes = 64 * 1024;
};

// A uid becomes part of file names: keep it to a safe alphabet.
std::string FileNameSafe(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) c = '_';
  }
  return out;
}

class FileSink final : public Operator {
 public:
  explicit FileSink(SinkParams p) : p_(std::move(p)) {}

  base::Status InitializeState(OperatorContext& ctx, bool restoring) override {
    ctx_ = &ctx;
    label_ = SubtaskLabel(ctx);
    uid_ = FileNameSafe(ctx.uid().empty() ? ctx.name() : ctx.uid());
    if (base::HasRecoverableWriter(p_.path)) {
      base::Result<base::RecoverableWriter*> writer = base::RecoverableWriterFor(p_.path);
      if (!writer.ok()) return writer.status().WithContext(label_ + ": file sink path");
      recoverable_ = *writer;
      dir_ = p_.path;
    } else {
      dir_ = std::filesystem::absolute(std::filesystem::path(p_.path)).lexically_normal().string();
    }
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    // The runtime hands this subtask the committables of the old subtasks k with
    // k % parallelism == its index (RestorePlan::Committables), the same rule RecoverPartFiles
    // applies to in-progress files, so every file has exactly one committer.
    std::vector<PendingPartFile> restored;
    if (restoring) {
      for (const pb::SinkCommittable& c : ctx.restored_committables()) {
        restored.push_back({c.pending_path(), c.final_path(), c.size_bytes(), c.checksum_xxh3(),
                            c.checkpoint_id(), c.upload_id(),
                            std::vector<std::string>(c.part_etags().begin(), c.part_etags().end())});
      }
    }
    if (recoverable_ != nullptr) return InitializeMultipart(ctx, restored);
    base::Result<PartFileRecovery> recovery = RecoverPartFiles(
        base::Fs::Default(), dir_, uid_, ctx.subtask_index(), ctx.parallelism(), restored);
    if (!recovery.ok()) return recovery.status().WithContext(label_ + ": restoring file sink");
    writer_ = std::make_unique<PartFileWriter>(base::Fs::Default(), dir_, uid_,
                                               ctx.subtask_index(), recovery->next_part_number,
                                               static_cast<size_t>(p_.buffer_bytes));
    return base::Status::OK();
  }

  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }

  base::Status ProcessElement(Record& record) override {
    line_.clear();
    AppendRecordLine(record, p_.with_timestamp, &line_);
    base::Status st = mp_writer_ ? mp_writer_->WriteLine(line_) : writer_->WriteLine(line_);
    return st.ok() ? st : st.WithContext(label_);
  }

  base::Status SnapshotState(int64_t checkpoint_id) override {
    CKPT_RETURN_IF_ERROR(CloseOpenFile(checkpoint_id));
    for (PendingPartFile& f : pending_) {
      if (f.checkpoint_id == kUnstamped) f.checkpoint_id = checkpoint_id;
    }
    return base::Status::OK();
  }

  // The pending files (SubtaskState.committables): the snapshot is their only record, so a
  // restore commits exactly the files of the snapshot it restores.
  std::vector<pb::SinkCommittable> SnapshotCommittables(int64_t checkpoint_id) override {
    (void)checkpoint_id;
    std::vector<pb::SinkCommittable> out;
    out.reserve(pending_.size());
    for (const PendingPartFile& f : pending_) {
      pb::SinkCommittable& c = out.emplace_back();
      c.set_pending_path(f.pending_path);
      c.set_final_path(f.final_path);
      c.set_size_bytes(f.size_bytes);
      c.set_checksum_xxh3(f.checksum_xxh3);
      c.set_checkpoint_id(f.checkpoint_id);
      c.set_upload_id(f.upload_id);
      for (const std::string& etag : f.part_etags) c.add_part_etags(etag);
    }
    return out;
  }

  base::Status NotifyCheckpointComplete(int64_t checkpoint_id) override {
    std::vector<PendingPartFile> still_pending;
    for (const PendingPartFile& f : pending_) {
      const bool covered = checkpoint_id == kCommitAll ||
                           (f.checkpoint_id != kUnstamped && f.checkpoint_id <= checkpoint_id);
      if (!covered) {
        still_pending.push_back(f);
        continue;
      }
      base::Status st = recoverable_ != nullptr ? CommitMultipartPartFile(*recoverable_, f)
                                                : CommitPendingPartFile(base::Fs::Default(), f);
      if (!st.ok()) return st.WithContext(label_ + ": committing checkpoint " +
                                          std::to_string(checkpoint_id));
    }
    pending_ = std::move(still_pending);
    return base::Status::OK();
  }

  base::Status Finish() override { return CloseOpenFile(kUnstamped); }

  void Close() override {
    // Whatever is still open was written after the last barrier: it stays an in-progress file
    // that the next restore discards (the records are replayed from the snapshot).
    if (writer_) writer_->Abandon();
    if (mp_writer_) mp_writer_->Abandon();
  }

 private:
  base::Status InitializeMultipart(OperatorContext& ctx,
                                   const std::vector<PendingPartFile>& restored) {
    base::Result<base::ResolvedLocation> where = base::ResolveFs(dir_);
    if (!where.ok()) return where.status().WithContext(label_ + ": file sink path");
    base::Result<PartFileRecovery> recovery =
        RecoverMultipartPartFiles(*recoverable_, *where->fs, dir_, uid_, ctx.subtask_index(),
                                  ctx.parallelism(), restored);
    if (!recovery.ok()) return recovery.status().WithContext(label_ + ": restoring file sink");
    mp_writer_ = std::make_unique<MultipartPartFileWriter>(
        *recoverable_, dir_, uid_, ctx.subtask_index(), recovery->next_part_number);
    return base::Status::OK();
  }

  base::Status CloseOpenFile(int64_t checkpoint_id) {
    base::Result<std::optional<PendingPartFile>> closed =
        mp_writer_ ? mp_writer_->CloseForCommit(checkpoint_id)
                   : writer_->CloseForCommit(checkpoint_id);
    if (!closed.ok()) return closed.status().WithContext(label_);
    if (closed->has_value()) pending_.push_back(std::move(**closed));
    return base::Status::OK();
  }

  const SinkParams p_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  std::string uid_;
  std::string dir_;
  std::unique_ptr<PartFileWriter> writer_;
  base::RecoverableWriter* recoverable_ = nullptr;  // set on an object store
  std::unique_ptr<MultipartPartFileWriter> mp_writer_;
  std::vector<PendingPartFile> pending_;
  std::string line_;
};

base::Result<std::unique_ptr<Operator>> CreateFileSink(const OperatorParams& params) {
  CKPT_RETURN_IF_ERROR(params.CheckKnownFields({"path", "with_timestamp", "buffer_bytes"}));
  SinkParams p;
  CKPT_ASSIGN_OR_RETURN(p.path, params.RequireString("path"));
  if (p.path.empty()) return params.Error("path", "must not be empty");
  CKPT_ASSIGN_OR_RETURN(p.with_timestamp, params.GetBool("with_timestamp", false));
  CKPT_ASSIGN_OR_RETURN(p.buffer_bytes,
                        GetIntInRange(params, "buffer_bytes", 64 * 1024, 1, 64 << 20));
  return std::unique_ptr<Operator>(std::make_unique<FileSink>(std::move(p)));
}

}  // namespace

base::Status RegisterFileSink(OperatorRegistry& registry) {
  return registry.Register(
      {"file-sink",
       "two-phase-commit file sink: .part-<uid>-<subtask>-<n>.inprogress, pending at a barrier, "
       "renamed to part-<uid>-<subtask>-<n> when the checkpoint completes (on s3://: a multipart "
       "upload of part-<uid>-<subtask>-<n>, completed then)",
       CreateFileSink, nullptr});
}

}  // namespace ckpt::engine::operators
