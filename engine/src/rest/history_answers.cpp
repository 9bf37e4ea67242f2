// The history server's computed answers (history_answers.h).
#include "rest/history_answers.h"

#include <set>

#include "rest/rest_json.h"

namespace ckpt::engine::history {

using nlohmann::json;

namespace {

void ReplaceAll(std::string& s, const std::string& what, const std::string& with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size())) {
    s.replace(at, what.size(), with);
  }
}

}  // namespace

json ClusterOverviewJson(const json& jobs_overview) {
  int running = 0, finished = 0, cancelled = 0, failed = 0;
  if (jobs_overview.contains("jobs") && jobs_overview["jobs"].is_array()) {
    for (const json& j : jobs_overview["jobs"]) {
      const std::string state = j.value("state", "");
      if (state == "FINISHED") ++finished;
      else if (state == "CANCELED") ++cancelled;
      else if (state == "FAILED") ++failed;
      else ++running;  // an archive a crash left: running when it was written
    }
  }
  json o = rest::ConfigJson();
  return {{"taskmanagers", 0},        {"slots-total", 0},
          {"slots-available", 0},     {"jobs-running", running},
          {"jobs-finished", finished}, {"jobs-cancelled", cancelled},
          {"jobs-failed", failed},    {"flink-version", o["flink-version"]},
          {"flink-commit", o["flink-revision"]}};
}

json FilteredMetricsJson(const json& archived, const std::string& get, const std::string& agg) {
  json out = json::array();
  if (!archived.is_array()) return out;
  if (get.empty()) {
    for (const json& m : archived) {
      if (m.is_object() && m.contains("id")) out.push_back({{"id", m["id"]}});
    }
    return out;
  }
  const std::vector<std::string> ids = rest::SplitComma(get);
  const std::set<std::string> wanted(ids.begin(), ids.end());
  const std::vector<std::string> aggs = rest::SplitComma(agg);
  for (const json& m : archived) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string() ||
        wanted.count(m["id"].get<std::string>()) == 0) {
      continue;
    }
    if (aggs.empty()) {
      out.push_back(m);
      continue;
    }
    json kept = {{"id", m["id"]}};
    for (const std::string& a : aggs) {
      if (m.contains(a)) kept[a] = m[a];
    }
    out.push_back(std::move(kept));
  }
  return out;
}

json LogUrlJson(std::string pattern, const std::string& job_id, const std::string& tm_id) {
  ReplaceAll(pattern, "<jobid>", job_id);
  ReplaceAll(pattern, "<tmid>", tm_id);
  return {{"url", pattern}};
}

}  // namespace ckpt::engine::history
