// Renders encoded values as JSON, straight from the bytes (no intermediate Value), for dump,
// the inspector and diff. INT64 is a JSON number, DOUBLE a number (NaN/Inf as strings), BYTES
// base64 in a string, TUPLE an array (an object if every field is named), LIST an array, MAP an
// array of [key, value] pairs (keys need not be strings), PROTO protobuf's own JSON mapping,
// VOID null. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"

namespace ckpt::format {

// Decodes exactly one value of `type` from `bytes` and appends its JSON to `*out`.
// Corruption on malformed bytes (out is then unspecified).
base::Status AppendValueJson(const pb::TypeDescriptor& type, std::string_view bytes,
                             std::string* out);
base::Result<std::string> ValueBytesToJson(const pb::TypeDescriptor& type,
                                           std::string_view bytes);

// JSON of an in-memory value (for tests and tools that built the Value themselves).
std::string ValueToJson(const Value& value);

}  // namespace ckpt::format
