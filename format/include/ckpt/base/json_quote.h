// AppendJsonQuoted: a string as a JSON string literal, the one escaping the CLI's JSON output and
// the Flink value decoder share: quote, backslash, \n \r \t, other control bytes as \u00XX; every
// other byte as is (the input is UTF-8). Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace ckpt::base {

void AppendJsonQuoted(std::string_view s, std::string* out);

}  // namespace ckpt::base
