// Helpers shared by the built-in catalog operators: rendering values and records as text lines,
// enum-valued params, and labels for messages. Private to engine/src/operators. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operator_params.h"
#include "ckpt/engine/record.h"
#include "ckpt/format/value.h"

namespace ckpt::engine::operators {

// Text form of a value: int64 and double in shortest round-trip decimal, bool as true/false,
// strings verbatim, bytes as lowercase hex, tuples as their fields joined by ',', lists as
// "[a;b;c]", maps as "{k=v;...}", void as "".
void AppendValueText(const format::Value& value, std::string* out);
std::string ValueText(const format::Value& value);

// One output line for `record`: "<key>,<value>" for keyed records, "<value>" otherwise; with
// `with_timestamp`, ",<timestamp>" is appended when the record has one. No newline.
void AppendRecordLine(const Record& record, bool with_timestamp, std::string* out);

// A string param that must be one of `allowed` (absent: `fallback`): returns its index in
// `allowed`, or InvalidArgument naming the field and listing the allowed values.
base::Result<size_t> GetEnumParam(const OperatorParams& params, std::string_view field,
                                  std::string fallback, const std::vector<std::string>& allowed);
// An integer param in [min, max]: InvalidArgument naming the field and the range.
base::Result<int64_t> GetIntInRange(const OperatorParams& params, std::string_view field,
                                    int64_t fallback, int64_t min, int64_t max);

// "<name> (<subtask + 1>/<parallelism>)", as Flink labels subtasks in logs.
std::string SubtaskLabel(const OperatorContext& ctx);

// The value as int64, or InvalidArgument "<who>: expected an int64 value, got <kind>".
base::Result<int64_t> ExpectInt64(const format::Value& value, std::string_view who);
// The value as a string, or InvalidArgument like ExpectInt64.
base::Result<const std::string*> ExpectString(const format::Value& value, std::string_view who);

// The name of a value's kind ("int64", "string", ...), for messages.
std::string_view ValueKindName(const format::Value& value);

}  // namespace ckpt::engine::operators
