// ReadKeyGroupSection: see key_group_stream.h (FullSnapshotAsyncWriter / FullSnapshotRestoreOperation).
#include "ckpt/flink/key_group_stream.h"

#include "ckpt/flink/data_input.h"

namespace ckpt::flink {

using base::Status;

namespace {

// ReadKeyGroupSection, also reporting in `*end` the offset just past the end mark.
Status ReadKeyGroupSectionTo(std::string_view stream, uint64_t offset, const std::string& file,
                             const KeyGroupSink& sink, uint64_t* end) {
  if (offset > stream.size()) {
    return Status::Corruption(file + ": at byte " + std::to_string(offset) +
                              ": key group offset beyond the end of the " +
                              std::to_string(stream.size()) + "-byte stream");
  }
  DataInput in(stream.substr(offset), file, offset);
  CKPT_ASSIGN_OR_RETURN(int16_t sid, in.ReadI16());
  if (static_cast<uint16_t>(sid) == 0xFFFF) {
    *end = in.offset();
    return Status::OK();
  }
  uint16_t state = static_cast<uint16_t>(sid);
  while (true) {
    KeyGroupEntry e;
    e.state_id = state;
    e.offset = in.offset();
    CKPT_ASSIGN_OR_RETURN(std::string_view key, in.ReadLengthPrefixed());
    CKPT_ASSIGN_OR_RETURN(e.value, in.ReadLengthPrefixed());
    if (key.empty()) return in.Error(e.offset, "empty key in key group stream");
    e.key.assign(key);
    const bool follows = (static_cast<uint8_t>(e.key[0]) & 0x80) != 0;
    e.key[0] = static_cast<char>(static_cast<uint8_t>(e.key[0]) & 0x7F);
    CKPT_RETURN_IF_ERROR(sink(e));
    if (follows) {
      CKPT_ASSIGN_OR_RETURN(int16_t next, in.ReadI16());
      if (static_cast<uint16_t>(next) == 0xFFFF) {
        *end = in.offset();
        return Status::OK();
      }
      state = static_cast<uint16_t>(next);
    }
  }
}

}  // namespace

Status ReadKeyGroupSection(std::string_view stream, uint64_t offset, const std::string& file,
                           const KeyGroupSink& sink) {
  uint64_t end = 0;
  return ReadKeyGroupSectionTo(stream, offset, file, sink, &end);
}

bool IsFullLayoutSection(std::string_view section, uint32_t group, int prefix_bytes, size_t state_count) {
  if (section.empty() || prefix_bytes < 1 || prefix_bytes > 2) return false;
  uint64_t end = 0;
  const auto entry_fits = [&](const KeyGroupEntry& e) {
    if (e.state_id >= state_count || e.key.size() < static_cast<size_t>(prefix_bytes)) {
      return Status::Corruption("not the full-snapshot layout");
    }
    uint32_t prefix = static_cast<uint8_t>(e.key[0]);
    if (prefix_bytes == 2) prefix = prefix << 8 | static_cast<uint8_t>(e.key[1]);
    return prefix == group ? Status::OK() : Status::Corruption("not the full-snapshot layout");
  };
  return ReadKeyGroupSectionTo(section, 0, "key group section", entry_fits, &end).ok() && end == section.size();
}

}  // namespace ckpt::flink
