#include "formats/own/operator_entries.h"

#include "ckpt/format/operator_id.h"
#include "ckpt/format/state_file.h"
#include "ckpt/format/state_file_reader.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {

const pb::OperatorState* OwnOperatorState(const Snapshot& snapshot, const std::string& id_hex) {
  for (const auto& candidate : RawMetadata(snapshot).operators()) {
    if (format::OperatorId::FromBytes(candidate.operator_id())
            .ValueOr(format::OperatorId())
            .ToHex() == id_hex) {
      return &candidate;
    }
  }
  return nullptr;
}

namespace {

uint64_t PrefixedLength(uint64_t size) {
  uint64_t n = 1;
  for (uint64_t v = size; v >= 0x80; v >>= 7) ++n;
  return n + size;
}

}  // namespace

base::Status ForEachOperatorStateEntry(
    base::Fs& fs, const Snapshot& snapshot, const pb::OperatorStateHandle& h,
    const std::map<uint64_t, const pb::StateDescriptor*>& wanted,
    const std::function<bool()>& cancelled,
    const std::function<base::Status(const std::string& path, const OperatorStateEntry&)>& visit) {
  if (wanted.empty()) return base::Status::OK();
  if (h.file_index() >= snapshot.files.size()) {
    return base::Status::Corruption(snapshot.metadata_path + ": file #" +
                                    std::to_string(h.file_index()) + " is beyond the file table");
  }
  const SnapshotFile& f = snapshot.files[h.file_index()];
  if (f.resolved_path.empty()) {
    return base::Status::Corruption(snapshot.metadata_path + ": file #" +
                                    std::to_string(h.file_index()) + ": " + f.resolve_error);
  }
  CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs, f.resolved_path));
  CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIterator());
  format::RecordRef rec;
  while (true) {
    CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
    if (!more) return base::Status::OK();
    if (cancelled && cancelled()) return base::Status::Cancelled("reading operator state cancelled");
    auto found = wanted.find(rec.logical_offset);
    if (found == wanted.end()) continue;
    OperatorStateEntry e;
    e.state = found->second;
    e.logical_offset = rec.logical_offset;
    e.record_length = PrefixedLength(rec.bytes.size());
    if (!format::DecodeOperatorRecord(rec.bytes, &e.record)) {
      return base::Status::Corruption(reader->path() +
                                      ": malformed operator-state record at logical offset " +
                                      std::to_string(rec.logical_offset));
    }
    CKPT_RETURN_IF_ERROR(visit(reader->path(), e));
  }
}

}  // namespace ckpt::ops::internal
