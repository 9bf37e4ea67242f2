// Resynchronisation after an unknown serializer snapshot: see meta_resync.h.
#include "meta_resync.h"

#include <cstdint>

namespace ckpt::flink::internal {
namespace {

uint32_t Be16At(std::string_view b, size_t p) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[p])) << 8 | static_cast<uint8_t>(b[p + 1]);
}

bool I32At(std::string_view b, size_t p, int32_t* v) {
  if (p + 4 > b.size()) return false;
  *v = static_cast<int32_t>(Be16At(b, p) << 16 | Be16At(b, p + 2));
  return true;
}

// A UTF string at `p` (u16 length, then that many bytes without NUL, which modified UTF-8 never
// holds); sets `*text` and `*end`.
bool UtfAt(std::string_view b, size_t p, std::string_view* text, size_t* end) {
  if (p + 2 > b.size()) return false;
  const size_t n = Be16At(b, p);
  if (p + 2 + n > b.size()) return false;
  *text = b.substr(p + 2, n);
  if (text->find('\0') != std::string_view::npos) return false;
  *end = p + 2 + n;
  return true;
}

bool IsSerializerKey(std::string_view k) {
  for (const auto& key : SerializerKeys()) {
    if (k == key) return true;
  }
  return false;
}

}  // namespace

const std::vector<std::string>& SerializerKeys() {
  static const std::vector<std::string> kKeys = {"KEY_SERIALIZER", "NAMESPACE_SERIALIZER",
                                                 "VALUE_SERIALIZER", "USER_KEY_SERIALIZER"};
  return kKeys;
}

bool SerializerEntryAt(std::string_view bytes, size_t p, std::string_view key) {
  std::string_view text;
  size_t end = 0;
  if (!UtfAt(bytes, p, &text, &end) || text != key) return false;
  int32_t proxy = 0;
  if (!I32At(bytes, end, &proxy) || proxy != 2) return false;
  std::string_view cls;
  size_t cls_end = 0;
  return UtfAt(bytes, end + 4, &cls, &cls_end) && !cls.empty() && cls.find('.') != std::string_view::npos;
}

bool StateHeaderAt(std::string_view bytes, size_t p) {
  std::string_view name;
  size_t at = 0;
  if (!UtfAt(bytes, p, &name, &at)) return false;
  int32_t type = 0, n_opt = 0;
  if (!I32At(bytes, at, &type) || type < 0 || type > 3) return false;
  if (!I32At(bytes, at + 4, &n_opt) || n_opt < 0 || n_opt > 64) return false;
  at += 8;
  if (n_opt > 0) {
    std::string_view key;
    size_t end = 0;
    return UtfAt(bytes, at, &key, &end) &&
           (key == "KEYED_STATE_TYPE" || key == "OPERATOR_STATE_DISTRIBUTION_MODE");
  }
  int32_t n_ser = 0;
  if (!I32At(bytes, at, &n_ser) || n_ser < 1 || n_ser > 8) return false;
  std::string_view key;
  size_t end = 0;
  return UtfAt(bytes, at + 4, &key, &end) && IsSerializerKey(key) && SerializerEntryAt(bytes, at + 4, key);
}

size_t FindSnapshotEnd(std::string_view bytes, size_t from, const SnapshotFollow& follow) {
  if (!follow.keys_left.empty()) {
    size_t best = std::string_view::npos;
    for (const auto& key : follow.keys_left) {
      std::string needle;
      needle.push_back(static_cast<char>(key.size() >> 8));
      needle.push_back(static_cast<char>(key.size() & 0xff));
      needle.append(key);
      for (size_t p = bytes.find(needle, from); p != std::string_view::npos && p < best;
           p = bytes.find(needle, p + 1)) {
        if (SerializerEntryAt(bytes, p, key)) {
          best = p;
          break;
        }
      }
    }
    return best;
  }
  if (follow.states_left > 0) {
    for (size_t p = from; p + 2 <= bytes.size(); ++p) {
      if (StateHeaderAt(bytes, p)) return p;
    }
    return std::string_view::npos;
  }
  if (follow.list_follows) {
    for (size_t p = from; p + 2 <= bytes.size(); ++p) {
      const uint32_t n = Be16At(bytes, p);
      if (n == 0 && p + 2 == bytes.size() && follow.end_bounded) return p;
      if (n > 0 && n < 0x8000 && StateHeaderAt(bytes, p + 2)) return p;
    }
    return std::string_view::npos;
  }
  return follow.end_bounded ? bytes.size() : std::string_view::npos;
}

}  // namespace ckpt::flink::internal
