// Private to ckpt::ops: parses a user-supplied key (dump --key) given as JSON of the key type
// into the format's Value, so it can be encoded and hashed to its key group.
#pragma once

#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"

namespace ckpt::ops::internal {

// INT64/DOUBLE: a JSON number; BOOL: true/false; STRING: a JSON string, or the bare text when it
// does not start with '"'; BYTES: a JSON string taken as raw bytes; TUPLE/LIST: a JSON array;
// VOID: null. InvalidArgument naming the type on anything else (MAP and PROTO keys are not
// supported).
base::Result<format::Value> ParseKeyJson(const pb::TypeDescriptor& type, std::string_view text);

}  // namespace ckpt::ops::internal
