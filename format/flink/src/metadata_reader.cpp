// ParseFlinkMetadata: Flink's MetadataV2V3SerializerBase and its V2..V7 subclasses, read-only.
// Handle decoding lives in handle_reader.cpp.
#include "ckpt/flink/metadata_reader.h"

#include <type_traits>
#include <utility>
#include <vector>

#include "ckpt/base/fs_resolver.h"
#include "ckpt/base/prefault.h"
#include "ckpt/flink/data_input.h"
#include "handle_reader.h"

namespace ckpt::flink {
namespace {

using base::Status;

base::Result<MasterState> ReadMasterState(DataInput& in) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t magic, in.ReadI32());
  if (static_cast<uint32_t>(magic) != kMasterStateMagic) {
    return in.Error(at, "bad master state magic");
  }
  const uint64_t len_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(std::string_view body, in.ReadLengthPrefixed());
  if (body.empty()) return in.Error(len_at, "empty master state");
  DataInput b(body, in.file(), len_at + 4);
  MasterState ms;
  CKPT_ASSIGN_OR_RETURN(ms.version, b.ReadI32());
  CKPT_ASSIGN_OR_RETURN(ms.name, b.ReadUtf());
  CKPT_ASSIGN_OR_RETURN(std::string_view payload, b.ReadLengthPrefixed());
  ms.payload.assign(payload);
  if (!b.at_end()) return b.Error("trailing bytes in master state '" + ms.name + "'");
  return ms;
}

// Decodes into `*out` (default-constructed, in its final place in the operator's vector).
Status ReadSubtaskState(internal::HandleReader& r, int32_t index, SubtaskState* out) {
  DataInput& in = r.in();
  SubtaskState& st = *out;
  st.index = index;
  CKPT_ASSIGN_OR_RETURN(int32_t has_managed, in.ReadI32());
  if (has_managed != 0) {
    CKPT_RETURN_IF_ERROR(r.ReadOperatorHandleInto(&st.managed_operator.emplace()));
    if (st.managed_operator->tag == 0) st.managed_operator.reset();
  }
  CKPT_ASSIGN_OR_RETURN(int32_t has_raw, in.ReadI32());
  if (has_raw != 0) {
    CKPT_RETURN_IF_ERROR(r.ReadOperatorHandleInto(&st.raw_operator.emplace()));
    if (st.raw_operator->tag == 0) st.raw_operator.reset();
  }
  CKPT_RETURN_IF_ERROR(r.ReadKeyedHandleInto(&st.managed_keyed));
  CKPT_RETURN_IF_ERROR(r.ReadKeyedHandleInto(&st.raw_keyed));
  if (r.version() >= 3) {
    CKPT_ASSIGN_OR_RETURN(uint32_t n_in, in.ReadCount("input channel handle count", 1));
    for (uint32_t i = 0; i < n_in; ++i) {
      CKPT_ASSIGN_OR_RETURN(ChannelHandle c, r.ReadChannelHandle(true));
      st.input_channels.push_back(std::move(c));
    }
    CKPT_ASSIGN_OR_RETURN(uint32_t n_out, in.ReadCount("result subpartition handle count", 1));
    for (uint32_t i = 0; i < n_out; ++i) {
      CKPT_ASSIGN_OR_RETURN(ChannelHandle c, r.ReadChannelHandle(false));
      st.result_subpartitions.push_back(std::move(c));
    }
  }
  return Status::OK();
}

