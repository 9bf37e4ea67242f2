// Where in a JSON text an error is: the line and column a job-spec error points at, so that an
// editor can jump there ("job.json:4:18: operators[0].parallelism: ..."). Internal to
// ckpt::format; pure functions of their arguments, bounded for hostile input (nesting depth).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ckpt::format::internal {

// A position in a text: 1-based line, and 1-based column counted in bytes of that line.
struct TextPosition {
  size_t line = 1;
  size_t column = 1;
};

// The line and column of byte `offset` of `text` (an offset past the end is the end).
TextPosition PositionOf(std::string_view text, size_t offset);

// The first syntax error of `json` under RFC 8259's grammar (nesting deeper than 512 is one):
// its byte offset and what was expected there, e.g. "expected ',' or '}' after a member".
// nullopt when `json` is one well-formed value.
struct JsonSyntaxError {
  size_t offset = 0;
  std::string expected;
};
std::optional<JsonSyntaxError> FirstJsonSyntaxError(std::string_view json);

// The byte offset of the value at `path` in well-formed `json`: member names joined by '.',
// array elements by "[i]" ("operators[0].parallelism", "edges[2]", "name"). When the last member
// is absent, the offset of the object that lacks it; when an earlier step is absent, nullopt.
std::optional<size_t> JsonPathOffset(std::string_view json, std::string_view path);

// The offset of the first member named `name` anywhere in well-formed `json` (its key), or
// nullopt: for messages that name a member without its path.
std::optional<size_t> JsonMemberOffset(std::string_view json, std::string_view name);

}  // namespace ckpt::format::internal
