// DataInput: see data_input.h. Java's DataInputStream semantics, bounds-checked.
#include "ckpt/flink/data_input.h"

#include <cstring>

namespace ckpt::flink {

using base::Status;

Status DataInput::Error(uint64_t at, const std::string& what) const {
  return Status::Corruption(file_ + ": at byte " + std::to_string(at) + ": " + what);
}

Status DataInput::Truncated(uint64_t n, const char* what) const {
  return Error("truncated: " + std::string(what) + " needs " + std::to_string(n) + " bytes, " +
               std::to_string(remaining()) + " left");
}

Status DataInput::Need(uint64_t n, const char* what) const {
  if (n > remaining()) return Truncated(n, what);
  return Status::OK();
}

Status DataInput::ReadI64Array(uint32_t n, std::vector<int64_t>* out) {
  CKPT_RETURN_IF_ERROR(Need(uint64_t{n} * 8, "longs"));
  const char* p = data_.data() + pos_;
  out->reserve(out->size() + n);
  for (uint32_t i = 0; i < n; ++i) out->push_back(static_cast<int64_t>(LoadBe64(p + 8 * size_t{i})));
  pos_ += uint64_t{n} * 8;
  return Status::OK();
}

base::Result<float> DataInput::ReadF32() {
  CKPT_ASSIGN_OR_RETURN(int32_t bits, ReadI32());
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

base::Result<double> DataInput::ReadF64() {
  CKPT_ASSIGN_OR_RETURN(int64_t bits, ReadI64());
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

base::Result<std::string> DataInput::ReadUtf() {
  const uint64_t at = offset();
  CKPT_ASSIGN_OR_RETURN(uint16_t len, ReadU16());
  if (len > remaining()) {
    return Error(at, "truncated: string of " + std::to_string(len) + " bytes, " +
                         std::to_string(remaining()) + " left");
  }
  std::string out;
  if (!ModifiedUtf8ToUtf8(data_.substr(pos_, len), &out)) {
    return Error(at, "string is not valid modified UTF-8");
  }
  pos_ += len;
  return out;
}

base::Result<std::string_view> DataInput::ReadBytes(uint64_t n) {
  CKPT_RETURN_IF_ERROR(Need(n, "byte array"));
  std::string_view v = data_.substr(pos_, n);
  pos_ += n;
  return v;
}

base::Result<std::string_view> DataInput::ReadLengthPrefixed() {
  const uint64_t at = offset();
  CKPT_ASSIGN_OR_RETURN(int32_t n, ReadI32());
  if (n < 0) return Error(at, "negative length " + std::to_string(n));
  if (static_cast<uint64_t>(n) > remaining()) {
    return Error(at, "length " + std::to_string(n) + " exceeds the " +
                         std::to_string(remaining()) + " bytes left");
  }
  return ReadBytes(static_cast<uint64_t>(n));
}

base::Result<uint32_t> DataInput::ReadCount(const char* what, uint32_t min_item_bytes) {
  const uint64_t at = offset();
  CKPT_ASSIGN_OR_RETURN(int32_t n, ReadI32());
  if (n < 0) return Error(at, std::string("negative ") + what + " " + std::to_string(n));
  if (min_item_bytes > 0 && static_cast<uint64_t>(n) * min_item_bytes > remaining()) {
    return Error(at, std::string(what) + " " + std::to_string(n) + " cannot fit in the " +
                         std::to_string(remaining()) + " bytes left");
  }
  return static_cast<uint32_t>(n);
}

Status DataInput::Skip(uint64_t n) {
  CKPT_RETURN_IF_ERROR(Need(n, "skip"));
  pos_ += n;
  return Status::OK();
}

namespace {
void AppendCodePoint(uint32_t cp, std::string* out) {
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

bool ModifiedUtf8ToUtf8(std::string_view in, std::string* out) {
  out->clear();
  // Nearly every string Flink writes (names, uids, paths, ids) is ASCII without NUL: one copy.
  // Checked eight bytes at a time (a 10,000-subtask `_metadata` holds tens of thousands).
  bool ascii = true;
  size_t i = 0;
  for (; ascii && i + 8 <= in.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, in.data() + i, 8);
    constexpr uint64_t kLow = 0x0101010101010101, kHigh = 0x8080808080808080;
    const bool zero_byte = ((w - kLow) & ~w & kHigh) != 0;
    ascii = (w & kHigh) == 0 && !zero_byte;
  }
  for (; ascii && i < in.size(); ++i) {
    const auto c = static_cast<uint8_t>(in[i]);
    ascii = c != 0 && c < 0x80;
  }
  if (ascii) {
    out->assign(in);
    return true;
  }
  out->reserve(in.size());
  // First decode Java chars (UTF-16 code units), then join surrogate pairs.
  uint32_t pending_high = 0;
  i = 0;
  while (i < in.size()) {
    const auto c = static_cast<uint8_t>(in[i]);
    uint32_t unit;
    if (c < 0x80) {
      if (c == 0) return false;  // modified UTF-8 never writes a raw NUL
      unit = c;
      i += 1;
    } else if ((c & 0xE0) == 0xC0) {
      if (i + 1 >= in.size()) return false;
      const auto c2 = static_cast<uint8_t>(in[i + 1]);
      if ((c2 & 0xC0) != 0x80) return false;
      unit = ((c & 0x1Fu) << 6) | (c2 & 0x3Fu);
      i += 2;
    } else if ((c & 0xF0) == 0xE0) {
      if (i + 2 >= in.size()) return false;
      const auto c2 = static_cast<uint8_t>(in[i + 1]);
      const auto c3 = static_cast<uint8_t>(in[i + 2]);
      if ((c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80) return false;
      unit = ((c & 0x0Fu) << 12) | ((c2 & 0x3Fu) << 6) | (c3 & 0x3Fu);
      i += 3;
    } else {
      return false;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (pending_high != 0) AppendCodePoint(0xFFFD, out);
      pending_high = unit;
      continue;
    }
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      if (pending_high != 0) {
        AppendCodePoint(0x10000 + ((pending_high - 0xD800) << 10) + (unit - 0xDC00), out);
        pending_high = 0;
      } else {
        AppendCodePoint(0xFFFD, out);  // lone low surrogate: Java keeps it, UTF-8 cannot
      }
      continue;
    }
    if (pending_high != 0) {
      AppendCodePoint(0xFFFD, out);
      pending_high = 0;
    }
    AppendCodePoint(unit, out);
  }
  if (pending_high != 0) AppendCodePoint(0xFFFD, out);
  return true;
}

}  // namespace ckpt::flink