// Decodes into `*out`, which holds the previous operator (or nothing): reset first, keeping the
// subtask vector's memory for this one.
Status ReadOperatorStateInto(internal::HandleReader& r, OperatorState* out) {
  DataInput& in = r.in();
  OperatorState& op = *out;
  std::vector<SubtaskState> subtasks = std::move(op.subtasks);
  std::vector<int32_t> entry_order = std::move(op.entry_order);
  subtasks.clear();
  entry_order.clear();
  op = OperatorState{};
  op.subtasks = std::move(subtasks);
  op.entry_order = std::move(entry_order);
  op.metadata_offset = in.offset();
  if (r.version() >= 5) {
    CKPT_ASSIGN_OR_RETURN(op.name, in.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(op.uid, in.ReadUtf());
  }
  CKPT_ASSIGN_OR_RETURN(std::string_view id, in.ReadBytes(16));
  for (int i = 0; i < 16; ++i) op.id[i] = static_cast<uint8_t>(id[static_cast<size_t>(i)]);
  const uint64_t par_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(op.parallelism, in.ReadI32());
  CKPT_ASSIGN_OR_RETURN(op.max_parallelism, in.ReadI32());
  if (op.parallelism < 0 || op.max_parallelism < 0) {
    return in.Error(par_at, "negative parallelism " + std::to_string(op.parallelism) +
                                " / max parallelism " + std::to_string(op.max_parallelism) +
                                " of operator " + op.IdHex());
  }
  if (r.version() == 2) {
    CKPT_ASSIGN_OR_RETURN(op.v2_chain_length, in.ReadI32());  // written 1, ignored by Flink
    CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("subtask count", 16));
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(int32_t idx, in.ReadI32());
      CKPT_ASSIGN_OR_RETURN(int64_t duration, in.ReadI64());  // legacy, unused
      CKPT_ASSIGN_OR_RETURN(int32_t legacy, in.ReadI32());
      if (legacy != 0) return in.Error(at, "legacy task states are not supported");
      if (idx < 0) return in.Error(at, "negative subtask index " + std::to_string(idx));
      SubtaskState& st = op.subtasks.emplace_back();
      CKPT_RETURN_IF_ERROR(ReadSubtaskState(r, idx, &st));
      st.v2_duration = duration;
    }
    return Status::OK();
  }
  const uint64_t coord_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(op.coordinator, r.ReadStreamHandle());
  if (!op.coordinator.is_null() && op.coordinator.type != StreamHandle::Type::kByteStream) {
    return in.Error(coord_at, "coordinator state must be inline (byte stream handle)");
  }
  const uint64_t n_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t n, in.ReadI32());
  if (n == -1) {
    if (!op.coordinator.is_null()) {
      return in.Error(n_at, "fully finished operator with coordinator state");
    }
    op.fully_finished = true;
    return Status::OK();
  }
  if (n < 0 || static_cast<uint64_t>(n) * 4 > in.remaining()) {
    return in.Error(n_at, "subtask count " + std::to_string(n) + " cannot fit in the " +
                              std::to_string(in.remaining()) + " bytes left");
  }
  op.subtasks.reserve(static_cast<size_t>(n));
  op.entry_order.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    const uint64_t at = in.offset();
    CKPT_ASSIGN_OR_RETURN(int32_t idx, in.ReadI32());
    op.entry_order.push_back(idx);
    if (idx < 0) {
      op.finished_subtasks.push_back(-(idx + 1));
    } else {
      CKPT_RETURN_IF_ERROR(ReadSubtaskState(r, idx, &op.subtasks.emplace_back()));
    }
    // MetadataV7Serializer appends the marker to serializeSubtaskState: a finished entry has none.
    if (r.version() >= 7 && idx >= 0) {
      CKPT_ASSIGN_OR_RETURN(bool has_ref, in.ReadBool());
      if (has_ref) {
        CKPT_ASSIGN_OR_RETURN(int64_t ref, in.ReadI64());
        if (idx >= 0) op.subtasks.back().ref_checkpoint_id = ref;
      }
    }
    (void)at;
  }
  return Status::OK();
}

}  // namespace

std::string OperatorState::IdHex() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t c : id) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

bool HasFlinkMagic(std::string_view head) {
  return head.size() >= 4 && static_cast<uint8_t>(head[0]) == 0x49 &&
         static_cast<uint8_t>(head[1]) == 0x60 && static_cast<uint8_t>(head[2]) == 0x67 &&
         static_cast<uint8_t>(head[3]) == 0x2D;
}

