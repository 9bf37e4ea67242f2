// HandleReader: Flink's deserializeStreamStateHandle / deserializeKeyedStateHandle /
// deserializeOperatorStateHandle and ChannelStateHandleSerializerV1/V2, bounds-checked.
#include "handle_reader.h"

#include "ckpt/flink/metadata_reader.h"

namespace ckpt::flink::internal {
using base::Status;

base::Result<StreamHandle> HandleReader::ReadStreamHandle() {
  StreamHandle h;
  CKPT_RETURN_IF_ERROR(ReadStreamHandleInto(&h));
  return h;
}

base::Result<KeyedHandle> HandleReader::ReadKeyedHandle() {
  KeyedHandle h;
  CKPT_RETURN_IF_ERROR(ReadKeyedHandleInto(&h));
  return h;
}

base::Result<OperatorHandle> HandleReader::ReadOperatorHandle() {
  OperatorHandle h;
  CKPT_RETURN_IF_ERROR(ReadOperatorHandleInto(&h));
  return h;
}

Status HandleReader::ReadStreamHandleInto(StreamHandle* out) {
  StreamHandle& h = *out;
  h.metadata_offset = in_.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t tag, in_.ReadU8());
  switch (tag) {
    case 0:
      h.type = StreamHandle::Type::kNull;
      return Status::OK();
    case 1: {
      h.type = StreamHandle::Type::kByteStream;
      CKPT_ASSIGN_OR_RETURN(h.handle_name, in_.ReadUtf());
      CKPT_ASSIGN_OR_RETURN(std::string_view data, in_.ReadLengthPrefixed());
      h.data.assign(data);
      h.size = static_cast<int64_t>(data.size());
      return Status::OK();
    }
    case 2: {
      h.type = StreamHandle::Type::kFile;
      const uint64_t at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(h.size, in_.ReadI64());
      if (h.size < 0) return in_.Error(at, "negative file state size " + std::to_string(h.size));
      CKPT_ASSIGN_OR_RETURN(h.path, in_.ReadUtf());
      if (h.path.empty()) return in_.Error(at, "empty file state handle path");
      return Status::OK();
    }
    case 6: {
      h.type = StreamHandle::Type::kRelativeFile;
      const uint64_t at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(h.path, in_.ReadUtf());
      Status ok = CheckRelativeHandlePath(h.path);
      if (!ok.ok()) return in_.Error(at, ok.message());
      const uint64_t size_at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(h.size, in_.ReadI64());
      if (h.size < 0) return in_.Error(size_at, "negative file state size " + std::to_string(h.size));
      return Status::OK();
    }
    case 3: {
      h.type = StreamHandle::Type::kKeyGroups;
      CKPT_ASSIGN_OR_RETURN(h.nested, ReadKeyGroupsBody(false));
      h.size = h.nested->delegate.size;
      return Status::OK();
    }
    case 15: {
      h.type = StreamHandle::Type::kSegmentFile;
      const uint64_t at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(h.start_pos, in_.ReadI64());
      CKPT_ASSIGN_OR_RETURN(h.size, in_.ReadI64());
      if (h.start_pos < 0 || h.size < 0) return in_.Error(at, "negative segment position or size");
      const uint64_t scope_at = in_.offset();
      CKPT_ASSIGN_OR_RETURN(h.segment_scope, in_.ReadI32());
      if (h.segment_scope != 0 && h.segment_scope != 1) {
        return in_.Error(scope_at, "unknown segment scope " + std::to_string(h.segment_scope));
      }
      CKPT_ASSIGN_OR_RETURN(h.path, in_.ReadUtf());
      CKPT_ASSIGN_OR_RETURN(h.logical_file_id, in_.ReadUtf());
      return Status::OK();
    }
    case 16:
      h.type = StreamHandle::Type::kEmptySegment;
      return Status::OK();
    default:
      return in_.Error(h.metadata_offset, "unknown stream state handle tag " + std::to_string(tag));
  }
}

