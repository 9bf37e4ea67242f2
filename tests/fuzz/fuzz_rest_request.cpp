// libFuzzer target for the REST API's request parsing (engine/src/rest/rest_requests.h): the
// JSON bodies of POST /jobs/:jobid/checkpoints, /savepoints, /stop and /savepoint-disposal and
// the path segments (job id, checkpoint id). Checks: no parser crashes or throws; every refusal
// is InvalidArgument with Flink's "Request did not match expected format <type>" message; a
// body that parses, printed back as JSON, parses to the same request (no field is lost or
// misread); a checkpoint id that parses prints and re-parses to the same id.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "rest/rest_requests.h"

namespace {

using namespace ckpt::engine::rest;  // NOLINT: a fuzz driver
using nlohmann::json;

void CheckRefusal(const ckpt::base::Status& st, std::string_view type) {
  if (st.code() != ckpt::base::StatusCode::kInvalidArgument) std::abort();
  if (st.message().find("Request did not match expected format " + std::string(type)) != 0) {
    std::abort();
  }
}

const char* FormatName(ckpt::pb::SavepointFormat f) {
  return f == ckpt::pb::NATIVE ? "NATIVE" : "CANONICAL";
}

void CheckpointTrigger(std::string_view body) {
  auto r = ParseCheckpointTriggerRequest(body);
  if (!r.ok()) return CheckRefusal(r.status(), "CheckpointTriggerRequestBody");
  const char* names[] = {"CONFIGURED", "FULL", "INCREMENTAL"};
  json j = {{"checkpointType", names[static_cast<int>(r->type)]}, {"triggerId", r->trigger_id}};
  auto again = ParseCheckpointTriggerRequest(j.dump());
  if (!again.ok() || again->type != r->type || again->trigger_id != r->trigger_id) std::abort();
}

void SavepointTrigger(std::string_view body) {
  auto r = ParseSavepointTriggerRequest(body);
  if (!r.ok()) return CheckRefusal(r.status(), "SavepointTriggerRequestBody");
  json j = {{"target-directory", r->target_directory},
            {"triggerId", r->trigger_id},
            {"cancel-job", r->cancel_job},
            {"formatType", FormatName(r->format)}};
  auto again = ParseSavepointTriggerRequest(j.dump());
  if (!again.ok() || again->target_directory != r->target_directory ||
      again->trigger_id != r->trigger_id || again->cancel_job != r->cancel_job ||
      again->format != r->format) {
    std::abort();
  }
}

void Stop(std::string_view body) {
  auto r = ParseStopRequest(body);
  if (!r.ok()) return CheckRefusal(r.status(), "StopWithSavepointRequestBody");
  json j = {{"targetDirectory", r->target_directory},
            {"triggerId", r->trigger_id},
            {"drain", r->drain},
            {"formatType", FormatName(r->format)}};
  auto again = ParseStopRequest(j.dump());
  if (!again.ok() || again->target_directory != r->target_directory ||
      again->trigger_id != r->trigger_id || again->drain != r->drain ||
      again->format != r->format) {
    std::abort();
  }
}

void Disposal(std::string_view body) {
  auto r = ParseDisposalRequest(body);
  if (!r.ok()) return CheckRefusal(r.status(), "SavepointDisposalRequest");
  if (r->path.empty()) std::abort();
  // The scheme is stripped once: print it back with one so a path that itself starts with
  // "file:" survives.
  json j = {{"savepoint-path", "file://" + r->path}, {"triggerId", r->trigger_id}};
  auto again = ParseDisposalRequest(j.dump());
  if (!again.ok() || again->path != r->path || again->trigger_id != r->trigger_id) std::abort();
}

void Segments(std::string_view s) {
  auto id = ParseCheckpointIdSegment(s);
  if (id.ok()) {
    auto again = ParseCheckpointIdSegment(std::to_string(*id));
    if (!again.ok() || *again != *id) std::abort();
  } else if (id.status().code() != ckpt::base::StatusCode::kInvalidArgument) {
    std::abort();
  }
  if (IsJobIdHex(s) && s.size() != 32) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  CheckpointTrigger(in);
  SavepointTrigger(in);
  Stop(in);
  Disposal(in);
  Segments(in);
  return 0;
}