base::Result<Metadata> ParseFlinkMetadata(std::string_view bytes, const std::string& path) {
  Metadata md;
  std::vector<OperatorState> operators;
  CKPT_ASSIGN_OR_RETURN(md, ParseFlinkMetadata(bytes, path, [&](OperatorState& op) {
    operators.push_back(std::move(op));
    return Status::OK();
  }));
  md.operators = std::move(operators);
  return md;
}

base::Result<Metadata> ParseFlinkMetadata(std::string_view bytes, const std::string& path,
                                          const OperatorVisitor& visit) {
  DataInput in(bytes, path);
  Metadata md;
  md.path = path;
  md.size_bytes = bytes.size();
  if (bytes.size() < 8) {
    return in.Error(0, "truncated: " + std::to_string(bytes.size()) +
                           " bytes is too short for a Flink metadata header");
  }
  if (!HasFlinkMagic(bytes)) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string found;
    for (unsigned char c : bytes.substr(0, 4)) {
      found += (found.empty() ? "" : " ") + std::string{kHex[c >> 4], kHex[c & 15]};
    }
    return in.Error(0, "not a Flink metadata file (bad magic: it starts with " + found +
                           ", not Flink's 0x4960672D)");
  }
  CKPT_RETURN_IF_ERROR(in.Skip(4));
  CKPT_ASSIGN_OR_RETURN(int32_t version, in.ReadI32());
  if (version == 1) {
    return Status::Unimplemented(path +
                                 ": at byte 4: metadata version 1: Flink 1.1/1.2 savepoint, "
                                 "not supported");
  }
  if (version < static_cast<int32_t>(kMinVersion) || version > static_cast<int32_t>(kMaxVersion)) {
    return Status::Unimplemented(path + ": at byte 4: unknown Flink metadata version " +
                                 std::to_string(version) + " (this reader knows 2-7)");
  }
  md.version = static_cast<uint32_t>(version);
  const uint64_t id_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(md.checkpoint_id, in.ReadI64());
  if (md.checkpoint_id < 0) {
    return in.Error(id_at, "negative checkpoint id " + std::to_string(md.checkpoint_id));
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t n_master, in.ReadCount("master state count", 8));
  for (uint32_t i = 0; i < n_master; ++i) {
    CKPT_ASSIGN_OR_RETURN(MasterState ms, ReadMasterState(in));
    md.master_states.push_back(std::move(ms));
  }
  internal::HandleReader r(in, md.version);
  CKPT_ASSIGN_OR_RETURN(uint32_t n_ops, in.ReadCount("operator state count", 24));
  OperatorState op;
  for (uint32_t i = 0; i < n_ops; ++i) {
    CKPT_RETURN_IF_ERROR(ReadOperatorStateInto(r, &op));
    CKPT_RETURN_IF_ERROR(visit(op));
  }
  if (md.version >= 4) {
    md.trailer_offset = in.offset();
    md.trailer_size = in.remaining();
    // Flink's MetadataV4Serializer always ends the file with the properties; a file without
    // them, or with a trailer that does not decode, cannot be restored by Flink.
    if (md.trailer_size == 0) {
      md.properties_error =
          in.Error("truncated: the file ends after the last operator, without the "
                   "CheckpointProperties that metadata v" + std::to_string(md.version) +
                   " ends with")
              .message();
    } else {
      CKPT_ASSIGN_OR_RETURN(std::string_view trailer, in.ReadBytes(in.remaining()));
      md.trailer.assign(trailer);
      auto props = DecodeCheckpointProperties(trailer, path, md.trailer_offset);
      if (props.ok()) {
        md.properties = std::move(props).value();
      } else {
        md.properties_error = props.status().message();
      }
    }
  } else if (!in.at_end()) {
    return in.Error("trailing garbage: " + std::to_string(in.remaining()) +
                    " bytes after the last operator");
  }
  return md;
}

base::Status PropertiesStatus(const Metadata& md) {
  if (md.version < 4 || md.properties.has_value()) return Status::OK();
  if (md.properties_error.empty()) {
    return Status::Corruption(md.path + ": no CheckpointProperties decoded (metadata v" +
                              std::to_string(md.version) + " ends with them)");
  }
  return Status::Corruption(md.properties_error);
}

