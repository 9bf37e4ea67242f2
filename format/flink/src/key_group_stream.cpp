// ReadKeyGroupSection: see key_group_stream.h (FullSnapshotAsyncWriter / FullSnapshotRestoreOperation).
#include "ckpt/flink/key_group_stream.h"

#include "ckpt/flink/data_input.h"

namespace ckpt::flink {

using base::Status;

Status ReadKeyGroupSection(std::string_view stream, uint64_t offset, const std::string& file,
                           const KeyGroupSink& sink) {
  if (offset > stream.size()) {
    return Status::Corruption(file + ": at byte " + std::to_string(offset) +
                              ": key group offset beyond the end of the " +
                              std::to_string(stream.size()) + "-byte stream");
  }
  DataInput in(stream.substr(offset), file, offset);
  CKPT_ASSIGN_OR_RETURN(int16_t sid, in.ReadI16());
  if (static_cast<uint16_t>(sid) == 0xFFFF) return Status::OK();
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
      if (static_cast<uint16_t>(next) == 0xFFFF) return Status::OK();
      state = static_cast<uint16_t>(next);
    }
  }
}

}  // namespace ckpt::flink
