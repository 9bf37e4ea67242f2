// HandleWriter: Flink's serializeStreamStateHandle / serializeKeyedStateHandle /
// serializeOperatorStateHandle and ChannelStateHandleSerializerV1/V2, over the reader's model.
#include "handle_writer.h"

#include "handle_reader.h"

namespace ckpt::flink::internal {
using base::Status;

Status HandleWriter::Invalid(const std::string& what) const {
  return Status::InvalidArgument("cannot write Flink metadata v" + std::to_string(version_) +
                                 (where_.empty() ? "" : ": " + where_) + ": " + what);
}

Status HandleWriter::Utf(std::string_view s, const char* field) {
  Status st = out_.WriteUtf(s, field);
  if (!st.ok()) return Invalid(st.message());
  return Status::OK();
}

Status HandleWriter::WriteStreamHandle(const StreamHandle& h) {
  switch (h.type) {
    case StreamHandle::Type::kNull:
      out_.WriteU8(0);
      return Status::OK();
    case StreamHandle::Type::kByteStream: {
      out_.WriteU8(1);
      CKPT_RETURN_IF_ERROR(Utf(h.handle_name, "byte stream handle name"));
      Status st = out_.WriteLengthPrefixed(h.data, "byte stream handle data");
      if (!st.ok()) return Invalid(st.message());
      return Status::OK();
    }
    case StreamHandle::Type::kFile:
      if (h.size < 0) return Invalid("negative file state size");
      out_.WriteU8(2);
      out_.WriteI64(h.size);
      return Utf(h.path, "file state handle path");
    case StreamHandle::Type::kRelativeFile:
      if (h.size < 0) return Invalid("negative file state size");
      out_.WriteU8(6);
      CKPT_RETURN_IF_ERROR(Utf(h.path, "relative state handle path"));
      out_.WriteI64(h.size);
      return Status::OK();
    case StreamHandle::Type::kKeyGroups:
      if (h.nested == nullptr) return Invalid("nested key-groups stream handle without a body");
      out_.WriteU8(3);
      return WriteKeyGroupsBody(*h.nested, false);
    case StreamHandle::Type::kSegmentFile:
      if (h.segment_scope != 0 && h.segment_scope != 1) {
        return Invalid("unknown segment scope " + std::to_string(h.segment_scope));
      }
      out_.WriteU8(15);
      out_.WriteI64(h.start_pos);
      out_.WriteI64(h.size);
      out_.WriteI32(h.segment_scope);
      CKPT_RETURN_IF_ERROR(Utf(h.path, "segment file path"));
      return Utf(h.logical_file_id, "segment logical file id");
    case StreamHandle::Type::kEmptySegment:
      out_.WriteU8(16);
      return Status::OK();
  }
  return Invalid("unknown stream state handle type " + std::to_string(static_cast<int>(h.type)));
}

Status HandleWriter::WriteKeyGroupsBody(const KeyGroupsHandle& kg, bool with_id) {
  if (++depth_ > kMaxHandleDepth) return Invalid("state handles nested too deeply");
  if (kg.count < 0 || static_cast<size_t>(kg.count) != kg.offsets.size()) {
    return Invalid("key-group range of " + std::to_string(kg.count) + " groups with " +
                   std::to_string(kg.offsets.size()) + " offsets");
  }
  out_.WriteI32(kg.start);
  out_.WriteI32(kg.count);
  for (int64_t off : kg.offsets) out_.WriteI64(off);
  CKPT_RETURN_IF_ERROR(WriteStreamHandle(kg.delegate));
  if (with_id) CKPT_RETURN_IF_ERROR(Utf(kg.state_handle_id, "state handle id"));
  --depth_;
  return Status::OK();
}

Status HandleWriter::WriteLocalPathList(const std::vector<LocalPathHandle>& list) {
  out_.WriteI32(static_cast<int32_t>(list.size()));
  for (const auto& lp : list) {
    CKPT_RETURN_IF_ERROR(Utf(lp.local_path, "RocksDB file name"));
    CKPT_RETURN_IF_ERROR(WriteStreamHandle(lp.handle));
  }
  return Status::OK();
}

Status HandleWriter::WriteKeyedHandle(const KeyedHandle& h) {
  using Tag = KeyedHandle::Tag;
  auto range = [&] {
    out_.WriteI32(h.kg_start);
    out_.WriteI32(h.kg_count);
  };
  switch (h.tag) {
    case Tag::kNull:
      out_.WriteI8(0);
      return Status::OK();
    case Tag::kKeyGroups:
    case Tag::kSavepointKeyGroups:
    case Tag::kKeyGroupsV2:
      if (h.key_groups == nullptr) return Invalid("key-groups handle without a body");
      out_.WriteI8(static_cast<int8_t>(h.tag));
      return WriteKeyGroupsBody(*h.key_groups, h.tag == Tag::kKeyGroupsV2);
    case Tag::kIncremental:
    case Tag::kIncrementalV2:
      out_.WriteI8(static_cast<int8_t>(h.tag));
      out_.WriteI64(h.checkpoint_id);
      CKPT_RETURN_IF_ERROR(Utf(h.backend_id, "backend id"));
      range();
      if (h.tag == Tag::kIncrementalV2) out_.WriteI64(h.checkpointed_size);
      CKPT_RETURN_IF_ERROR(WriteStreamHandle(h.meta));
      CKPT_RETURN_IF_ERROR(WriteLocalPathList(h.shared_files));
      CKPT_RETURN_IF_ERROR(WriteLocalPathList(h.private_files));
      if (h.tag == Tag::kIncrementalV2) CKPT_RETURN_IF_ERROR(Utf(h.state_handle_id, "state handle id"));
      return Status::OK();
    case Tag::kChangelog:
    case Tag::kChangelogV2: {
      if (++depth_ > kMaxHandleDepth) return Invalid("state handles nested too deeply");
      out_.WriteI8(static_cast<int8_t>(h.tag));
      range();
      out_.WriteI64(h.checkpointed_size);
      out_.WriteI32(static_cast<int32_t>(h.materialized.size()));
      for (const auto& m : h.materialized) CKPT_RETURN_IF_ERROR(WriteKeyedHandle(m));
      out_.WriteI32(static_cast<int32_t>(h.non_materialized.size()));
      for (const auto& d : h.non_materialized) {
        if (d.tag != Tag::kChangelogBytes && d.tag != Tag::kChangelogFile &&
            d.tag != Tag::kChangelogFileV2) {
          return Invalid("non-materialized part of a changelog handle is not a changelog increment");
        }
        CKPT_RETURN_IF_ERROR(WriteKeyedHandle(d));
      }
      out_.WriteI64(h.materialization_id);
      if (h.tag == Tag::kChangelogV2) out_.WriteI64(h.checkpoint_id);
      CKPT_RETURN_IF_ERROR(Utf(h.state_handle_id, "state handle id"));
      --depth_;
      return Status::OK();
    }
    case Tag::kChangelogBytes: {
      out_.WriteI8(9);
      range();
      out_.WriteI64(h.from_sequence);
      out_.WriteI64(h.to_sequence);
      out_.WriteI32(static_cast<int32_t>(h.changes.size()));
      for (const auto& c : h.changes) {
        out_.WriteI32(c.key_group);
        Status st = out_.WriteLengthPrefixed(c.bytes, "state change");
        if (!st.ok()) return Invalid(st.message());
      }
      return Utf(h.state_handle_id, "state handle id");
    }
    case Tag::kChangelogFile:
    case Tag::kChangelogFileV2: {
      out_.WriteI8(static_cast<int8_t>(h.tag));
      range();
      out_.WriteI32(static_cast<int32_t>(h.handles_and_offsets.size()));
      for (const auto& [off, sh] : h.handles_and_offsets) {
        out_.WriteI64(off);
        CKPT_RETURN_IF_ERROR(WriteStreamHandle(sh));
      }
      out_.WriteI64(h.state_size);
      out_.WriteI64(h.checkpointed_size);
      CKPT_RETURN_IF_ERROR(Utf(h.state_handle_id, "state handle id"));
      if (h.tag == Tag::kChangelogFileV2) {
        CKPT_RETURN_IF_ERROR(Utf(h.storage_identifier, "changelog storage identifier"));
      } else if (h.storage_identifier != "filesystem" && !h.storage_identifier.empty()) {
        return Invalid("legacy changelog file handle (tag 10) cannot hold storage identifier '" +
                       h.storage_identifier + "'");
      }
      return Status::OK();
    }
  }
  return Invalid("unknown keyed state handle tag " + std::to_string(static_cast<int>(h.tag)));
}

Status HandleWriter::WriteOperatorHandle(const OperatorHandle& h) {
  if (h.tag == 0) {
    out_.WriteI8(0);
    return Status::OK();
  }
  if (h.tag != 4 && h.tag != 17) {
    return Invalid("unknown operator state handle tag " + std::to_string(h.tag));
  }
  out_.WriteI8(static_cast<int8_t>(h.tag));
  out_.WriteI32(static_cast<int32_t>(h.states.size()));
  for (const auto& e : h.states) {
    CKPT_RETURN_IF_ERROR(Utf(e.name, "operator state name"));
    out_.WriteI8(static_cast<int8_t>(e.mode));
    out_.WriteI32(static_cast<int32_t>(e.offsets.size()));
    for (int64_t off : e.offsets) out_.WriteI64(off);
  }
  if (h.tag == 17) {
    CKPT_RETURN_IF_ERROR(Utf(h.task_owned_dir, "task-owned directory"));
    CKPT_RETURN_IF_ERROR(Utf(h.shared_dir, "shared directory"));
    out_.WriteBool(h.is_empty);
    if (h.delegate.type != StreamHandle::Type::kSegmentFile &&
        h.delegate.type != StreamHandle::Type::kEmptySegment) {
      return Invalid("file-merging operator state handle without a segment file");
    }
  }
  return WriteStreamHandle(h.delegate);
}

Status HandleWriter::WriteChannelV1Body(const ChannelHandle& c) {
  out_.WriteI32(c.subtask_index);
  out_.WriteI32(c.gate_or_partition);
  out_.WriteI32(c.channel_or_subpartition);
  out_.WriteI32(static_cast<int32_t>(c.offsets.size()));
  for (int64_t off : c.offsets) out_.WriteI64(off);
  out_.WriteI64(c.state_size);
  return WriteStreamHandle(c.delegate);
}

Status HandleWriter::WriteChannelHandle(const ChannelHandle& c) {
  if (version_ < 6) {
    if (c.merged) return Invalid("merged channel state handle (needs metadata v6+)");
    return WriteChannelV1Body(c);
  }
  if (!c.merged) {
    out_.WriteU8(c.input ? 1 : 2);
    return WriteChannelV1Body(c);
  }
  out_.WriteU8(c.input ? 3 : 4);
  out_.WriteI32(c.subtask_index);
  out_.WriteI64(c.state_size);
  CKPT_RETURN_IF_ERROR(WriteStreamHandle(c.delegate));
  Status st = out_.WriteLengthPrefixed(c.serialized_channel_offsets, "merged channel offsets");
  if (!st.ok()) return Invalid(st.message());
  return Status::OK();
}

}  // namespace ckpt::flink::internal
