// Parsing OLD=NEW mapping arguments once for both faces: ckpt-tool remap's --map, --uid-prefix
// and --uid-suffix, and the inspector's remap dialog (one mapping per line). Also the check
// that a side looks like a mistyped operator ID. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/ops/remap.h"

namespace ckpt::ops {

// "OLD=NEW" split at the first '='; both sides trimmed of surrounding whitespace and required
// non-empty. `flag` names the argument in messages (e.g. "--map"). InvalidArgument naming the
// text otherwise.
base::Result<OperatorMapping> ParseMapping(std::string_view text, std::string_view flag = "--map");

// "OLD=NEW" for a uid prefix or suffix rewrite: OLD may be empty ("=v2-" adds a prefix), NEW
// may be empty (removes it), but not both. InvalidArgument naming the text otherwise.
base::Result<UidRewrite> ParseUidRewrite(std::string_view text, std::string_view flag);

// One mapping per line; blank lines and lines starting with '#' are skipped. The first bad
// line is an InvalidArgument naming its line number.
base::Result<std::vector<OperatorMapping>> ParseMappingLines(std::string_view text);

// Warnings for a side that looks like a mistyped 32-hex operator ID and would silently be taken
// as a uid or name: 28..36 hex digits other than 32, or 32 characters of which one or two are
// not hex digits. Nothing for a side forced with "uid:" or "name:". Each warning is a sentence
// naming the mapping.
std::vector<std::string> MappingWarnings(const OperatorMapping& mapping);

}  // namespace ckpt::ops
