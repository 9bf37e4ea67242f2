// The engine's RocksDB key layout and LIST values: see rocksdb_key_layout.h.
#include "ckpt/format/rocksdb_key_layout.h"

#include <utility>

#include "ckpt/format/value_codec.h"

namespace ckpt::format::rocksdb_layout {

void AppendKeyGroup(uint32_t key_group, std::string* out) {
  out->push_back(static_cast<char>((key_group >> 8) & 0xFF));
  out->push_back(static_cast<char>(key_group & 0xFF));
}

void AppendEscaped(std::string_view bytes, std::string* out) {
  for (char c : bytes) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
  }
  out->push_back('\0');
  out->push_back('\x01');
}

namespace {

bool ReadEscaped(std::string_view* in, std::string* out) {
  out->clear();
  size_t i = 0;
  while (i < in->size()) {
    const char c = (*in)[i];
    if (c != '\0') {
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= in->size()) return false;
    const char next = (*in)[i + 1];
    if (next == '\x01') {
      in->remove_prefix(i + 2);
      return true;
    }
    if (next != '\xff') return false;
    out->push_back('\0');
    i += 2;
  }
  return false;
}

}  // namespace

bool ParseStateKey(std::string_view bytes, ParsedKey* out) {
  if (bytes.size() < 2) return false;
  out->key_group = (static_cast<uint32_t>(static_cast<unsigned char>(bytes[0])) << 8) |
                   static_cast<unsigned char>(bytes[1]);
  bytes.remove_prefix(2);
  if (!ReadEscaped(&bytes, &out->key) || !ReadEscaped(&bytes, &out->ns)) return false;
  out->user_key = bytes;
  return true;
}

std::string KeyGroupStart(uint32_t key_group) {
  std::string s;
  if (key_group > 0xFFFF) return std::string("\x01\x00\x00", 3);  // past every key group
  AppendKeyGroup(key_group, &s);
  return s;
}

base::Result<format::Value> DecodeListValue(const pb::TypeDescriptor& element_type,
                                            std::string_view bytes, const std::string& state) {
  format::List list;
  while (!bytes.empty()) {
    base::Result<format::Value> v = format::DecodeValue(element_type, &bytes);
    if (!v.ok()) return v.status().WithContext("list state '" + state + "'");
    list.elements.push_back(std::move(*v));
  }
  return format::Value(std::move(list));
}

}  // namespace ckpt::format::rocksdb_layout
