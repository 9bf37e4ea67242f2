#include "ckpt/ops/pending_files.h"

#include "ckpt/base/recoverable_writer.h"
#include "ckpt/ops/operator_label.h"

namespace ckpt::ops {

using base::Status;

std::string_view PendingFileStateName(PendingFileState s) {
  switch (s) {
    case PendingFileState::kPending: return "pending";
    case PendingFileState::kCommitted: return "committed";
    case PendingFileState::kBoth: return "both";
    case PendingFileState::kMissing: return "missing";
  }
  return "missing";
}

namespace {

// The file's size, nullopt when absent; other errors name the path.
base::Result<std::optional<uint64_t>> SizeIfPresent(base::Fs& fs, const std::string& path) {
  if (path.empty()) return std::optional<uint64_t>();
  base::Result<base::FileInfo> info = fs.Stat(path);
  if (info.ok()) return std::optional<uint64_t>(info->size_bytes);
  if (info.status().IsNotFound()) return std::optional<uint64_t>();
  return Status::IOError("sink pending file " + path + ": " + info.status().ToString());
}

}  // namespace

base::Result<bool> PendingUploadIsOpen(const Committable& c) {
  CKPT_ASSIGN_OR_RETURN(base::RecoverableWriter * writer, base::RecoverableWriterFor(c.final_path));
  CKPT_ASSIGN_OR_RETURN(std::vector<base::OpenUpload> open, writer->ListOpen(c.final_path));
  for (const base::OpenUpload& u : open) {
    if (u.location == c.final_path && u.upload_id == c.upload_id) return true;
  }
  return false;
}

base::Result<std::vector<PendingFile>> ListPendingFiles(base::Fs& fs, const Snapshot& snapshot,
                                                        const base::Progress& progress) {
  std::vector<PendingFile> out;
  for (const OperatorInfo& op : snapshot.operators) {
    for (const SubtaskInfo& st : op.subtasks) {
      for (const Committable& c : st.committables) {
        if (progress.cancelled()) return Status::Cancelled("listing pending files cancelled");
        PendingFile f;
        f.operator_id_hex = op.id_hex;
        f.operator_name = OperatorLabel(op.name, op.uid, op.id_hex);
        f.subtask = st.index;
        f.committable = c;
        std::optional<uint64_t> pending;
        if (c.is_upload()) {
          // An open upload's parts are not listed: its size is the recorded one.
          CKPT_ASSIGN_OR_RETURN(const bool open, PendingUploadIsOpen(c));
          if (open) pending = c.size_bytes;
        } else {
          CKPT_ASSIGN_OR_RETURN(pending, SizeIfPresent(fs, c.pending_path));
        }
        CKPT_ASSIGN_OR_RETURN(std::optional<uint64_t> final_size, SizeIfPresent(fs, c.final_path));
        f.pending_exists = pending.has_value();
        f.final_exists = final_size.has_value();
        f.size_on_disk_bytes = pending ? pending : final_size;
        f.state = f.pending_exists ? (f.final_exists ? PendingFileState::kBoth : PendingFileState::kPending)
                                   : (f.final_exists ? PendingFileState::kCommitted : PendingFileState::kMissing);
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

}  // namespace ckpt::ops
