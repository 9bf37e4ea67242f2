// file-sink: the two-phase-commit file sink (ARCHITECTURE §3). Records become lines of
// ".part-<uid>-<subtask>-<n>.inprogress"; at a checkpoint barrier the file is closed and pending
// (kept in state); when that checkpoint completes it is renamed to "part-<uid>-<subtask>-<n>".
// On restore, the pending files of the restored snapshot are committed (idempotently) and
// in-progress files written after it are discarded. A stop-with-savepoint commits (the runtime
// notifies its completion); an intermediate savepoint does not (it is never notified), its files
// are committed by the next completed checkpoint.
#include <filesystem>

#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operators/part_file_committer.h"
#include "ckpt/engine/operators/part_file_writer.h"
#include "ckpt/engine/state/operator_state_store.h"
#include "ckpt/engine/state/state_descriptors.h"
#include "ckpt/format/value_codec.h"
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

pb::StateDescriptor PendingDescriptor() {
  using format::types::Int64;
  using format::types::String;
  return UnionListStateDescriptor(
      "pending-part-files",
      format::types::Tuple({String(), String(), Int64(), Int64(), Int64(), Int64()},
                           {"pending_path", "final_path", "size_bytes", "checksum_xxh3",
                            "checkpoint_id", "subtask"}));
}

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
    dir_ = std::filesystem::absolute(std::filesystem::path(p_.path)).lexically_normal().string();
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    CKPT_ASSIGN_OR_RETURN(state_, ctx.operator_state()->GetUnionListState(PendingDescriptor()));
    std::vector<PendingPartFile> restored;
    if (restoring) {
      // Union state: every subtask sees every old subtask's pending files and takes those of
      // old subtask k with k % parallelism == its index (the same rule RestorePartFiles applies
      // to in-progress files), so each file has exactly one committer.
      for (const format::Value& v : state_.Get()) {
        PendingPartFile f;
        int64_t owner = 0;
        CKPT_RETURN_IF_ERROR(Decode(v, &f, &owner));
        if (static_cast<uint64_t>(owner) % ctx.parallelism() == ctx.subtask_index()) {
          restored.push_back(std::move(f));
        }
      }
    }
    base::Result<PartFileRecovery> recovery = RecoverPartFiles(
        base::Fs::Default(), dir_, uid_, ctx.subtask_index(), ctx.parallelism(), restored);
    if (!recovery.ok()) return recovery.status().WithContext(label_ + ": restoring file sink");
    state_.Clear();
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
    base::Status st = writer_->WriteLine(line_);
    return st.ok() ? st : st.WithContext(label_);
  }

  base::Status SnapshotState(int64_t checkpoint_id) override {
    CKPT_RETURN_IF_ERROR(CloseOpenFile(checkpoint_id));
    for (PendingPartFile& f : pending_) {
      if (f.checkpoint_id == kUnstamped) f.checkpoint_id = checkpoint_id;
    }
    std::vector<format::Value> entries;
    entries.reserve(pending_.size());
    for (const PendingPartFile& f : pending_) entries.push_back(Encode(f));
    state_.Update(std::move(entries));
    return base::Status::OK();
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
      base::Status st = CommitPendingPartFile(base::Fs::Default(), f);
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
  }

  // The pending files, for the snapshot's SinkCommittable list.
  std::vector<pb::SinkCommittable> Committables() const {
    std::vector<pb::SinkCommittable> out;
    for (const PendingPartFile& f : pending_) {
      pb::SinkCommittable& c = out.emplace_back();
      c.set_pending_path(f.pending_path);
      c.set_final_path(f.final_path);
      c.set_size_bytes(f.size_bytes);
      c.set_checksum_xxh3(f.checksum_xxh3);
      c.set_checkpoint_id(f.checkpoint_id);
    }
    return out;
  }

 private:
  base::Status CloseOpenFile(int64_t checkpoint_id) {
    base::Result<std::optional<PendingPartFile>> closed = writer_->CloseForCommit(checkpoint_id);
    if (!closed.ok()) return closed.status().WithContext(label_);
    if (closed->has_value()) pending_.push_back(std::move(**closed));
    return base::Status::OK();
  }

  format::Value Encode(const PendingPartFile& f) const {
    return format::Tuple{{format::Value(f.pending_path), format::Value(f.final_path),
                          format::Value(static_cast<int64_t>(f.size_bytes)),
                          format::Value(static_cast<int64_t>(f.checksum_xxh3)),
                          format::Value(f.checkpoint_id),
                          format::Value(static_cast<int64_t>(ctx_->subtask_index()))}};
  }

  base::Status Decode(const format::Value& v, PendingPartFile* f, int64_t* owner) const {
    const auto* t = std::get_if<format::Tuple>(&v.v);
    auto str = [&](size_t i) { return std::get_if<std::string>(&t->fields[i].v); };
    auto num = [&](size_t i) { return std::get_if<int64_t>(&t->fields[i].v); };
    if (t == nullptr || t->fields.size() != 6 || !str(0) || !str(1) || !num(2) || !num(3) ||
        !num(4) || !num(5)) {
      return base::Status::Corruption(label_ + ": restored state 'pending-part-files' has a " +
                                      "malformed entry");
    }
    f->pending_path = *str(0);
    f->final_path = *str(1);
    f->size_bytes = static_cast<uint64_t>(*num(2));
    f->checksum_xxh3 = static_cast<uint64_t>(*num(3));
    f->checkpoint_id = *num(4);
    *owner = *num(5);
    return base::Status::OK();
  }

  const SinkParams p_;
  OperatorContext* ctx_ = nullptr;
  std::string label_;
  std::string uid_;
  std::string dir_;
  OperatorListState state_;
  std::unique_ptr<PartFileWriter> writer_;
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
       "renamed to part-<uid>-<subtask>-<n> when the checkpoint completes",
       CreateFileSink, nullptr});
}

}  // namespace ckpt::engine::operators
