// The subtask views of the REST API, derived from the vertex details.
#include "rest/rest_json_subtask.h"

namespace ckpt::engine::rest {

using nlohmann::json;

std::optional<json> SubtaskAttemptJson(const JobRunner& job, const Vertex& v, const Endpoint& ep,
                                       int64_t now_ms, uint32_t index) {
  if (index >= v.parallelism) return std::nullopt;
  json details = VertexDetailsJson(job, v, ep, now_ms);
  if (!details["subtasks"].is_array() || index >= details["subtasks"].size()) return std::nullopt;
  return details["subtasks"][index];
}

json SubtasksTimesJson(const JobRunner& job, const Vertex& v, const Endpoint& ep,
                       int64_t now_ms) {
  const json details = VertexDetailsJson(job, v, ep, now_ms);
  const JobTimeline t = job.timeline();
  json subtasks = json::array();
  // Every subtask of the attempt went through its states together (the engine starts and
  // ends an attempt's tasks as one).
  const std::string status = TaskStatusOf(job.status_name());
  json timestamps = json::object();
  if (t.created_ms > 0) timestamps["CREATED"] = t.created_ms;
  if (t.attempt_start_ms > 0) {
    for (const char* state : {"SCHEDULED", "DEPLOYING", "INITIALIZING", "RUNNING"}) {
      timestamps[state] = t.attempt_start_ms;
    }
  }
  if (t.end_ms > 0) timestamps[status] = t.end_ms;
  for (const json& s : details["subtasks"]) {
    subtasks.push_back({{"subtask", s["subtask"]},
                        {"host", s["host"]},
                        {"endpoint", s["endpoint"]},
                        {"duration", s["duration"]},
                        {"timestamps", timestamps}});
  }
  return {{"id", v.id}, {"name", v.name}, {"now", now_ms}, {"subtasks", subtasks}};
}

}  // namespace ckpt::engine::rest
