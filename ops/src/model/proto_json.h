// Private to ckpt::ops: a fast, deterministic printer of protobuf's canonical JSON mapping (proto
// field names, every singular scalar printed, empty repeated/map fields as []/{}, 64-bit
// integers as strings, bytes as base64, enums by name, map keys sorted). protobuf 3.21's own
// printer converts through a type resolver and is ~10x slower on large metadata; a test checks
// both produce identical text for the fixtures.
#pragma once

#include <string>

#include <google/protobuf/message.h>

namespace ckpt::ops::internal {

// Appends the JSON of `message` to `*out` (one line).
void AppendProtoJson(const google::protobuf::Message& message, std::string* out);

}  // namespace ckpt::ops::internal
