#include "ckpt/format/operator_id.h"

#include "ckpt/base/murmur3.h"

namespace ckpt::format {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

OperatorId OperatorId::FromUid(std::string_view uid) {
  return OperatorId(base::Murmur3X64_128(uid, 0));
}

base::Result<OperatorId> OperatorId::FromHex(std::string_view hex) {
  if (hex.size() != 32) {
    return base::Status::InvalidArgument("operator ID '" + std::string(hex) +
                                         "' is not 32 hex digits");
  }
  std::array<uint8_t, 16> bytes{};
  for (size_t i = 0; i < 16; ++i) {
    int hi = HexDigit(hex[2 * i]);
    int lo = HexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return base::Status::InvalidArgument("operator ID '" + std::string(hex) +
                                           "' contains a non-hex character");
    }
    bytes[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return OperatorId(bytes);
}

base::Result<OperatorId> OperatorId::FromBytes(std::string_view raw) {
  if (raw.size() != 16) {
    return base::Status::Corruption("operator ID has " + std::to_string(raw.size()) +
                                    " bytes, expected 16");
  }
  std::array<uint8_t, 16> bytes{};
  for (size_t i = 0; i < 16; ++i) bytes[i] = static_cast<uint8_t>(raw[i]);
  return OperatorId(bytes);
}

std::string OperatorId::ToHex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (size_t i = 0; i < 16; ++i) {
    out[2 * i] = kDigits[bytes_[i] >> 4];
    out[2 * i + 1] = kDigits[bytes_[i] & 0xf];
  }
  return out;
}

std::string OperatorId::ToBytes() const {
  return std::string(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
}

}  // namespace ckpt::format
