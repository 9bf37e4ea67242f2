// The subtask views of the REST API in Flink's shapes, built from the vertex details (Flink's
// JobVertexDetailsInfo lists each subtask as the SubtaskExecutionAttemptDetailsInfo that
// /subtasks/:index answers): one subtask's current attempt, and the subtasks' state timestamps
// (SubtasksTimesInfo).
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "rest/rest_json.h"

namespace ckpt::engine::rest {

// Subtask `index` of `v` as VertexDetailsJson lists it; nullopt if `v` has no such subtask.
std::optional<nlohmann::json> SubtaskAttemptJson(const JobRunner& job, const Vertex& v,
                                                 const Endpoint& ep, int64_t now_ms,
                                                 uint32_t index);
// Flink's SubtasksTimesInfo: per subtask the epoch ms it entered each state it went through
// (CREATED, RUNNING, and its terminal state once the job ended).
nlohmann::json SubtasksTimesJson(const JobRunner& job, const Vertex& v, const Endpoint& ep,
                                 int64_t now_ms);

}  // namespace ckpt::engine::rest
