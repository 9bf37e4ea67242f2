// AppendJsonQuoted: a string as a JSON string literal, the one escaping every JSON writer uses
// (the CLI's output, dump and diff, value rendering, the Flink value decoder). The result is
// always valid JSON, whatever bytes come in. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace ckpt::base {

// Appends `s` to `*out` in double quotes: quote and backslash escaped, \n \r \t as such, every
// other control byte (below 0x20, and 0x7f) as \u00XX (lowercase hex); valid UTF-8 as is. A byte
// that does not start a valid UTF-8 sequence (a stray continuation byte, a truncated sequence,
// an overlong form, a UTF-16 surrogate, a code point past U+10FFFF) becomes \ufffd, one per
// byte, and the next byte is examined afresh.
void AppendJsonQuoted(std::string_view s, std::string* out);

}  // namespace ckpt::base
