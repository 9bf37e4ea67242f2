// The changelog (DSTL) file and change-record grammar: see changelog.h. Flink's
// StateChangeFormat, ChangelogStreamWrapper and ChangelogBackendLogApplier are the specification.
#include "ckpt/flink/changelog.h"

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/java_serialization.h"
#include "ckpt/flink/snappy_frames.h"
#include "ckpt/flink/value_decoder.h"

namespace ckpt::flink {

using base::Status;

std::string_view ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kClear: return "CLEAR";
    case ChangeOp::kSet: return "SET";
    case ChangeOp::kSetInternal: return "SET_INTERNAL";
    case ChangeOp::kAdd: return "ADD";
    case ChangeOp::kMergeNamespaces: return "MERGE_NS";
    case ChangeOp::kAddElement: return "ADD_ELEMENT";
    case ChangeOp::kAddOrUpdateElement: return "ADD_OR_UPDATE_ELEMENT";
    case ChangeOp::kRemoveElement: return "REMOVE_ELEMENT";
    case ChangeOp::kMetadata: return "METADATA";
  }
  return "UNKNOWN";
}

base::Result<std::vector<StateChange>> ReadChangeSet(std::string_view file_bytes, int64_t offset,
                                                     const std::string& file) {
  if (file_bytes.empty()) {
    return Status::Corruption(file + ": at byte 0: empty changelog file (no compression flag)");
  }
  const auto flag = static_cast<uint8_t>(file_bytes[0]);
  if (flag > 1) {
    return Status::Corruption(file + ": at byte 0: compression flag " + std::to_string(flag) +
                              " (a changelog file starts with 0 or 1)");
  }
  std::string plain;
  std::string_view stream = file_bytes.substr(1);
  std::string name = file;
  uint64_t base = 1;
  if (flag == 1) {
    CKPT_ASSIGN_OR_RETURN(plain, DecompressSnappyFrames(stream, file, 1));
    stream = plain;
    name = file + " (decompressed stream)";
    base = 0;
  }
  if (offset < 0 || static_cast<uint64_t>(offset) > stream.size()) {
    return Status::Corruption(name + ": change set offset " + std::to_string(offset) +
                              " is beyond the " + std::to_string(stream.size()) + "-byte stream");
  }
  DataInput in(stream.substr(static_cast<size_t>(offset)), name, base + static_cast<uint64_t>(offset));
  CKPT_ASSIGN_OR_RETURN(uint32_t groups, in.ReadCount("key group count", 8));
  std::vector<StateChange> out;
  for (uint32_t g = 0; g < groups; ++g) {
    CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("change count", 4));
    const uint64_t kg_at = in.offset();
    CKPT_ASSIGN_OR_RETURN(int32_t key_group, in.ReadI32());
    if (key_group < -1) return in.Error(kg_at, "key group " + std::to_string(key_group));
    for (uint32_t i = 0; i < n; ++i) {
      CKPT_ASSIGN_OR_RETURN(std::string_view bytes, in.ReadLengthPrefixed());
      StateChange c;
      c.key_group = key_group;
      c.bytes.assign(bytes);
      out.push_back(std::move(c));
    }
  }
  return out;
}

base::Result<ChangelogStateMeta> ReadChangelogMetadata(std::string_view change, const std::string& where) {
  DataInput in(change, where);
  CKPT_ASSIGN_OR_RETURN(uint8_t op, in.ReadU8());
  if (op != static_cast<uint8_t>(ChangeOp::kMetadata)) {
    return in.Error(0, "not a METADATA change (operation " + std::to_string(op) + ")");
  }
  const uint64_t v_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t version, in.ReadI32());
  if (version < 5 || version > 7) {
    return in.Error(v_at, "state meta information version " + std::to_string(version) +
                              " is not supported (5-7)");
  }
  ChangelogStateMeta m;
  CKPT_ASSIGN_OR_RETURN(m.info, ReadStateMetaInfo(in, change, 0));
  if (m.info.backend_type == StateMetaInfo::BackendType::kKeyValue) {
    CKPT_ASSIGN_OR_RETURN(m.ttl, in.ReadBool());
    if (m.ttl) {
      // java.io.ObjectOutputStream of the StateTtlConfig: read (and dropped) to find its end.
      CKPT_RETURN_IF_ERROR(ReadJavaObject(in).status());
    }
    CKPT_ASSIGN_OR_RETURN(m.has_default, in.ReadBool());
    if (m.has_default) {
      const SerializerSnapshot* vs = m.info.Serializer("VALUE_SERIALIZER");
      if (vs == nullptr || !CanDecode(*vs)) {
        return Status::Unimplemented(where + ": at byte " + std::to_string(in.offset()) +
                                     ": the default value of state '" + m.info.name +
                                     "' is serialized by " + (vs ? vs->class_name : "an unnamed serializer") +
                                     ", which this reader cannot decode (its length is unknown)");
      }
      std::string ignored;
      CKPT_RETURN_IF_ERROR(DecodeValueJson(*vs, in, &ignored));
    }
  }
  CKPT_ASSIGN_OR_RETURN(m.state_id, in.ReadI16());
  const uint64_t t_at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t type, in.ReadU8());
  if (type != static_cast<uint8_t>(m.info.backend_type)) {
    return in.Error(t_at, "backend state type " + std::to_string(type) + " after the meta information of '" +
                              m.info.name + "' (type " + std::to_string(static_cast<int>(m.info.backend_type)) + ")");
  }
  if (!in.at_end()) return in.Error("trailing bytes after the METADATA change of '" + m.info.name + "'");
  return m;
}

}  // namespace ckpt::flink
