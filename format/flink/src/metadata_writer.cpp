// SerializeFlinkMetadata: Flink's MetadataV2V3SerializerBase.serializeMetadata with the
// operator layouts of MetadataV2 (legacy fields), V3/V4 (coordinator state, finished subtasks,
// properties trailer), V5 (name and uid), V6 (channel handles V2) and V7 (refCheckpointId).
// Handle encoding lives in handle_writer.cpp.
#include "ckpt/flink/metadata_writer.h"

#include <algorithm>

#include "ckpt/flink/data_output.h"
#include "handle_writer.h"

namespace ckpt::flink {
namespace {

using base::Status;

Status WriteMasterState(DataOutput& out, const MasterState& ms, uint32_t version) {
  DataOutput body;
  body.WriteI32(ms.version);
  Status st = body.WriteUtf(ms.name, "master state name");
  if (st.ok()) st = body.WriteLengthPrefixed(ms.payload, "master state payload");
  if (!st.ok()) {
    return Status::InvalidArgument("cannot write Flink metadata v" + std::to_string(version) +
                                   ": master state '" + ms.name + "': " + st.message());
  }
  out.WriteI32(static_cast<int32_t>(kMasterStateMagic));
  return out.WriteLengthPrefixed(body.bytes(), "master state");
}

// The subtask-state singletons: Flink writes 1 and the handle, or 0.
Status WriteOptionalOperatorHandle(internal::HandleWriter& w,
                                   const std::optional<OperatorHandle>& h) {
  if (!h.has_value() || h->tag == 0) {
    w.out().WriteI32(0);
    return Status::OK();
  }
  w.out().WriteI32(1);
  return w.WriteOperatorHandle(*h);
}

Status WriteSubtaskState(internal::HandleWriter& w, const SubtaskState& st) {
  CKPT_RETURN_IF_ERROR(WriteOptionalOperatorHandle(w, st.managed_operator));
  CKPT_RETURN_IF_ERROR(WriteOptionalOperatorHandle(w, st.raw_operator));
  CKPT_RETURN_IF_ERROR(w.WriteKeyedHandle(st.managed_keyed));
  CKPT_RETURN_IF_ERROR(w.WriteKeyedHandle(st.raw_keyed));
  if (w.version() == 2) {
    if (!st.input_channels.empty() || !st.result_subpartitions.empty()) {
      return w.Invalid("channel (in-flight) state needs metadata v3+");
    }
    return Status::OK();
  }
  for (const auto* list : {&st.input_channels, &st.result_subpartitions}) {
    w.out().WriteI32(static_cast<int32_t>(list->size()));
    const bool input = list == &st.input_channels;
    for (const auto& c : *list) {
      if (c.input != input) {
        return w.Invalid(std::string("a ") + (c.input ? "input channel" : "result subpartition") +
                         " handle in the " + (input ? "input channel" : "result subpartition") +
                         " list");
      }
      CKPT_RETURN_IF_ERROR(w.WriteChannelHandle(c));
    }
  }
  if (w.version() >= 7) {
    if (st.ref_checkpoint_id.has_value()) {
      w.out().WriteU8(1);
      w.out().WriteI64(*st.ref_checkpoint_id);
    } else {
      w.out().WriteU8(0);
    }
  } else if (st.ref_checkpoint_id.has_value()) {
    return w.Invalid("a ref checkpoint id needs metadata v7");
  }
  return Status::OK();
}

void WriteOperatorId(DataOutput& out, const OperatorState& op) {
  out.WriteBytes(std::string_view(reinterpret_cast<const char*>(op.id), 16));
}

// One subtask entry in file order: a subtask state (index into op.subtasks) or a finished index.
struct Entry {
  bool finished = false;
  size_t subtask = 0;   // !finished
  int32_t index = 0;    // the subtask index
};

// The entries in the order they were read (entry_order), or by ascending subtask index when the
// order does not describe the subtasks (a model built or edited by hand).
std::vector<Entry> EntryOrder(const OperatorState& op) {
  std::vector<Entry> entries;
  if (op.entry_order.size() == op.subtasks.size() + op.finished_subtasks.size()) {
    size_t s = 0, f = 0;
    bool consistent = true;
    for (int32_t idx : op.entry_order) {
      if (idx >= 0) {
        if (s >= op.subtasks.size() || op.subtasks[s].index != idx) { consistent = false; break; }
        entries.push_back({false, s++, idx});
      } else {
        const int32_t finished = -(idx + 1);
        if (f >= op.finished_subtasks.size() || op.finished_subtasks[f] != finished) {
          consistent = false;
          break;
        }
        ++f;
        entries.push_back({true, 0, finished});
      }
    }
    if (consistent) return entries;
    entries.clear();
  }
  for (size_t s = 0; s < op.subtasks.size(); ++s) entries.push_back({false, s, op.subtasks[s].index});
  for (int32_t f : op.finished_subtasks) entries.push_back({true, 0, f});
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.index < b.index; });
  return entries;
}

