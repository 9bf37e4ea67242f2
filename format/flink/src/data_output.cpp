// DataOutput: see data_output.h. Java's DataOutputStream semantics.
#include "ckpt/flink/data_output.h"

#include <limits>

namespace ckpt::flink {

using base::Status;

void DataOutput::WriteU16(uint16_t v) {
  buf_.push_back(static_cast<char>(v >> 8));
  buf_.push_back(static_cast<char>(v & 0xFF));
}

void DataOutput::WriteI32(int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) buf_.push_back(static_cast<char>((u >> shift) & 0xFF));
}

void DataOutput::WriteI64(int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) buf_.push_back(static_cast<char>((u >> shift) & 0xFF));
}

Status DataOutput::WriteUtf(std::string_view utf8, std::string_view what) {
  std::string encoded;
  if (!Utf8ToModifiedUtf8(utf8, &encoded)) {
    return Status::InvalidArgument(std::string(what) + " is not valid UTF-8");
  }
  if (encoded.size() > 0xFFFF) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(encoded.size()) +
                                   " bytes in modified UTF-8; Java's writeUTF takes at most 65535");
  }
  WriteU16(static_cast<uint16_t>(encoded.size()));
  buf_.append(encoded);
  return Status::OK();
}

Status DataOutput::WriteLengthPrefixed(std::string_view bytes, std::string_view what) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(bytes.size()) +
                                   " bytes; a Java byte array holds at most 2^31-1");
  }
  WriteI32(static_cast<int32_t>(bytes.size()));
  buf_.append(bytes);
  return Status::OK();
}

namespace {

void AppendUnit(uint32_t unit, std::string* out) {
  if (unit >= 0x01 && unit <= 0x7F) {
    out->push_back(static_cast<char>(unit));
  } else if (unit <= 0x7FF) {  // includes NUL, which modified UTF-8 writes as C0 80
    out->push_back(static_cast<char>(0xC0 | (unit >> 6)));
    out->push_back(static_cast<char>(0x80 | (unit & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (unit >> 12)));
    out->push_back(static_cast<char>(0x80 | ((unit >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (unit & 0x3F)));
  }
}

}  // namespace

bool Utf8ToModifiedUtf8(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size());
  size_t i = 0;
  while (i < in.size()) {
    const auto c = static_cast<uint8_t>(in[i]);
    uint32_t cp;
    size_t len;
    if (c < 0x80) {
      cp = c;
      len = 1;
    } else if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1Fu;
      len = 2;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0Fu;
      len = 3;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07u;
      len = 4;
    } else {
      return false;
    }
    if (i + len > in.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<uint8_t>(in[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
    if (cp >= 0x10000) {
      const uint32_t v = cp - 0x10000;
      AppendUnit(0xD800 + (v >> 10), out);
      AppendUnit(0xDC00 + (v & 0x3FF), out);
    } else {
      AppendUnit(cp, out);
    }
  }
  return true;
}

}  // namespace ckpt::flink
