// libFuzzer target for value decoding (format/docs/values.md). The input is a type and a value:
// a length byte L, then L bytes of a serialized TypeDescriptor (hostile descriptors from disk:
// any depth, zero-width elements, unknown kinds) and the rest as the value's encoding. When the
// descriptor does not parse, the first byte picks one of a few well-formed types instead, so the
// fuzzer spends its time in the decoder. Checks: DecodeValue, SkipValue and ValueBytesToJson
// never crash, never allocate more than the input could hold (-rss_limit_mb), agree on how many
// bytes a value takes, and a decoded value re-encodes to bytes that decode to the same encoding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/format/value_codec.h"
#include "ckpt/format/value_json.h"

namespace {

using namespace ckpt::format;  // NOLINT: a fuzz driver

const std::vector<ckpt::pb::TypeDescriptor>& WellFormedTypes() {
  static const std::vector<ckpt::pb::TypeDescriptor> kTypes = {
      types::Int64(),
      types::String(),
      types::Tuple({types::Int64(), types::Double(), types::Bool(), types::Bytes()}, {"a", "b", "c", "d"}),
      types::List(types::Map(types::String(), types::List(types::Int64()))),
      types::Map(types::Tuple({types::String(), types::Int64()}), types::Void()),
      types::List(types::Tuple({types::Void(), types::Bool()})),
      types::Map(types::Bytes(), types::Tuple({types::List(types::Double()), types::String()})),
  };
  return kTypes;
}

void Check(const ckpt::pb::TypeDescriptor& type, std::string_view bytes) {
  std::string_view decode_in = bytes;
  auto value = DecodeValue(type, &decode_in);
  std::string_view skip_in = bytes;
  const bool skipped = SkipValue(type, &skip_in).ok();
  // Decoding and skipping walk the same grammar with the same checks.
  if (value.ok() != skipped) std::abort();
  if (value.ok() && decode_in.size() != skip_in.size()) std::abort();
  ValueBytesToJson(type, bytes).status().IgnoreError();
  if (!value.ok()) return;
  ValueToJson(*value);
  // The encoder accepts only well-formed types (a list of zero-width elements decodes, within
  // the input's size, but is refused on the way back).
  if (!ValidateType(type).ok()) return;
  // Re-encoding is canonical: encode(decode(encode(v))) == encode(v). (Not compared with the
  // input: an overlong varint decodes but re-encodes shorter.)
  auto once = EncodeValue(type, *value);
  if (!once.ok()) std::abort();
  auto again = DecodeValueExact(type, *once);
  if (!again.ok()) std::abort();
  auto twice = EncodeValue(type, *again);
  if (!twice.ok() || *twice != *once) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t type_len = data[0];
  if (size < 1 + type_len) return 0;
  const std::string_view type_bytes(reinterpret_cast<const char*>(data) + 1, type_len);
  const std::string_view value_bytes(reinterpret_cast<const char*>(data) + 1 + type_len,
                                     size - 1 - type_len);
  ckpt::pb::TypeDescriptor type;
  if (type_len > 0 && type.ParseFromArray(type_bytes.data(), static_cast<int>(type_bytes.size()))) {
    // A hostile descriptor: whatever ValidateType says, decoding must stay safe.
    ValidateType(type).IgnoreError();
    TypeName(type);
    Check(type, value_bytes);
  }
  const auto& fixed = WellFormedTypes();
  Check(fixed[data[0] % fixed.size()], value_bytes);
  return 0;
}
