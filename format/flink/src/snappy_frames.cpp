// DecompressSnappyFrames: chunk = u8 type, u24 little-endian length, body. 0xff stream identifier
// ("sNaPpY"), 0x00 compressed (u32 LE masked CRC-32C of the uncompressed bytes, then a raw Snappy
// block), 0x01 uncompressed (CRC, bytes), 0x02-0x7f reserved unskippable, 0x80-0xfe skippable.
#include "ckpt/flink/snappy_frames.h"

#include <snappy.h>

#include <array>

namespace ckpt::flink {
namespace {

using base::Status;

constexpr size_t kMaxBlock = 65536;  // the format's bound on one chunk's uncompressed data

std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}

uint32_t Le32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{u[0]} | uint32_t{u[1]} << 8 | uint32_t{u[2]} << 16 | uint32_t{u[3]} << 24;
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> kTable = MakeTable();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : data) crc = kTable[(crc ^ c) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

uint32_t MaskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

base::Result<std::string> DecompressSnappyFrames(std::string_view framed, const std::string& file,
                                                 uint64_t base_offset) {
  auto error = [&](size_t at, const std::string& what) {
    return Status::Corruption(file + ": at byte " + std::to_string(base_offset + at) +
                              ": Snappy frame: " + what);
  };
  std::string out;
  size_t pos = 0;
  while (pos < framed.size()) {
    if (framed.size() - pos < 4) return error(pos, "truncated chunk header");
    const auto type = static_cast<uint8_t>(framed[pos]);
    const auto* u = reinterpret_cast<const unsigned char*>(framed.data() + pos + 1);
    const size_t len = size_t{u[0]} | size_t{u[1]} << 8 | size_t{u[2]} << 16;
    if (len > framed.size() - pos - 4) {
      return error(pos, "chunk of " + std::to_string(len) + " bytes, " +
                            std::to_string(framed.size() - pos - 4) + " left");
    }
    const std::string_view body = framed.substr(pos + 4, len);
    if (type == 0xFF) {
      if (body != std::string_view("sNaPpY", 6)) return error(pos, "bad stream identifier");
    } else if (type == 0x00 || type == 0x01) {
      if (body.size() < 4) return error(pos, "data chunk without its checksum");
      const uint32_t want = Le32(body.data());
      const std::string_view data = body.substr(4);
      std::string block;
      if (type == 0x00) {
        size_t n = 0;
        if (!snappy::GetUncompressedLength(data.data(), data.size(), &n) || n > kMaxBlock) {
          return error(pos, "compressed block with an invalid length");
        }
        if (!snappy::Uncompress(data.data(), data.size(), &block)) {
          return error(pos, "compressed block does not decompress");
        }
      } else {
        if (data.size() > kMaxBlock) return error(pos, "uncompressed block above 64 KiB");
        block.assign(data);
      }
      if (MaskCrc32c(Crc32c(block)) != want) return error(pos, "checksum mismatch");
      out += block;
    } else if (type <= 0x7F) {
      return error(pos, "reserved unskippable chunk type " + std::to_string(type));
    }  // 0x80-0xfe: skippable (padding and reserved)
    pos += 4 + len;
  }
  return out;
}

}  // namespace ckpt::flink
