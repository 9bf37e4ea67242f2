// The REST API's request bodies and path segments, parsed and validated (Flink's request types:
// CheckpointTriggerRequestBody, SavepointTriggerRequestBody, StopWithSavepointRequestBody,
// SavepointDisposalRequest). Pure functions over bytes, no I/O: the fuzz target
// tests/fuzz/fuzz_rest_request.cpp runs them. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ckpt/base/result.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine::rest {

// POST /jobs/:jobid/checkpoints. checkpointType: CONFIGURED (default), FULL or INCREMENTAL.
struct CheckpointTriggerRequest {
  enum class Type { kConfigured, kFull, kIncremental };
  Type type = Type::kConfigured;
  std::string trigger_id;  // "" when absent: the server picks one
};

// POST /jobs/:jobid/savepoints.
struct SavepointTriggerRequest {
  std::string target_directory;  // "" when absent: the engine's --savepoint-dir
  std::string trigger_id;
  bool cancel_job = false;
  pb::SavepointFormat format = pb::CANONICAL;
};

// POST /jobs/:jobid/stop.
struct StopRequest {
  std::string target_directory;
  std::string trigger_id;
  bool drain = false;
  pb::SavepointFormat format = pb::CANONICAL;
};

// POST /savepoint-disposal. `path` has its file: scheme removed (StripFileScheme); never empty.
struct DisposalRequest {
  std::string path;
  std::string trigger_id;
};

// Each parses a JSON object body ("" counts as {}); absent and null fields take their default.
// InvalidArgument, with Flink's "Request did not match expected format <type>: ..." message
// naming the field, when the body is not a JSON object, a field has the wrong JSON type, an
// enum field (checkpointType, formatType) has an unknown value, or triggerId is not a trigger
// id (IsTriggerId).
base::Result<CheckpointTriggerRequest> ParseCheckpointTriggerRequest(std::string_view body);
base::Result<SavepointTriggerRequest> ParseSavepointTriggerRequest(std::string_view body);
base::Result<StopRequest> ParseStopRequest(std::string_view body);
// Also InvalidArgument when savepoint-path is missing or empty.
base::Result<DisposalRequest> ParseDisposalRequest(std::string_view body);

// A Flink job id in a path: 32 hexadecimal digits.
bool IsJobIdHex(std::string_view s);
// A trigger id (Flink's TriggerId, as it prints one): 32 lowercase hexadecimal digits.
bool IsTriggerId(std::string_view s);
// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool IsValidUtf8(std::string_view s);
// A savepoint target directory as given (file:// scheme already removed): OK and the directory
// without a trailing '/' when it is an absolute path without NUL bytes, without empty, "." or
// ".." components, and neither "/" nor a system directory (/bin, /boot, /dev, /etc, /lib*,
// /proc, /sbin, /sys, /usr) or a directory below one. InvalidArgument naming the path and what
// is wrong otherwise. Pure: nothing is created or looked up.
base::Result<std::string> CheckSavepointTarget(std::string_view dir);
// A checkpoint id in a path: a decimal int64 and nothing else. InvalidArgument otherwise.
base::Result<int64_t> ParseCheckpointIdSegment(std::string_view s);
// `path` as a local path when it is a file: URI, by the one file: rule (base::LocalPathOf:
// file:/a, file:///a and file://localhost/a are /a); any other text (a bare path, another
// scheme) is returned as given, for the caller's own checks to refuse what is not a local
// absolute path. InvalidArgument (LocalPathOf's message) for a file: URI naming another host, a
// relative file: path, or a NUL byte.
base::Result<std::string> StripFileScheme(std::string_view path);

}  // namespace ckpt::engine::rest
