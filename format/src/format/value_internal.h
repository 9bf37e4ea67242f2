// Private: pieces shared by the value encoder, decoder, skipper and JSON renderer
// (format/docs/values.md). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/status.h"
#include "ckpt/format/proto.h"

namespace ckpt::format::internal {

// Types (and so values) nest at most this deep; a scalar has depth 1.
inline constexpr int kMaxTypeDepth = 32;

// Checks one descriptor node at nesting `depth` (1 = top): known kind, depth, element count
// for TUPLE/LIST/MAP. InvalidArgument naming the problem.
base::Status CheckShape(const pb::TypeDescriptor& type, int depth);

// True if every value of `type` encodes to zero bytes (VOID, tuples of such).
bool IsZeroWidth(const pb::TypeDescriptor& type);

std::string TypeNameAt(const pb::TypeDescriptor& type, int depth);

// Primitive readers: each consumes its encoding from the front of `*in`, false if malformed.
bool ReadInt64(std::string_view* in, int64_t* v);
bool ReadDouble(std::string_view* in, double* v);
bool ReadBool(std::string_view* in, bool* v);
// A LIST/MAP count; refused if larger than the bytes left (every element takes at least one).
bool ReadCount(std::string_view* in, uint64_t* count);

// Corruption "malformed <type> value: <what>".
base::Status Malformed(const pb::TypeDescriptor& type, std::string_view what);

}  // namespace ckpt::format::internal