base::Result<std::shared_ptr<const KeyGroupsHandle>> HandleReader::ReadKeyGroupsBody(bool with_id) {
  if (++depth_ > kMaxHandleDepth) return in_.Error("state handles nested too deeply");
  auto kg = std::make_shared<KeyGroupsHandle>();
  const uint64_t at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(kg->start, in_.ReadI32());
  CKPT_ASSIGN_OR_RETURN(uint32_t count, in_.ReadCount("key group count", 8));
  if (kg->start < 0) return in_.Error(at, "negative first key group " + std::to_string(kg->start));
  kg->count = static_cast<int32_t>(count);
  CKPT_RETURN_IF_ERROR(in_.ReadI64Array(count, &kg->offsets));
  CKPT_RETURN_IF_ERROR(ReadStreamHandleInto(&kg->delegate));
  if (with_id) {
    CKPT_ASSIGN_OR_RETURN(kg->state_handle_id, in_.ReadUtf());
  }
  --depth_;
  return std::shared_ptr<const KeyGroupsHandle>(std::move(kg));
}

base::Result<std::vector<LocalPathHandle>> HandleReader::ReadLocalPathList() {
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("file list size", 3));
  std::vector<LocalPathHandle> out;
  out.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    LocalPathHandle lp;
    CKPT_ASSIGN_OR_RETURN(lp.local_path, in_.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(lp.handle, ReadStreamHandle());
    out.push_back(std::move(lp));
  }
  return out;
}

