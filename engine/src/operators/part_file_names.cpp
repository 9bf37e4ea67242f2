#include "ckpt/engine/operators/part_file_names.h"

#include <charconv>
#include <limits>

namespace ckpt::engine::operators {
namespace {

constexpr std::string_view kInProgressPrefix = ".part-";
constexpr std::string_view kInProgressSuffix = ".inprogress";
constexpr std::string_view kFinalPrefix = "part-";

template <typename T>
bool ParseDecimal(std::string_view s, T* out) {
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;  // one spelling per number
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

std::string InProgressFileName(std::string_view uid, uint32_t subtask, uint64_t n) {
  std::string name(kInProgressPrefix);
  name.append(uid).append("-").append(std::to_string(subtask)).append("-");
  name.append(std::to_string(n)).append(kInProgressSuffix);
  return name;
}

std::string FinalFileName(std::string_view uid, uint32_t subtask, uint64_t n) {
  std::string name(kFinalPrefix);
  name.append(uid).append("-").append(std::to_string(subtask)).append("-");
  name.append(std::to_string(n));
  return name;
}

std::optional<PartFileName> ParsePartFileName(std::string_view file_name) {
  PartFileName out;
  std::string_view rest;
  if (file_name.starts_with(kInProgressPrefix) && file_name.ends_with(kInProgressSuffix)) {
    out.in_progress = true;
    rest = file_name.substr(kInProgressPrefix.size());
    if (rest.size() < kInProgressSuffix.size()) return std::nullopt;
    rest.remove_suffix(kInProgressSuffix.size());
  } else if (file_name.starts_with(kFinalPrefix)) {
    rest = file_name.substr(kFinalPrefix.size());
  } else {
    return std::nullopt;
  }
  const size_t last = rest.rfind('-');
  if (last == std::string_view::npos || last == 0) return std::nullopt;
  const size_t middle = rest.rfind('-', last - 1);
  if (middle == std::string_view::npos || middle == 0) return std::nullopt;
  if (!ParseDecimal(rest.substr(last + 1), &out.n)) return std::nullopt;
  if (!ParseDecimal(rest.substr(middle + 1, last - middle - 1), &out.subtask)) return std::nullopt;
  out.uid = std::string(rest.substr(0, middle));
  return out;
}

}  // namespace ckpt::engine::operators
