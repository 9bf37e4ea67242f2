#pragma once
// The views Flink's web dashboard reads besides the REST API's core (defined in
// rest_json_cluster.cpp): the task manager's metrics and logs, thread dumps and the flame
// graph's answer. The engine process is the one job manager and the one task manager.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/engine/job_runner.h"

namespace ckpt::engine::rest {

// Flink's TaskManagerMetricsHandler answer (MetricCollectionResponseBody): without `get` the
// ids of the process metrics the task manager has; with `get=a,b` the values of those of them
// that exist.
nlohmann::json TaskManagerMetricsJson(const std::string& get);

// Flink's LogListInfo of the task manager: taskmanager.log (standard error, where the engine
// logs) and taskmanager.out (standard output), each when it is a regular file.
nlohmann::json TaskManagerLogsJson();

// The file descriptor (2 or 1) behind a log name of the log lists: `<role>.log` or `<role>.out`
// for role "jobmanager" or "taskmanager"; nullopt for any other name.
std::optional<int> LogNameFd(const std::string& role, const std::string& name);

// Flink's ThreadDumpInfo: one entry per thread of the engine process (/proc/self/task), named
// as the kernel names it, with its id and scheduler state (there are no Java stack traces).
nlohmann::json ThreadDumpJson();

// Flink's JobVertexFlameGraph when flame graphs are disabled (rest.flamegraph.enabled=false,
// Flink's default): {"endTimestamp": -2}. The engine samples no stacks.
nlohmann::json FlameGraphDisabledJson();

// Flink 2.x's ApplicationsOverview (/applications/overview): `ckpt-engine run` is one application
// running one job, as Flink's application mode; it has the job's id, name and times, a status
// of Flink's ApplicationState and the count of its jobs per job status. `jobs_overview` is the
// /jobs/overview answer.
nlohmann::json ApplicationsOverviewJson(const nlohmann::json& jobs_overview);

}  // namespace ckpt::engine::rest
