// KeyGroupStreamWriter: see key_group_stream_writer.h (the writing side of key_group_stream.h).
#include "ckpt/flink/key_group_stream_writer.h"

#include <snappy.h>

#include <algorithm>

#include "ckpt/flink/data_output.h"
#include "ckpt/flink/snappy_frames.h"

namespace ckpt::flink {
namespace {

constexpr size_t kBlock = 64 * 1024;

void PutU24(std::string* out, size_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>((v >> 8) & 0xFF));
  out->push_back(static_cast<char>((v >> 16) & 0xFF));
}

void PutU32Le(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

}  // namespace

std::string SnappyFrame(std::string_view plain) {
  std::string out;
  out.push_back(static_cast<char>(0xFF));
  PutU24(&out, 6);
  out += "sNaPpY";
  for (size_t pos = 0; pos < plain.size(); pos += kBlock) {
    const std::string_view block = plain.substr(pos, kBlock);
    std::string compressed;
    snappy::Compress(block.data(), block.size(), &compressed);
    const uint32_t crc = MaskCrc32c(Crc32c(block));
    // Like xerial's SnappyFramedOutputStream: stored uncompressed unless it shrinks to 85 %.
    const bool use = compressed.size() * 100 < block.size() * 85;
    out.push_back(static_cast<char>(use ? 0x00 : 0x01));
    PutU24(&out, 4 + (use ? compressed.size() : block.size()));
    PutU32Le(&out, crc);
    if (use) {
      out += compressed;
    } else {
      out.append(block);
    }
  }
  return out;
}

base::Status KeyGroupStreamWriter::AddKeyGroup(std::vector<KeyGroupWriteEntry> entries, int64_t* offset) {
  *offset = 0;
  if (entries.empty()) return base::Status::OK();
  std::sort(entries.begin(), entries.end(), [](const KeyGroupWriteEntry& a, const KeyGroupWriteEntry& b) {
    if (a.state_id != b.state_id) return a.state_id < b.state_id;
    return std::string_view(a.key) < std::string_view(b.key);  // unsigned bytes: char_traits compare
  });
  DataOutput section;
  section.WriteU16(entries.front().state_id);
  for (size_t i = 0; i < entries.size(); ++i) {
    KeyGroupWriteEntry& e = entries[i];
    if (e.state_id == 0xFFFF) return base::Status::InvalidArgument("key group entry with state id 0xFFFF");
    if (e.key.empty()) return base::Status::InvalidArgument("key group entry with an empty key");
    if ((static_cast<uint8_t>(e.key[0]) & 0x80) != 0) {
      return base::Status::InvalidArgument("key group entry whose first key byte has bit 0x80 set");
    }
    const bool last_of_state = i + 1 == entries.size() || entries[i + 1].state_id != e.state_id;
    if (last_of_state) e.key[0] = static_cast<char>(static_cast<uint8_t>(e.key[0]) | 0x80);
    CKPT_RETURN_IF_ERROR(section.WriteLengthPrefixed(e.key, "key"));
    CKPT_RETURN_IF_ERROR(section.WriteLengthPrefixed(e.value, "value"));
    if (last_of_state) section.WriteU16(i + 1 == entries.size() ? 0xFFFF : entries[i + 1].state_id);
  }
  *offset = static_cast<int64_t>(out_.size());
  if (compressed_) {
    out_ += SnappyFrame(section.bytes());
  } else {
    out_ += section.bytes();
  }
  return base::Status::OK();
}

}  // namespace ckpt::flink