Status WriteOperatorState(internal::HandleWriter& w, const OperatorState& op) {
  DataOutput& out = w.out();
  const std::string who = "operator " + op.IdHex() + (op.uid.empty() ? "" : " (uid " + op.uid + ")");
  w.set_where(who);
  if (w.version() >= 5) {
    CKPT_RETURN_IF_ERROR(w.Utf(op.name, "operator name"));
    CKPT_RETURN_IF_ERROR(w.Utf(op.uid, "operator uid"));
  } else if (!op.name.empty() || !op.uid.empty()) {
    return w.Invalid("operator name and uid need metadata v5+");
  }
  WriteOperatorId(out, op);
  out.WriteI32(op.parallelism);
  out.WriteI32(op.max_parallelism);
  if (w.version() == 2) {
    if (!op.coordinator.is_null()) return w.Invalid("coordinator state needs metadata v3+");
    if (op.fully_finished || !op.finished_subtasks.empty()) {
      return w.Invalid("finished subtasks need metadata v3+");
    }
    out.WriteI32(op.v2_chain_length);
    out.WriteI32(static_cast<int32_t>(op.subtasks.size()));
    for (const auto& st : op.subtasks) {
      w.set_where(who + " subtask " + std::to_string(st.index));
      if (st.index < 0) return w.Invalid("negative subtask index");
      out.WriteI32(st.index);
      out.WriteI64(st.v2_duration);
      out.WriteI32(0);  // legacy task states
      CKPT_RETURN_IF_ERROR(WriteSubtaskState(w, st));
    }
    return Status::OK();
  }
  if (!op.coordinator.is_null() && op.coordinator.type != StreamHandle::Type::kByteStream) {
    return w.Invalid("coordinator state must be inline (a byte stream handle)");
  }
  CKPT_RETURN_IF_ERROR(w.WriteStreamHandle(op.coordinator));
  if (op.fully_finished) {
    if (!op.coordinator.is_null() || !op.subtasks.empty() || !op.finished_subtasks.empty()) {
      return w.Invalid("a fully finished operator holds no coordinator or subtask state");
    }
    out.WriteI32(-1);
    return Status::OK();
  }
  const std::vector<Entry> entries = EntryOrder(op);
  out.WriteI32(static_cast<int32_t>(entries.size()));
  for (const Entry& e : entries) {
    w.set_where(who + " subtask " + std::to_string(e.index));
    if (e.index < 0) return w.Invalid("negative subtask index");
    if (e.finished) {
      out.WriteI32(-(e.index + 1));
      continue;
    }
    out.WriteI32(e.index);
    CKPT_RETURN_IF_ERROR(WriteSubtaskState(w, op.subtasks[e.subtask]));
  }
  return Status::OK();
}

}  // namespace

base::Result<std::string> SerializeFlinkMetadata(const Metadata& md) {
  if (md.version < kMinVersion || md.version > kMaxVersion) {
    return Status::Unimplemented("cannot write Flink metadata version " +
                                 std::to_string(md.version) + " (this writer knows 2-7)");
  }
  if (md.checkpoint_id < 0) {
    return Status::InvalidArgument("cannot write a negative checkpoint id " +
                                   std::to_string(md.checkpoint_id));
  }
  if (md.version < 4 && !md.trailer.empty()) {
    return Status::InvalidArgument("Flink metadata v" + std::to_string(md.version) +
                                   " has no CheckpointProperties trailer (needs v4+)");
  }
  DataOutput out;
  out.WriteI32(static_cast<int32_t>(kMetadataMagic));
  out.WriteI32(static_cast<int32_t>(md.version));
  out.WriteI64(md.checkpoint_id);
  out.WriteI32(static_cast<int32_t>(md.master_states.size()));
  for (const auto& ms : md.master_states) CKPT_RETURN_IF_ERROR(WriteMasterState(out, ms, md.version));
  out.WriteI32(static_cast<int32_t>(md.operators.size()));
  internal::HandleWriter w(out, md.version);
  for (const auto& op : md.operators) CKPT_RETURN_IF_ERROR(WriteOperatorState(w, op));
  out.WriteBytes(md.trailer);
  return out.Release();
}

base::Status WriteFlinkMetadata(base::Fs& fs, const Metadata& md, const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(std::string bytes, SerializeFlinkMetadata(md));
  return fs.PublishAtomic(path, bytes);
}

}  // namespace ckpt::flink
