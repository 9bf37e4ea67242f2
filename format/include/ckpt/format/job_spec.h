// The job-graph spec: the JSON file users write to define a job (format/proto/.../job_spec.proto,
// FORMAT.md "Job spec"). Parsed with protobuf's JSON support; unknown fields are errors.
// Stateless functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"

namespace ckpt::format {

// Parses and validates a spec, then fills defaults (name ← id, parallelism, max_parallelism,
// checkpointing defaults). InvalidArgument naming `path` and the field on: JSON syntax errors,
// unknown fields, missing required fields, duplicate operator ids or uids, edges naming unknown
// operators, cycles, FORWARD edges between different parallelisms, parallelism above max
// parallelism, input index other than 0 or 1.
base::Result<pb::JobSpec> ParseJobSpec(std::string_view json, const std::string& path);

// Reads `path` and parses it as above. NotFound if absent.
base::Result<pb::JobSpec> ReadJobSpecFile(base::Fs& fs, const std::string& path);

// Where element `index` of a spec's "operators" array begins in the spec's text `json`: 1-based
// line and 1-based byte column, so an annotation can point at the operator. nullopt when `json`
// is not well formed or has no such element.
struct SpecTextPosition {
  size_t line = 1;
  size_t column = 1;
};
std::optional<SpecTextPosition> JobSpecOperatorPosition(std::string_view json, int index);

// Checks an already-parsed spec (the graph rules listed for ParseJobSpec).
base::Status ValidateJobSpec(const pb::JobSpec& spec, const std::string& path);

}  // namespace ckpt::format
