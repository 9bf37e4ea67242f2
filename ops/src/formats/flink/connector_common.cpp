// StringValue: each varint is 7-bit groups, least significant first, high bit = more follows.
// Surrogate pairs arrive as two UTF-16 units and are joined before UTF-8 encoding.
#include "formats/flink/connector_common.h"

namespace ckpt::ops::internal::connector {

using base::Status;

base::Result<Versioned> ReadVersioned(flink::DataInput& in) {
  Versioned v;
  CKPT_ASSIGN_OR_RETURN(v.version, in.ReadI32());
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(v.bytes, in.ReadLengthPrefixed());
  v.offset = at + 4;
  return v;
}

Status ExpectEnd(const flink::DataInput& in, const char* what) {
  if (in.at_end()) return Status::OK();
  return in.Error(std::to_string(in.remaining()) + " bytes left over after " + what);
}

Status UnsupportedVersion(const flink::DataInput& in, const char* what, int32_t version) {
  return in.Error(std::string("unsupported ") + what + " version " + std::to_string(version));
}

base::Result<int32_t> ReadLeI32(flink::DataInput& in) {
  CKPT_ASSIGN_OR_RETURN(int32_t be, in.ReadI32());
  return static_cast<int32_t>(__builtin_bswap32(static_cast<uint32_t>(be)));
}

base::Result<int64_t> ReadLeI64(flink::DataInput& in) {
  CKPT_ASSIGN_OR_RETURN(int64_t be, in.ReadI64());
  return static_cast<int64_t>(__builtin_bswap64(static_cast<uint64_t>(be)));
}

base::Result<std::string> ReadLeString(flink::DataInput& in, const char* what) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(int32_t n, ReadLeI32(in));
  if (n < 0 || static_cast<uint64_t>(n) > in.remaining()) {
    return in.Error(at, std::string(what) + " length " + std::to_string(n) + " exceeds the " +
                            std::to_string(in.remaining()) + " bytes left");
  }
  CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadBytes(static_cast<uint64_t>(n)));
  return std::string(b);
}

namespace {

base::Result<uint32_t> ReadVarint(flink::DataInput& in) {
  uint32_t v = 0;
  for (int shift = 0;; shift += 7) {
    CKPT_ASSIGN_OR_RETURN(uint8_t b, in.ReadU8());
    if (shift > 28) return in.Error("overlong varint in a StringValue");
    v |= static_cast<uint32_t>(b & 0x7F) << shift;
    if (b < 0x80) return v;
  }
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

base::Result<std::optional<std::string>> ReadNullableStringValue(flink::DataInput& in) {
  CKPT_ASSIGN_OR_RETURN(bool present, in.ReadBool());
  if (!present) return std::optional<std::string>();
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint32_t len, ReadVarint(in));
  if (len == 0) return std::optional<std::string>();
  // Every unit takes at least one byte: a length the bytes cannot hold is refused up front.
  if (len - 1 > in.remaining()) return in.Error(at, "String length exceeds the bytes left");
  std::string text;
  uint32_t high = 0;
  for (uint32_t i = 0; i + 1 < len; ++i) {
    CKPT_ASSIGN_OR_RETURN(uint32_t c, ReadVarint(in));
    if (c > 0xFFFF) return in.Error("String character out of range");
    if (c >= 0xD800 && c < 0xDC00) {
      if (high != 0) AppendUtf8(0xFFFD, &text);
      high = c;
      continue;
    }
    if (c >= 0xDC00 && c < 0xE000 && high != 0) {
      AppendUtf8(0x10000 + ((high - 0xD800) << 10) + (c - 0xDC00), &text);
      high = 0;
      continue;
    }
    if (high != 0) AppendUtf8(0xFFFD, &text);
    high = 0;
    AppendUtf8(c, &text);
  }
  if (high != 0) AppendUtf8(0xFFFD, &text);
  return std::optional<std::string>(std::move(text));
}

base::Result<std::string> ReadFlinkPath(flink::DataInput& in) {
  CKPT_ASSIGN_OR_RETURN(bool present, in.ReadBool());
  if (!present) return std::string();
  CKPT_ASSIGN_OR_RETURN(auto scheme, ReadNullableStringValue(in));
  CKPT_ASSIGN_OR_RETURN(auto user, ReadNullableStringValue(in));
  CKPT_ASSIGN_OR_RETURN(auto host, ReadNullableStringValue(in));
  CKPT_ASSIGN_OR_RETURN(int32_t port, in.ReadI32());
  CKPT_ASSIGN_OR_RETURN(auto path, ReadNullableStringValue(in));
  CKPT_ASSIGN_OR_RETURN(auto query, ReadNullableStringValue(in));
  CKPT_ASSIGN_OR_RETURN(auto fragment, ReadNullableStringValue(in));
  std::string out;
  if (scheme) out += *scheme + ":";
  if (host) {
    out += "//";
    if (user) out += *user + "@";
    out += *host;
    if (port >= 0) out += ":" + std::to_string(port);
  }
  if (path) out += *path;
  if (query) out += "?" + *query;
  if (fragment) out += "#" + *fragment;
  return out;
}

}  // namespace ckpt::ops::internal::connector
