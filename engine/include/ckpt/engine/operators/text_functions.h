// Text helpers behind the catalog's built-in map/filter/flat-map functions: parsing "key,value"
// lines and splitting lines into words. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::engine::operators {

struct KeyValue {
  std::string key;
  int64_t value = 0;
  bool operator==(const KeyValue&) const = default;
};

// Parses "key,value": the key is everything before the last comma (surrounding spaces trimmed,
// must be non-empty), the value a decimal int64 after it. InvalidArgument quoting the text and
// saying what is wrong.
base::Result<KeyValue> ParseKeyValue(std::string_view text);

// Parses a decimal int64 (optional leading '-', surrounding spaces allowed). InvalidArgument
// quoting the text.
base::Result<int64_t> ParseInt64(std::string_view text);

// Appends the words of `line` to `out`, lower-cased: maximal runs of ASCII letters, digits and
// inner apostrophes ("don't"). Bytes outside ASCII are kept inside words (UTF-8 text is not split
// mid-character).
void SplitWords(std::string_view line, std::vector<std::string>* out);

// `text` without leading and trailing spaces and tabs.
std::string_view Trim(std::string_view text);

}  // namespace ckpt::engine::operators