Status HandleReader::ReadKeyedHandleInto(KeyedHandle* out) {
  KeyedHandle& h = *out;
  h.metadata_offset = in_.offset();
  CKPT_ASSIGN_OR_RETURN(int8_t tag, in_.ReadI8());
  auto read_range = [&]() -> Status {
    const uint64_t at = in_.offset();
    CKPT_ASSIGN_OR_RETURN(h.kg_start, in_.ReadI32());
    CKPT_ASSIGN_OR_RETURN(h.kg_count, in_.ReadI32());
    if (h.kg_start < 0 || h.kg_count < 0) {
      return in_.Error(at, "invalid key group range start " + std::to_string(h.kg_start) +
                               " count " + std::to_string(h.kg_count));
    }
    return Status::OK();
  };
  switch (tag) {
    case 0:
      return Status::OK();
    case 3:
    case 7:
    case 12: {
      h.tag = static_cast<KeyedHandle::Tag>(tag);
      CKPT_ASSIGN_OR_RETURN(h.key_groups, ReadKeyGroupsBody(tag == 12));
      h.kg_start = h.key_groups->start;
      h.kg_count = h.key_groups->count;
      h.state_handle_id = h.key_groups->state_handle_id;
      return Status::OK();
    }
    case 5:
    case 11: {
      h.tag = static_cast<KeyedHandle::Tag>(tag);
      CKPT_ASSIGN_OR_RETURN(h.checkpoint_id, in_.ReadI64());
      CKPT_ASSIGN_OR_RETURN(h.backend_id, in_.ReadUtf());
      CKPT_RETURN_IF_ERROR(read_range());
      if (tag == 11) {
        CKPT_ASSIGN_OR_RETURN(h.checkpointed_size, in_.ReadI64());
      }
      CKPT_ASSIGN_OR_RETURN(h.meta, ReadStreamHandle());
      CKPT_ASSIGN_OR_RETURN(h.shared_files, ReadLocalPathList());
      CKPT_ASSIGN_OR_RETURN(h.private_files, ReadLocalPathList());
      if (tag == 11) {
        CKPT_ASSIGN_OR_RETURN(h.state_handle_id, in_.ReadUtf());
      }
      return Status::OK();
    }
    case 8:
    case 14: {
      if (++depth_ > kMaxHandleDepth) return in_.Error("state handles nested too deeply");
      h.tag = static_cast<KeyedHandle::Tag>(tag);
      CKPT_RETURN_IF_ERROR(read_range());
      CKPT_ASSIGN_OR_RETURN(h.checkpointed_size, in_.ReadI64());
      CKPT_ASSIGN_OR_RETURN(uint32_t n_base, in_.ReadCount("materialized handle count", 1));
      for (uint32_t i = 0; i < n_base; ++i) {
        CKPT_ASSIGN_OR_RETURN(KeyedHandle m, ReadKeyedHandle());
        if (!m.is_null()) h.materialized.push_back(std::move(m));
      }
      CKPT_ASSIGN_OR_RETURN(uint32_t n_delta, in_.ReadCount("changelog handle count", 1));
      for (uint32_t i = 0; i < n_delta; ++i) {
        const uint64_t at = in_.offset();
        CKPT_ASSIGN_OR_RETURN(KeyedHandle d, ReadKeyedHandle());
        if (d.tag != KeyedHandle::Tag::kChangelogBytes && d.tag != KeyedHandle::Tag::kChangelogFile &&
            d.tag != KeyedHandle::Tag::kChangelogFileV2) {
          return in_.Error(at, "non-materialized part of a changelog handle is not a changelog "
                               "increment (tag " + std::to_string(static_cast<int>(d.tag)) + ")");
        }
        h.non_materialized.push_back(std::move(d));
      }
      CKPT_ASSIGN_OR_RETURN(h.materialization_id, in_.ReadI64());
      if (tag == 14) {
        CKPT_ASSIGN_OR_RETURN(h.checkpoint_id, in_.ReadI64());
      } else {
        h.checkpoint_id = h.materialization_id;
      }
      CKPT_ASSIGN_OR_RETURN(h.state_handle_id, in_.ReadUtf());
      --depth_;
      return Status::OK();
    }
    case 9: {
      h.tag = KeyedHandle::Tag::kChangelogBytes;
      CKPT_RETURN_IF_ERROR(read_range());
      CKPT_ASSIGN_OR_RETURN(h.from_sequence, in_.ReadI64());
      CKPT_ASSIGN_OR_RETURN(h.to_sequence, in_.ReadI64());
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("state change count", 8));
      for (uint32_t i = 0; i < n; ++i) {
        StateChange c;
        CKPT_ASSIGN_OR_RETURN(c.key_group, in_.ReadI32());
        CKPT_ASSIGN_OR_RETURN(std::string_view bytes, in_.ReadLengthPrefixed());
        c.bytes.assign(bytes);
        h.changes.push_back(std::move(c));
      }
      CKPT_ASSIGN_OR_RETURN(h.state_handle_id, in_.ReadUtf());
      return Status::OK();
    }
    case 10:
    case 13: {
      h.tag = static_cast<KeyedHandle::Tag>(tag);
      CKPT_RETURN_IF_ERROR(read_range());
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("changelog file handle count", 9));
      for (uint32_t i = 0; i < n; ++i) {
        CKPT_ASSIGN_OR_RETURN(int64_t off, in_.ReadI64());
        CKPT_ASSIGN_OR_RETURN(StreamHandle sh, ReadStreamHandle());
        h.handles_and_offsets.emplace_back(off, std::move(sh));
      }
      CKPT_ASSIGN_OR_RETURN(h.state_size, in_.ReadI64());
      CKPT_ASSIGN_OR_RETURN(h.checkpointed_size, in_.ReadI64());
      CKPT_ASSIGN_OR_RETURN(h.state_handle_id, in_.ReadUtf());
      if (tag == 13) {
        CKPT_ASSIGN_OR_RETURN(h.storage_identifier, in_.ReadUtf());
      } else {
        h.storage_identifier = "filesystem";
      }
      return Status::OK();
    }
    default:
      return in_.Error(h.metadata_offset, "unknown keyed state handle tag " + std::to_string(tag));
  }
}

