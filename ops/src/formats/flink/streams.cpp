// Flink state-handle bytes through the Fs seam (see formats/flink/streams.h).
#include "formats/flink/streams.h"

#include <algorithm>
#include <map>
#include <set>

#include "ckpt/flink/changelog.h"
#include "ckpt/flink/metadata_reader.h"
#include "model/file_fs.h"

namespace ckpt::ops::internal {

using base::Status;

namespace {

// A changelog handle without materialized state: the states its log registers (METADATA
// changes, first registration of each name wins) and, as the key serializer, the one nested in a
// timer state's TimerSerializer (the backend's own); empty if the log has no timer state.
base::Result<flink::KeyedBackendMeta> LoggedMeta(base::Fs& fs, const flink::Metadata& md,
                                                 const flink::KeyedHandle& h) {
  flink::KeyedBackendMeta meta;
  meta.version = 6;
  std::set<std::string> seen;
  auto take = [&](const flink::StateChange& c, const std::string& where) -> Status {
    if (c.key_group != -1 || c.bytes.empty() ||
        static_cast<uint8_t>(c.bytes[0]) != static_cast<uint8_t>(flink::ChangeOp::kMetadata)) {
      return Status::OK();
    }
    CKPT_ASSIGN_OR_RETURN(flink::ChangelogStateMeta m, flink::ReadChangelogMetadata(c.bytes, where));
    if (seen.insert(m.info.name).second) meta.states.push_back(std::move(m.info));
    return Status::OK();
  };
  std::map<std::string, std::string> files;
  for (const auto& inc : h.non_materialized) {
    for (const auto& c : inc.changes) CKPT_RETURN_IF_ERROR(take(c, md.path + " (in-memory changelog increment)"));
    for (const auto& [offset, handle] : inc.handles_and_offsets) {
      const std::string name = StreamName(md, handle);
      auto it = files.find(name);
      if (it == files.end()) {
        CKPT_ASSIGN_OR_RETURN(std::string bytes, ReadStreamBytes(fs, md, handle));
        it = files.emplace(name, std::move(bytes)).first;
      }
      CKPT_ASSIGN_OR_RETURN(std::vector<flink::StateChange> changes, flink::ReadChangeSet(it->second, offset, name));
      for (const auto& c : changes) CKPT_RETURN_IF_ERROR(take(c, name));
    }
  }
  if (meta.states.empty()) {
    return Status::NotFound("changelog handle without materialized state or logged state meta information");
  }
  for (const auto& st : meta.states) {
    const flink::SerializerSnapshot* vs = st.Serializer("VALUE_SERIALIZER");
    if (st.backend_type == flink::StateMetaInfo::BackendType::kPriorityQueue && vs != nullptr &&
        vs->nested.size() == 2) {
      meta.key_serializer = vs->nested[0];
      break;
    }
  }
  return meta;
}

}  // namespace

std::string StreamName(const flink::Metadata& md, const flink::StreamHandle& h) {
  if (h.type == flink::StreamHandle::Type::kByteStream) {
    return md.path + " (inline state at byte " + std::to_string(h.metadata_offset) + ")";
  }
  auto p = flink::HandleLocation(md, h);
  return p.ok() ? *p : h.path;
}

base::Result<std::string> ReadStreamBytes(base::Fs& fs, const flink::Metadata& md,
                                          const flink::StreamHandle& h, uint64_t max_bytes) {
  if (h.type == flink::StreamHandle::Type::kByteStream) {
    return h.data.substr(0, std::min<uint64_t>(h.data.size(), max_bytes));
  }
  if (h.type == flink::StreamHandle::Type::kKeyGroups && h.nested) {
    return ReadStreamBytes(fs, md, h.nested->delegate, max_bytes);
  }
  if (!h.is_file()) return Status::NotFound("state handle has no bytes");
  CKPT_ASSIGN_OR_RETURN(std::string path, flink::HandleLocation(md, h));
  CKPT_ASSIGN_OR_RETURN(auto file, FsOfSnapshotFile(fs, md.dir, path).OpenRead(path));
  const uint64_t start = h.type == flink::StreamHandle::Type::kSegmentFile
                             ? static_cast<uint64_t>(h.start_pos)
                             : 0;
  uint64_t size = h.type == flink::StreamHandle::Type::kSegmentFile
                      ? static_cast<uint64_t>(h.size)
                      : file->Size();
  if (start > file->Size()) return Status::Corruption(path + ": segment starts beyond the file");
  size = std::min({size, file->Size() - start, max_bytes});
  std::string bytes(size, '\0');
  uint64_t done = 0;
  while (done < size) {
    CKPT_ASSIGN_OR_RETURN(size_t n, file->ReadAt(start + done, size - done, bytes.data() + done));
    if (n == 0) break;
    done += n;
  }
  bytes.resize(done);
  return bytes;
}

base::Result<flink::KeyedBackendMeta> ReadKeyedMeta(base::Fs& fs, const flink::Metadata& md,
                                                    const flink::KeyedHandle& h) {
  using Tag = flink::KeyedHandle::Tag;
  switch (h.tag) {
    case Tag::kKeyGroups:
    case Tag::kKeyGroupsV2:
    case Tag::kSavepointKeyGroups: {
      // The meta information ends where the first key group starts.
      uint64_t end = UINT64_MAX;
      for (int64_t off : h.key_groups->offsets) {
        if (off > 0) end = std::min<uint64_t>(end, static_cast<uint64_t>(off));
      }
      CKPT_ASSIGN_OR_RETURN(std::string bytes,
                            ReadStreamBytes(fs, md, h.key_groups->delegate, end == UINT64_MAX ? 1 << 20 : end));
      return flink::ReadKeyedBackendMeta(bytes, StreamName(md, h.key_groups->delegate));
    }
    case Tag::kIncremental:
    case Tag::kIncrementalV2: {
      if (h.meta.is_null()) return Status::NotFound("RocksDB handle without a meta handle");
      CKPT_ASSIGN_OR_RETURN(std::string bytes, ReadStreamBytes(fs, md, h.meta, 16 << 20));
      return flink::ReadKeyedBackendMeta(bytes, StreamName(md, h.meta));
    }
    case Tag::kChangelog:
    case Tag::kChangelogV2:
      for (const auto& m : h.materialized) {
        auto meta = ReadKeyedMeta(fs, md, m);
        if (meta.ok() || !meta.status().IsNotFound()) return meta;
      }
      return LoggedMeta(fs, md, h);
    default:
      return Status::NotFound("keyed handle without meta information");
  }
}

}  // namespace ckpt::ops::internal
