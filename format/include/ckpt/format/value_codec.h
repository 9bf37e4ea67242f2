// The binary value encoding of each TypeDescriptor kind (format/docs/values.md) and helpers to
// build and check type descriptors. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"
#include "ckpt/format/value.h"

namespace ckpt::format {

// Type descriptor builders.
namespace types {
pb::TypeDescriptor Int64();
pb::TypeDescriptor Double();
pb::TypeDescriptor Bool();
pb::TypeDescriptor String();
pb::TypeDescriptor Bytes();
pb::TypeDescriptor Void();
pb::TypeDescriptor Tuple(std::vector<pb::TypeDescriptor> fields,
                         std::vector<std::string> names = {});
pb::TypeDescriptor List(pb::TypeDescriptor element);
pb::TypeDescriptor Map(pb::TypeDescriptor key, pb::TypeDescriptor value);
// `descriptor_set` is a serialized google.protobuf.FileDescriptorSet containing `message_name`.
pb::TypeDescriptor Proto(std::string message_name, std::string descriptor_set);
}  // namespace types

// Checks a descriptor is well formed (element counts, known kind, nesting depth ≤ 32, a PROTO's
// descriptor set parses and contains the message). InvalidArgument naming the problem.
base::Status ValidateType(const pb::TypeDescriptor& type);

// Appends the encoding of `value` as `type`. InvalidArgument if the value does not match.
base::Status EncodeValue(const pb::TypeDescriptor& type, const Value& value, std::string* out);
// Convenience: the encoding alone.
base::Result<std::string> EncodeValue(const pb::TypeDescriptor& type, const Value& value);

// Decodes one value of `type` from the front of `*in`, advancing it. Corruption on malformed or
// truncated bytes; never allocates more than `in` could hold (hostile counts are refused).
base::Result<Value> DecodeValue(const pb::TypeDescriptor& type, std::string_view* in);
// Decodes `bytes`, which must hold exactly one value (Corruption on trailing bytes).
base::Result<Value> DecodeValueExact(const pb::TypeDescriptor& type, std::string_view bytes);

// Skips one encoded value of `type` (no allocation). Corruption as DecodeValue.
base::Status SkipValue(const pb::TypeDescriptor& type, std::string_view* in);

// Human-readable name of a type, e.g. "map<string, list<int64>>".
std::string TypeName(const pb::TypeDescriptor& type);

}  // namespace ckpt::format
