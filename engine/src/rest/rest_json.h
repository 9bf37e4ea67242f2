// JSON bodies of the REST API, in Flink's shapes and field names (Flink's REST message classes:
// CheckpointingStatistics, CheckpointStatistics, TaskCheckpointStatisticsWithSubtaskDetails,
// CheckpointConfigInfo, JobDetailsInfo, JobPlanInfo, ...). Built with nlohmann::json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/engine/job_runner.h"

namespace ckpt::engine::rest {

// Flink's vertex: one operator chain, named by its head operator's id (hex).
struct Vertex {
  std::string id;
  std::string name;
  uint32_t parallelism = 0;
  uint32_t max_parallelism = 0;
  std::vector<format::OperatorId> operators;  // head first
};
std::vector<Vertex> Vertices(const pb::JobGraph& graph);

nlohmann::json ErrorBody(const std::string& message);
nlohmann::json ConfigJson();
nlohmann::json OverviewJson(const JobRunner& job);
nlohmann::json JobsJson(const JobRunner& job);
nlohmann::json JobsOverviewJson(const JobRunner& job, int64_t start_ms, int64_t now_ms);
nlohmann::json JobDetailsJson(const JobRunner& job, int64_t start_ms, int64_t now_ms);
nlohmann::json PlanJson(const JobRunner& job);
nlohmann::json CheckpointingStatisticsJson(const JobRunner& job,
                                           const CheckpointStatsSnapshot& stats);
nlohmann::json CheckpointConfigJson(const JobRunner& job);
// One checkpoint with its per-vertex task statistics.
nlohmann::json CheckpointDetailsJson(const JobRunner& job, const CheckpointStatsEntry& entry);
// nullopt if the vertex is not one of the job's.
std::optional<nlohmann::json> SubtaskDetailsJson(const JobRunner& job,
                                                 const CheckpointStatsEntry& entry,
                                                 const std::string& vertex_id);

}  // namespace ckpt::engine::rest
