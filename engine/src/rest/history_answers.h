// The history server's answers that are not stored as they are in an archive: the cluster
// overview, Flink 2.x's applications overview, metrics filtered by the request's `get` and `agg`,
// and the log URLs of Flink's historyserver.log.*.url-pattern.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ckpt::engine::history {

// Flink's ClusterOverview over the archived jobs (`jobs_overview`: {"jobs": [...]}): no task
// manager or slot (nothing runs), the jobs counted by their final state.
nlohmann::json ClusterOverviewJson(const nlohmann::json& jobs_overview);

// An archived metrics list (every metric with its value or aggregates, rest_archive.cpp) as the
// live endpoint answers `?get=...&agg=...`: without `get` the ids alone, with it the metrics
// named there (in the archive's order), each with only the aggregates in `agg` when given.
nlohmann::json FilteredMetricsJson(const nlohmann::json& archived, const std::string& get,
                                   const std::string& agg);

// Flink's LogUrlResponse {"url": ...}: `pattern` with <jobid> and <tmid> replaced.
nlohmann::json LogUrlJson(std::string pattern, const std::string& job_id,
                          const std::string& tm_id);

}  // namespace ckpt::engine::history