Status HandleReader::ReadOperatorHandleInto(OperatorHandle* out) {
  OperatorHandle& h = *out;
  h.metadata_offset = in_.offset();
  CKPT_ASSIGN_OR_RETURN(int8_t tag, in_.ReadI8());
  if (tag == 0) return Status::OK();
  if (tag != 4 && tag != 17) {
    return in_.Error(h.metadata_offset, "unknown operator state handle tag " + std::to_string(tag));
  }
  h.tag = static_cast<uint8_t>(tag);
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("operator state count", 7));
  h.states.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    OperatorStateEntry& e = h.states.emplace_back();
    CKPT_ASSIGN_OR_RETURN(e.name, in_.ReadUtf());
    const uint64_t mode_at = in_.offset();
    CKPT_ASSIGN_OR_RETURN(int8_t mode, in_.ReadI8());
    if (mode < 0 || mode > 2) {
      return in_.Error(mode_at, "unknown distribution mode " + std::to_string(mode) +
                                    " of operator state '" + e.name + "'");
    }
    e.mode = static_cast<DistributionMode>(mode);
    CKPT_ASSIGN_OR_RETURN(uint32_t n_off, in_.ReadCount("offset count", 8));
    CKPT_RETURN_IF_ERROR(in_.ReadI64Array(n_off, &e.offsets));
  }
  if (tag == 17) {
    CKPT_ASSIGN_OR_RETURN(h.task_owned_dir, in_.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(h.shared_dir, in_.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(h.is_empty, in_.ReadBool());
  }
  const uint64_t at = in_.offset();
  CKPT_RETURN_IF_ERROR(ReadStreamHandleInto(&h.delegate));
  if (tag == 17 && h.delegate.type != StreamHandle::Type::kSegmentFile &&
      h.delegate.type != StreamHandle::Type::kEmptySegment) {
    return in_.Error(at, "file-merging operator state handle without a segment file");
  }
  return Status::OK();
}

Status HandleReader::ReadChannelV1Body(ChannelHandle* c) {
  CKPT_ASSIGN_OR_RETURN(c->subtask_index, in_.ReadI32());
  CKPT_ASSIGN_OR_RETURN(c->gate_or_partition, in_.ReadI32());
  CKPT_ASSIGN_OR_RETURN(c->channel_or_subpartition, in_.ReadI32());
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in_.ReadCount("channel buffer offset count", 8));
  CKPT_RETURN_IF_ERROR(in_.ReadI64Array(n, &c->offsets));
  CKPT_ASSIGN_OR_RETURN(c->state_size, in_.ReadI64());
  CKPT_ASSIGN_OR_RETURN(c->delegate, ReadStreamHandle());
  return Status::OK();
}

base::Result<ChannelHandle> HandleReader::ReadChannelHandle(bool input) {
  ChannelHandle c;
  c.input = input;
  if (version_ < 6) {
    CKPT_RETURN_IF_ERROR(ReadChannelV1Body(&c));
    return c;
  }
  const uint64_t at = in_.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t type, in_.ReadU8());
  const uint8_t plain = input ? 1 : 2;
  const uint8_t merged = input ? 3 : 4;
  if (type == plain) {
    CKPT_RETURN_IF_ERROR(ReadChannelV1Body(&c));
  } else if (type == merged) {
    c.merged = true;
    CKPT_ASSIGN_OR_RETURN(c.subtask_index, in_.ReadI32());
    CKPT_ASSIGN_OR_RETURN(c.state_size, in_.ReadI64());
    CKPT_ASSIGN_OR_RETURN(c.delegate, ReadStreamHandle());
    CKPT_ASSIGN_OR_RETURN(std::string_view offsets, in_.ReadLengthPrefixed());
    c.serialized_channel_offsets.assign(offsets);
  } else {
    return in_.Error(at, std::string("unexpected channel state handle type ") +
                             std::to_string(type) + " for " +
                             (input ? "an input channel" : "a result subpartition"));
  }
  return c;
}

}  // namespace ckpt::flink::internal
