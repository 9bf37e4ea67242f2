#include "ckpt/format/stream_element.h"

#include <cstring>
#include <type_traits>

namespace ckpt::format {
namespace {

inline void PutVarint(uint64_t v, std::string* out) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, static_cast<size_t>(n));
}
inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

inline bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    uint8_t b = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

void PutValue(const Value& value, std::string* out) {
  std::visit(
      [out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Void>) {
          out->push_back(0);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out->push_back(1);
          PutVarint(ZigZag(x), out);
        } else if constexpr (std::is_same_v<T, double>) {
          out->push_back(2);
          char b[8];
          std::memcpy(b, &x, 8);
          out->append(b, 8);
        } else if constexpr (std::is_same_v<T, bool>) {
          out->push_back(3);
          out->push_back(x ? 1 : 0);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out->push_back(4);
          PutVarint(x.size(), out);
          out->append(x);
        } else if constexpr (std::is_same_v<T, Bytes>) {
          out->push_back(5);
          PutVarint(x.data.size(), out);
          out->append(x.data);
        } else if constexpr (std::is_same_v<T, Tuple>) {
          out->push_back(6);
          PutVarint(x.fields.size(), out);
          for (const Value& f : x.fields) PutValue(f, out);
        } else if constexpr (std::is_same_v<T, List>) {
          out->push_back(7);
          PutVarint(x.elements.size(), out);
          for (const Value& f : x.elements) PutValue(f, out);
        } else if constexpr (std::is_same_v<T, Map>) {
          out->push_back(8);
          PutVarint(x.entries.size(), out);
          for (const auto& [k, v] : x.entries) {
            PutValue(k, out);
            PutValue(v, out);
          }
        } else {
          static_assert(std::is_same_v<T, ProtoMessage>);
          out->push_back(9);
          PutVarint(x.wire_bytes.size(), out);
          out->append(x.wire_bytes);
        }
      },
      value.v);
}

base::Status Malformed() {
  return base::Status::Corruption("malformed stream element");
}

bool GetString(std::string_view* in, std::string* s) {
  uint64_t n = 0;
  if (!GetVarint(in, &n) || n > in->size()) return false;
  s->assign(in->data(), n);
  in->remove_prefix(n);
  return true;
}

base::Status GetValue(std::string_view* in, Value* value, int depth) {
  if (in->empty() || depth > 64) return Malformed();
  uint8_t tag = static_cast<uint8_t>(in->front());
  in->remove_prefix(1);
  uint64_t u = 0;
  switch (tag) {
    case 0: value->v = Void{}; return base::Status::OK();
    case 1:
      if (!GetVarint(in, &u)) return Malformed();
      value->v = UnZigZag(u);
      return base::Status::OK();
    case 2: {
      if (in->size() < 8) return Malformed();
      double d;
      std::memcpy(&d, in->data(), 8);
      in->remove_prefix(8);
      value->v = d;
      return base::Status::OK();
    }
    case 3:
      if (in->empty()) return Malformed();
      value->v = in->front() != 0;
      in->remove_prefix(1);
      return base::Status::OK();
    case 4: {
      // Reuse the string's capacity when the value already holds one (no allocation per record).
      if (!std::holds_alternative<std::string>(value->v)) value->v = std::string();
      if (!GetString(in, &std::get<std::string>(value->v))) return Malformed();
      return base::Status::OK();
    }
    case 5:
    case 9: {
      std::string s;
      if (!GetString(in, &s)) return Malformed();
      if (tag == 5) {
        value->v = Bytes{std::move(s)};
      } else {
        value->v = ProtoMessage{std::move(s)};
      }
      return base::Status::OK();
    }
    case 6:
    case 7: {
      if (!GetVarint(in, &u) || u > in->size()) return Malformed();
      std::vector<Value> items(u);
      for (auto& item : items) CKPT_RETURN_IF_ERROR(GetValue(in, &item, depth + 1));
      if (tag == 6) {
        value->v = Tuple{std::move(items)};
      } else {
        value->v = List{std::move(items)};
      }
      return base::Status::OK();
    }
    case 8: {
      if (!GetVarint(in, &u) || u > in->size()) return Malformed();
      Map m;
      m.entries.resize(u);
      for (auto& [k, v] : m.entries) {
        CKPT_RETURN_IF_ERROR(GetValue(in, &k, depth + 1));
        CKPT_RETURN_IF_ERROR(GetValue(in, &v, depth + 1));
      }
      value->v = std::move(m);
      return base::Status::OK();
    }
    default: return Malformed();
  }
}

}  // namespace

void AppendRecordElement(const Value& key, const Value& value, int64_t timestamp,
                         std::string* out) {
  out->push_back(static_cast<char>(kRecordTag));
  if (timestamp == kNoElementTimestamp) {
    out->push_back(0);
  } else {
    out->push_back(1);
    PutVarint(ZigZag(timestamp), out);
  }
  PutValue(key, out);
  PutValue(value, out);
}

void AppendWatermarkElement(int64_t watermark, std::string* out) {
  out->push_back(static_cast<char>(kWatermarkTag));
  PutVarint(ZigZag(watermark), out);
}

base::Result<uint8_t> DecodeStreamElement(std::string_view* in, Value* key, Value* value,
                                          int64_t* timestamp, int64_t* watermark) {
  if (in->empty()) return Malformed();
  uint8_t tag = static_cast<uint8_t>(in->front());
  in->remove_prefix(1);
  uint64_t u = 0;
  if (tag == kWatermarkTag) {
    if (!GetVarint(in, &u)) return Malformed();
    *watermark = UnZigZag(u);
    return tag;
  }
  if (tag != kRecordTag || in->empty()) return Malformed();
  uint8_t flags = static_cast<uint8_t>(in->front());
  in->remove_prefix(1);
  if ((flags & 1) != 0) {
    if (!GetVarint(in, &u)) return Malformed();
    *timestamp = UnZigZag(u);
  } else {
    *timestamp = kNoElementTimestamp;
  }
  CKPT_RETURN_IF_ERROR(GetValue(in, key, 0));
  CKPT_RETURN_IF_ERROR(GetValue(in, value, 0));
  return tag;
}

base::Result<bool> NextStreamFrame(std::string_view* run, std::string_view* element) {
  if (run->empty()) return false;
  if (run->size() < kStreamFrameHeaderBytes) {
    return base::Status::Corruption("stream bytes end inside a frame header (" +
                                    std::to_string(run->size()) + " of 4 bytes)");
  }
  uint32_t len = 0;
  for (size_t i = 0; i < kStreamFrameHeaderBytes; ++i) {
    len |= static_cast<uint32_t>(static_cast<unsigned char>((*run)[i])) << (8 * i);
  }
  if (run->size() - kStreamFrameHeaderBytes < len) {
    return base::Status::Corruption("stream bytes end inside a frame of " + std::to_string(len) +
                                    " bytes (" +
                                    std::to_string(run->size() - kStreamFrameHeaderBytes) +
                                    " left)");
  }
  *element = run->substr(kStreamFrameHeaderBytes, len);
  run->remove_prefix(kStreamFrameHeaderBytes + len);
  return true;
}

}  // namespace ckpt::format
