// OperatorId: the 16-byte identity that maps snapshot state to operators on restore. With a uid
// it is murmur3_x64_128 (seed 0) of the UTF-8 uid, byte for byte Flink's uid hash. Value type.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"

namespace ckpt::format {

class OperatorId {
 public:
  OperatorId() = default;
  explicit OperatorId(std::array<uint8_t, 16> bytes) : bytes_(bytes) {}

  // Flink's uid hash of `uid`.
  static OperatorId FromUid(std::string_view uid);
  // From 32 hex digits (either case). InvalidArgument otherwise.
  static base::Result<OperatorId> FromHex(std::string_view hex);
  // From the 16 raw bytes stored in metadata. Corruption if not exactly 16 bytes.
  static base::Result<OperatorId> FromBytes(std::string_view bytes);

  // 32 lowercase hex digits.
  std::string ToHex() const;
  // The 16 raw bytes.
  std::string ToBytes() const;
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }

  auto operator<=>(const OperatorId&) const = default;

 private:
  std::array<uint8_t, 16> bytes_{};
};

}  // namespace ckpt::format