base::Result<std::string> ReadFlinkMetadataBytes(base::Fs& fs, const std::string& metadata_path) {
  CKPT_ASSIGN_OR_RETURN(auto file, fs.OpenRead(metadata_path));
  const uint64_t size = file->Size();
  std::string bytes;
  bytes.reserve(size);
  // Megabytes for 10,000 subtasks: fault the pages in at once, not one trap per page.
  base::PrefaultForWrite(bytes.data(), size);
  bytes.resize(size);
  uint64_t done = 0;
  while (done < size) {
    CKPT_ASSIGN_OR_RETURN(size_t n, file->ReadAt(done, size - done, bytes.data() + done));
    if (n == 0) return Status::IOError(metadata_path + ": short read at byte " + std::to_string(done));
    done += n;
  }
  return bytes;
}

std::string FlinkMetadataDir(const std::string& metadata_path) {
  const size_t slash = metadata_path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return metadata_path.substr(0, slash);
}

base::Result<Metadata> ReadFlinkMetadata(base::Fs& fs, const std::string& metadata_path) {
  CKPT_ASSIGN_OR_RETURN(std::string bytes, ReadFlinkMetadataBytes(fs, metadata_path));
  CKPT_ASSIGN_OR_RETURN(Metadata md, ParseFlinkMetadata(bytes, metadata_path));
  md.dir = FlinkMetadataDir(metadata_path);
  return md;
}

base::Status CheckRelativeHandlePath(std::string_view path) {
  auto bad = [&](const char* why) {
    return Status::Corruption("relative state handle path '" + std::string(path) + "' " + why +
                              " (references may not escape the snapshot directory)");
  };
  if (path.empty()) return bad("is empty");
  if (path.front() == '/') return bad("is absolute");
  if (path.find('\0') != std::string_view::npos) return bad("contains NUL");
  if (path.find('\\') != std::string_view::npos) return bad("contains a backslash");
  if (path.find(':') != std::string_view::npos) return bad("contains a scheme");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return bad("has a '', '.' or '..' component");
    start = end + 1;
  }
  return Status::OK();
}

base::Result<std::string> LocalPath(const Metadata& md, const StreamHandle& h) {
  switch (h.type) {
    case StreamHandle::Type::kRelativeFile:
      CKPT_RETURN_IF_ERROR(CheckRelativeHandlePath(h.path));
      return md.dir + "/" + h.path;
    case StreamHandle::Type::kFile:
    case StreamHandle::Type::kSegmentFile: {
      // The file: rule is base::LocalPathOf's; any other scheme is a remote file system.
      const std::string scheme = base::SchemeOf(h.path);
      if (!scheme.empty() && scheme != "file") {
        return Status::InvalidArgument("'" + h.path + "' is on a remote file system (" +
                                       h.path.substr(0, scheme.size()) +
                                       "), not readable offline");
      }
      CKPT_ASSIGN_OR_RETURN(std::string p, base::LocalPathOf(h.path));
      if (p.empty() || p.front() != '/') {
        return Status::InvalidArgument("file handle path '" + h.path + "' is not absolute");
      }
      return p;
    }
    default:
      return Status::InvalidArgument("state handle is not a file");
  }
}

base::Result<std::string> HandleLocation(const Metadata& md, const StreamHandle& h) {
  if (h.type == StreamHandle::Type::kFile || h.type == StreamHandle::Type::kSegmentFile) {
    const std::string scheme = base::SchemeOf(h.path);
    if (!scheme.empty() && scheme != "file") {
      // The resolver decides whether the scheme has a filesystem and the location is well-formed.
      CKPT_RETURN_IF_ERROR(base::ResolveFs(h.path).status());
      return h.path;
    }
  }
  return LocalPath(md, h);
}

}  // namespace ckpt::flink

// Vectors of these grow by moving, never copying.
static_assert(std::is_nothrow_move_constructible_v<ckpt::flink::SubtaskState>);
static_assert(std::is_nothrow_move_constructible_v<ckpt::flink::OperatorState>);
