// EscapeForText: a string from disk (a file name, a uid, a message naming either) made safe for a
// terminal and for line-oriented text output, the one escaping every text renderer applies to
// such strings. JSON output escapes with AppendJsonQuoted (json_quote.h) instead. Pure;
// thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace ckpt::base {

// `s` with every control byte (below 0x20, and 0x7f) as \xNN (lowercase hex) and a backslash as
// \\, so the escaped form is unambiguous; every other byte as is. A newline would forge a row
// and ESC would drive the terminal.
std::string EscapeForText(std::string_view s);

}  // namespace ckpt::base
