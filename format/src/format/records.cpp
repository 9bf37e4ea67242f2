#include "ckpt/format/records.h"

#include "ckpt/base/endian.h"

namespace ckpt::format {
namespace {

using base::GetLengthPrefixed;
using base::GetVarint64;
using base::PutLengthPrefixed;
using base::PutVarint64;

// Decodes the keyed fields from the front of `in`; the caller checks for trailing bytes.
bool DecodeKeyedFields(std::string_view* in, KeyedRecord* record) {
  uint64_t state_index = 0;
  if (!GetVarint64(in, &state_index) || state_index > UINT32_MAX) return false;
  record->state_index = static_cast<uint32_t>(state_index);
  return GetLengthPrefixed(in, &record->key) && GetLengthPrefixed(in, &record->ns) &&
         GetLengthPrefixed(in, &record->user_key) && GetLengthPrefixed(in, &record->value);
}

}  // namespace

void EncodeKeyedRecord(const KeyedRecord& record, std::string* out) {
  PutVarint64(out, record.state_index);
  PutLengthPrefixed(out, record.key);
  PutLengthPrefixed(out, record.ns);
  PutLengthPrefixed(out, record.user_key);
  PutLengthPrefixed(out, record.value);
}

bool DecodeKeyedRecord(std::string_view bytes, KeyedRecord* record) {
  return DecodeKeyedFields(&bytes, record) && bytes.empty();
}

void EncodeOperatorRecord(const OperatorRecord& record, std::string* out) {
  PutLengthPrefixed(out, record.key);
  PutLengthPrefixed(out, record.value);
}

bool DecodeOperatorRecord(std::string_view bytes, OperatorRecord* record) {
  return GetLengthPrefixed(&bytes, &record->key) && GetLengthPrefixed(&bytes, &record->value) &&
         bytes.empty();
}

void EncodeChangelogRecord(const ChangelogRecord& record, std::string* out) {
  PutVarint64(out, record.sequence);
  out->push_back(static_cast<char>(record.op));
  PutVarint64(out, record.key_group);
  EncodeKeyedRecord(record.change, out);
}

bool DecodeChangelogRecord(std::string_view bytes, ChangelogRecord* record) {
  uint64_t key_group = 0;
  if (!GetVarint64(&bytes, &record->sequence) || bytes.empty()) return false;
  const uint8_t op = static_cast<uint8_t>(bytes[0]);
  if (op < static_cast<uint8_t>(ChangeOp::kPut) || op > static_cast<uint8_t>(ChangeOp::kClear)) {
    return false;
  }
  record->op = static_cast<ChangeOp>(op);
  bytes.remove_prefix(1);
  if (!GetVarint64(&bytes, &key_group) || key_group > UINT32_MAX) return false;
  record->key_group = static_cast<uint32_t>(key_group);
  return DecodeKeyedFields(&bytes, &record->change) && bytes.empty();
}

}  // namespace ckpt::format
