// The job-graph spec: the JSON file users write to define a job (format/proto/.../job_spec.proto,
// FORMAT.md "Job spec"). Parsed with protobuf's JSON support; unknown fields are errors.
// Stateless functions; thread-safe.
#pragma once

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

// Checks an already-parsed spec (the graph rules listed for ParseJobSpec).
base::Status ValidateJobSpec(const pb::JobSpec& spec, const std::string& path);

}  // namespace ckpt::format
