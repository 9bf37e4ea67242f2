// JSON bodies of the REST API, in Flink's shapes and field names (Flink's REST message classes:
// CheckpointingStatistics, CheckpointStatistics, TaskCheckpointStatisticsWithSubtaskDetails,
// CheckpointConfigInfo, JobDetailsInfo, JobPlanInfo, ...). Built with nlohmann::json.
#pragma once

#include <cstdint>
#include <map>
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
// The vertex `id` of the job, nullopt if it has none.
std::optional<Vertex> FindVertex(const JobRunner& job, const std::string& id);

// The endpoint serving the job (the cluster views name it).
struct Endpoint {
  std::string address;
  int port = 0;
  int64_t start_ms = 0;  // the endpoint started
};

// The job's start (creation), end (-1 while it runs) and duration up to `now_ms` or its end.
struct JobTimes {
  int64_t start_ms = 0;
  int64_t end_ms = -1;
  int64_t duration_ms = 0;
};
JobTimes TimesOf(const JobRunner& job, int64_t fallback_start_ms, int64_t now_ms);

// Flink's IOMetricsInfo without measurements (task metrics off, or before the tasks exist):
// zeros, each `*-complete` false (as Flink answers before its metric fetcher has every subtask's
// value).
nlohmann::json IoMetricsJson();
// Flink's IOMetricsInfo of `subtasks` (one subtask's, or a vertex's): records and bytes summed,
// `*-complete` true when every one of `expected` subtasks was measured; the accumulated times
// are the largest subtask's (ms).
nlohmann::json IoMetricsJson(const std::vector<const SubtaskTaskMetrics*>& subtasks,
                             size_t expected);
// The measured subtasks of vertex `v` in `m`, by subtask index.
std::vector<const SubtaskTaskMetrics*> SubtasksOf(const TaskMetricsSnapshot& m, const Vertex& v);
// A metric value as Flink's metric query answers it (a string): integers without a fraction,
// Long.MIN_VALUE / Long.MAX_VALUE exact, rates with three decimals.
std::string MetricValueText(double value);
// Flink's ExecutionState of every task while the job has `job_status`.
std::string TaskStatusOf(const std::string& job_status);

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

// --- Vertex views (rest_json_vertex.cpp) ---------------------------------------------------
// Flink's JobVertexDetailsInfo: the vertex and its subtasks (status, attempt, host, times).
nlohmann::json VertexDetailsJson(const JobRunner& job, const Vertex& v, const Endpoint& ep,
                                 int64_t now_ms);
// Flink's JobVertexTaskManagersInfo: the one task manager running every subtask.
nlohmann::json VertexTaskManagersJson(const JobRunner& job, const Vertex& v, const Endpoint& ep,
                                      int64_t now_ms);
// The task metrics of each subtask of `v` (Flink's names: numRecordsIn/Out, numBytesIn/Out and
// their *PerSecond rates, busy/idle/backPressuredTimeMsPerSecond, accumulated*Time,
// currentInputWatermark, currentInput<N>Watermark, currentOutputWatermark,
// checkpointStartDelayNanos and checkpointAlignmentTime of the task's last checkpoint). With task
// metrics off: the last two from the latest completed checkpoint's statistics.
// name -> per subtask index value.
std::map<std::string, std::map<uint32_t, double>> SubtaskMetrics(const JobRunner& job,
                                                                 const Vertex& v);
// Flink's metric query answers: without `get` the list of names ([{"id"}]); with `get` (comma
// separated) the values: per subtask ("<i>.<name>": [{"id", "value"}]) for
// /vertices/:vid/metrics, aggregated ([{"id", "min", "max", "avg", "sum", "skew"}], `agg`
// selects) for /vertices/:vid/subtasks/metrics.
// The non-empty items of a comma-separated query parameter (`get`, `agg`).
std::vector<std::string> SplitComma(const std::string& s);
nlohmann::json VertexMetricsJson(const JobRunner& job, const Vertex& v, const std::string& get);
nlohmann::json AggregatedSubtaskMetricsJson(const JobRunner& job, const Vertex& v,
                                            const std::string& get, const std::string& agg);
// Flink's JobVertexBackPressureInfo when no back-pressure measurement exists.
nlohmann::json BackPressureJson();
// Flink's JobVertexBackPressureInfo (1.13+) from each subtask's backPressuredTimeMsPerSecond:
// ratio, idleRatio, busyRatio and the level (ok <= 0.10 < low <= 0.5 < high); "deprecated"
// when task metrics are off.
nlohmann::json BackPressureJson(const JobRunner& job, const Vertex& v, int64_t now_ms);
// Flink's JobVertexWatermarksHandler answer: [{"id": "<subtask>.currentInputWatermark",
// "value"}] of every measured subtask (empty when task metrics are off).
nlohmann::json VertexWatermarksJson(const JobRunner& job, const Vertex& v);
// Flink's JobVertexAccumulatorsInfo / SubtasksAllAccumulatorsInfo: the engine has no user
// accumulators.
nlohmann::json VertexAccumulatorsJson(const Vertex& v);
nlohmann::json SubtasksAccumulatorsJson(const Vertex& v, const Endpoint& ep, uint32_t attempt);

// --- Job and cluster views (rest_json_cluster.cpp) -------------------------------------------
// Flink's JobConfigInfo.
nlohmann::json JobConfigJson(const JobRunner& job);
// Flink's JobExceptionsInfoWithHistory: the last failure as root exception, every recorded
// failure in `exceptionHistory` (newest first).
nlohmann::json JobExceptionsJson(const JobRunner& job, size_t max_exceptions);
// Flink's JobAccumulatorsInfo (no accumulators).
nlohmann::json JobAccumulatorsJson();
// Flink's TaskManagersInfo / TaskManagerDetailsInfo: the engine process is the one task
// manager; its slots are the job's tasks.
nlohmann::json TaskManagersJson(const JobRunner& job, const Endpoint& ep, int64_t now_ms);
nlohmann::json TaskManagerDetailsJson(const JobRunner& job, const Endpoint& ep, int64_t now_ms);
// Flink's ClusterConfigurationInfo: [{"key", "value"}] of the options in effect.
nlohmann::json JobManagerConfigJson(const JobRunner& job, const Endpoint& ep);
// Flink's EnvironmentInfo: {"jvm": {"version", "arch", "options"}, "classpath"}.
nlohmann::json JobManagerEnvironmentJson();
// The job manager metrics (Flink's names): list without `get`, [{"id", "value"}] with it.
nlohmann::json JobManagerMetricsJson(const JobRunner& job, const std::string& get);
// Flink's LogListInfo: {"logs": [{"name", "size", "mtime"}]} of the files stdout and stderr
// are written to.
nlohmann::json JobManagerLogsJson();

}  // namespace ckpt::engine::rest
