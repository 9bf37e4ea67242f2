// Reading REST answer bodies with nlohmann::json for the live parsers: the one place JSON text
// becomes a document (size and depth bounded, parse errors converted), and typed field access
// whose errors name the request and the field's path ("history[3].id is a string, not a
// number"). Private to ops/src/live.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ckpt/base/result.h"

namespace ckpt::ops::live_json {

using Json = nlohmann::json;

// Whether a field must be present (and not null).
enum class Need { kOptional, kRequired };
inline constexpr Need kRequired = Need::kRequired;

class Reader {
 public:
  // `where` names the request in errors; `pattern` is used when `where` is empty.
  Reader(std::string_view where, std::string_view pattern)
      : where_(where.empty() ? pattern : where) {}

  // Parses `text` as one JSON object. Corruption when it is larger than kLiveMaxBodyBytes,
  // nested deeper than 64 levels, not JSON or not an object.
  base::Result<Json> ParseObject(std::string_view text) const;

  // Corruption "WHERE: PATH WHAT".
  base::Status Error(const std::string& path, const std::string& what) const;
  // Corruption "WHERE: PATH is a TYPE, not an object".
  base::Status NotAnObject(const std::string& path, const Json& v) const;

  // Field `key` of object `o` (at `path`, for errors). Absent or null: the default for
  // kOptional, Corruption for kRequired; present with another type: Corruption.
  base::Result<std::string> String(const Json& o, const char* key, const std::string& path,
                                   Need need = Need::kOptional) const;
  base::Result<int64_t> Int(const Json& o, const char* key, const std::string& path,
                            Need need = Need::kOptional) const;
  base::Result<bool> Bool(const Json& o, const char* key, const std::string& path,
                          Need need = Need::kOptional) const;
  // nullptr when absent or null (kOptional).
  base::Result<const Json*> Object(const Json& o, const char* key, const std::string& path,
                                   Need need = Need::kOptional) const;
  base::Result<const Json*> Array(const Json& o, const char* key, const std::string& path,
                                  Need need = Need::kOptional) const;

  // `path` + "." + `key`, or `key` at the top.
  static std::string Sub(const std::string& path, const char* key);

 private:
  // The field, or nullptr when absent or null; Corruption if required.
  base::Result<const Json*> Field(const Json& o, const char* key, const std::string& path,
                                  Need need) const;
  base::Status WrongType(const std::string& path, const Json& v, const char* want) const;

  std::string where_;
};

// Whether the arrays and objects of `text` nest deeper than 64 levels (brackets inside strings
// do not count): one linear pass, run before a parser builds anything.
bool LiveNestsTooDeep(std::string_view text);

// An int field that fits in int (counts of subtasks, parallelism, indexes).
base::Result<int> NarrowToInt(const Reader& r, int64_t v, const std::string& path);

}  // namespace ckpt::ops::live_json
