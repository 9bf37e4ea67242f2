// Record layouts inside state-file containers, one per FileKind (format/docs/state-files.md
// "Records"). Encoders append to a buffer; decoders return views into the input and fail cleanly
// on malformed bytes (never read past the end). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt::format {

// KEYED_STATE record: one (state, key, namespace[, user key]) entry.
//   varint state_index | bytes key | bytes namespace | bytes user_key | bytes value
// where bytes = varint length, then the value encoding of the declared type.
struct KeyedRecord {
  uint32_t state_index = 0;     // index into OperatorState.states
  std::string_view key;         // encoded with StateDescriptor.key_type
  std::string_view ns;          // encoded with namespace_type (empty for VOID)
  std::string_view user_key;    // MAP: map key; TIMERS: the timestamp; otherwise empty
  std::string_view value;       // encoded with value_type (empty for TIMERS)
};
void EncodeKeyedRecord(const KeyedRecord& record, std::string* out);
bool DecodeKeyedRecord(std::string_view bytes, KeyedRecord* record);

// OPERATOR_STATE record: one entry of an operator list/union state, or one broadcast map entry.
//   bytes key (empty unless BROADCAST) | bytes value
struct OperatorRecord {
  std::string_view key;
  std::string_view value;
};
void EncodeOperatorRecord(const OperatorRecord& record, std::string* out);
bool DecodeOperatorRecord(std::string_view bytes, OperatorRecord* record);

// CHANNEL_STATE record: one network buffer of in-flight data, stored verbatim.
//   the buffer's bytes (the container's length prefix delimits it)

// CHANGELOG record: one state change.
//   varint sequence | u8 op | varint key_group | <KEYED_STATE record>
enum class ChangeOp : uint8_t {
  kPut = 1,     // set value (or map entry)
  kDelete = 2,  // remove value (or map entry if user_key set)
  kAppend = 3,  // list: append element
  kClear = 4,   // remove all of (state, key, namespace)
};
struct ChangelogRecord {
  uint64_t sequence = 0;
  ChangeOp op = ChangeOp::kPut;
  uint32_t key_group = 0;
  KeyedRecord change;
};
void EncodeChangelogRecord(const ChangelogRecord& record, std::string* out);
bool DecodeChangelogRecord(std::string_view bytes, ChangelogRecord* record);

}  // namespace ckpt::format
