// The vertex views of the REST API in Flink's shapes: details with subtasks, task managers,
// metrics, back pressure and accumulators.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "rest/rest_json.h"
#include "rest/rest_process.h"

namespace ckpt::engine::rest {

using nlohmann::json;

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

namespace {

std::string Host(const Endpoint& ep) { return ep.address; }

// One subtask's times: its attempt started with the attempt's tasks, ended with the job.
struct SubtaskTimes {
  int64_t start_ms = -1;
  int64_t end_ms = -1;
  int64_t duration_ms = -1;
};

SubtaskTimes TimesOfAttempt(const JobTimeline& t, int64_t now_ms) {
  SubtaskTimes s;
  if (t.attempt_start_ms == 0) return s;
  s.start_ms = t.attempt_start_ms;
  s.end_ms = t.end_ms != 0 ? t.end_ms : -1;
  s.duration_ms = (t.end_ms != 0 ? t.end_ms : now_ms) - t.attempt_start_ms;
  return s;
}

// Flink's status-duration of an execution: how long it spent in each state before the current.
json StatusDuration(const JobTimeline& t, const SubtaskTimes& times) {
  const int64_t created = t.attempt == 0 && t.attempt_start_ms != 0
                              ? t.attempt_start_ms - t.created_ms
                              : 0;
  return {{"CREATED", created},
          {"SCHEDULED", 0},
          {"DEPLOYING", 0},
          {"INITIALIZING", 0},
          {"RUNNING", times.duration_ms < 0 ? 0 : times.duration_ms}};
}

json SubtaskJson(uint32_t index, const std::string& status, const JobTimeline& t,
                 const SubtaskTimes& times, const Endpoint& ep,
                 const std::vector<const SubtaskTaskMetrics*>& measured) {
  std::vector<const SubtaskTaskMetrics*> mine;
  for (const SubtaskTaskMetrics* m : measured) {
    if (m->subtask == index) mine.push_back(m);
  }
  const std::string location = Host(ep) + ":" + std::to_string(ep.port);
  return {{"subtask", index},
          {"status", status},
          {"attempt", t.attempt},
          {"host", location},
          {"endpoint", location},
          {"start-time", times.start_ms},
          {"start_time", times.start_ms},
          {"end-time", times.end_ms},
          {"duration", times.duration_ms},
          {"metrics", IoMetricsJson(mine, 1)},
          {"taskmanager-id", TaskManagerId()},
          {"status-duration", StatusDuration(t, times)}};
}

// Flink's aggregation of one metric over subtasks (min, max, avg, sum, skew).
json Aggregate(const std::string& name, const std::map<uint32_t, double>& values,
               const std::vector<std::string>& aggs) {
  double min = INFINITY, max = -INFINITY, sum = 0;
  for (const auto& [i, v] : values) {
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
  }
  const double n = static_cast<double>(values.size());
  const double avg = n > 0 ? sum / n : 0;
  // Flink's skew: mean absolute deviation over the mean, as a percentage (at most 100).
  double abs_dev = 0;
  for (const auto& [i, v] : values) abs_dev += std::fabs(avg - v);
  const double skew = avg != 0 && n > 0 ? std::min(abs_dev / n / avg * 100.0, 100.0) : 0;
  json j = {{"id", name}};
  const std::vector<std::string> all = {"min", "max", "avg", "sum", "skew"};
  for (const std::string& a : aggs.empty() ? all : aggs) {
    if (a == "min") j["min"] = n > 0 ? min : 0;
    if (a == "max") j["max"] = n > 0 ? max : 0;
    if (a == "avg") j["avg"] = avg;
    if (a == "sum") j["sum"] = sum;
    if (a == "skew") j["skew"] = skew;
  }
  return j;
}

}  // namespace

json VertexDetailsJson(const JobRunner& job, const Vertex& v, const Endpoint& ep,
                       int64_t now_ms) {
  const JobTimeline t = job.timeline();
  const SubtaskTimes times = TimesOfAttempt(t, now_ms);
  const std::string status = TaskStatusOf(job.status_name());
  const TaskMetricsSnapshot metrics = job.task_metrics();
  const std::vector<const SubtaskTaskMetrics*> measured = SubtasksOf(metrics, v);
  json subtasks = json::array();
  for (uint32_t i = 0; i < v.parallelism; ++i) {
    subtasks.push_back(SubtaskJson(i, status, t, times, ep, measured));
  }
  return {{"id", v.id},
          {"name", v.name},
          {"parallelism", v.parallelism},
          {"maxParallelism", v.max_parallelism},
          {"now", now_ms},
          {"subtasks", subtasks}};
}

json VertexTaskManagersJson(const JobRunner& job, const Vertex& v, const Endpoint& ep,
                            int64_t now_ms) {
  const JobTimeline t = job.timeline();
  const SubtaskTimes times = TimesOfAttempt(t, now_ms);
  const std::string status = TaskStatusOf(job.status_name());
  json counts = {{"CREATED", 0},  {"SCHEDULED", 0}, {"DEPLOYING", 0}, {"RUNNING", 0},
                 {"FINISHED", 0}, {"CANCELING", 0}, {"CANCELED", 0},  {"FAILED", 0},
                 {"RECONCILING", 0}, {"INITIALIZING", 0}};
  if (counts.contains(status)) counts[status] = v.parallelism;
  const std::string location = Host(ep) + ":" + std::to_string(ep.port);
  const TaskMetricsSnapshot metrics = job.task_metrics();
  json tm = {{"host", location},
             {"endpoint", location},
             {"status", status},
             {"start-time", times.start_ms},
             {"end-time", times.end_ms},
             {"duration", times.duration_ms},
             {"metrics", IoMetricsJson(SubtasksOf(metrics, v), v.parallelism)},
             {"status-counts", counts},
             {"taskmanager-id", TaskManagerId()}};
  return {{"id", v.id}, {"name", v.name}, {"now", now_ms}, {"taskmanagers", json::array({tm})}};
}

std::map<std::string, std::map<uint32_t, double>> SubtaskMetrics(const JobRunner& job,
                                                                 const Vertex& v) {
  std::map<std::string, std::map<uint32_t, double>> out;
  const TaskMetricsSnapshot task_metrics = job.task_metrics();
  if (task_metrics.enabled) {
    for (const SubtaskTaskMetrics* m : SubtasksOf(task_metrics, v)) {
      const uint32_t i = m->subtask;
      auto d = [](auto x) { return static_cast<double>(x); };
      out["numRecordsIn"][i] = d(m->records_in);
      out["numRecordsOut"][i] = d(m->records_out);
      out["numBytesIn"][i] = d(m->bytes_in);
      out["numBytesOut"][i] = d(m->bytes_out);
      out["numRecordsInPerSecond"][i] = m->records_in_per_s;
      out["numRecordsOutPerSecond"][i] = m->records_out_per_s;
      out["numBytesInPerSecond"][i] = m->bytes_in_per_s;
      out["numBytesOutPerSecond"][i] = m->bytes_out_per_s;
      out["busyTimeMsPerSecond"][i] = m->busy_ms_per_s;
      out["idleTimeMsPerSecond"][i] = m->idle_ms_per_s;
      out["backPressuredTimeMsPerSecond"][i] = m->backpressured_ms_per_s;
      out["accumulatedBusyTime"][i] = d(m->busy_ms);
      out["accumulatedIdleTime"][i] = d(m->idle_ms);
      out["accumulatedBackPressuredTime"][i] = d(m->backpressured_ms);
      out["currentInputWatermark"][i] = d(m->input_watermark);
      if (m->input_watermarks.size() > 1) {
        for (size_t n = 0; n < m->input_watermarks.size(); ++n) {
          out["currentInput" + std::to_string(n + 1) + "Watermark"][i] =
              d(m->input_watermarks[n]);
        }
      }
      out["currentOutputWatermark"][i] = d(m->output_watermark);
      out["checkpointStartDelayNanos"][i] = d(m->checkpoint_start_delay_ns);
      out["checkpointAlignmentTime"][i] = d(m->checkpoint_alignment_ns);
    }
    return out;
  }
  const CheckpointStatsSnapshot stats = job.checkpoint_stats();
  if (!stats.latest_completed) return out;
  const CheckpointStatsEntry& e = *stats.latest_completed;
  // The chain's subtask: the slowest operator (one task thread snapshots the whole chain).
  std::map<uint32_t, std::pair<int64_t, int64_t>> per_subtask;  // alignment, start delay (ms)
  for (const format::OperatorId& op : v.operators) {
    auto it = e.subtasks.find(op);
    if (it == e.subtasks.end()) continue;
    for (const auto& [index, m] : it->second) {
      auto& slot = per_subtask[index];
      slot.first = std::max(slot.first, m.alignment_duration());
      slot.second = std::max(slot.second, m.start_delay());
    }
  }
  for (const auto& [index, ms] : per_subtask) {
    out["checkpointAlignmentTime"][index] = static_cast<double>(ms.first) * 1e6;
    out["checkpointStartDelayNanos"][index] = static_cast<double>(ms.second) * 1e6;
  }
  return out;
}

json VertexMetricsJson(const JobRunner& job, const Vertex& v, const std::string& get) {
  const auto metrics = SubtaskMetrics(job, v);
  json out = json::array();
  if (get.empty()) {
    for (const auto& [name, values] : metrics) {
      for (const auto& [i, value] : values) out.push_back({{"id", std::to_string(i) + "." + name}});
    }
    return out;
  }
  for (const std::string& id : SplitComma(get)) {
    const size_t dot = id.find('.');
    if (dot == std::string::npos) continue;
    auto m = metrics.find(id.substr(dot + 1));
    if (m == metrics.end()) continue;
    const std::string index = id.substr(0, dot);
    for (const auto& [i, value] : m->second) {
      if (std::to_string(i) != index) continue;
      out.push_back({{"id", id}, {"value", MetricValueText(value)}});
    }
  }
  return out;
}

json AggregatedSubtaskMetricsJson(const JobRunner& job, const Vertex& v, const std::string& get,
                                  const std::string& agg) {
  const auto metrics = SubtaskMetrics(job, v);
  json out = json::array();
  if (get.empty()) {
    for (const auto& [name, values] : metrics) out.push_back({{"id", name}});
    return out;
  }
  const std::vector<std::string> aggs = SplitComma(agg);
  for (const std::string& name : SplitComma(get)) {
    auto m = metrics.find(name);
    if (m != metrics.end()) out.push_back(Aggregate(name, m->second, aggs));
  }
  return out;
}

json BackPressureJson() { return {{"status", "deprecated"}}; }

json BackPressureJson(const JobRunner& job, const Vertex& v, int64_t now_ms) {
  const TaskMetricsSnapshot metrics = job.task_metrics();
  const std::vector<const SubtaskTaskMetrics*> measured = SubtasksOf(metrics, v);
  if (!metrics.enabled || measured.empty()) return BackPressureJson();
  // Flink 1.13+: the level of the back-pressured share of time (ok up to 10 %, low up to 50 %).
  auto level = [](double ratio) { return ratio <= 0.10 ? "ok" : ratio <= 0.5 ? "low" : "high"; };
  double max_ratio = 0;
  json subtasks = json::array();
  for (const SubtaskTaskMetrics* m : measured) {
    const double ratio = m->backpressured_ms_per_s / 1000.0;
    max_ratio = std::max(max_ratio, ratio);
    subtasks.push_back({{"subtask", m->subtask},
                        {"attempt-number", m->attempt},
                        {"backpressure-level", level(ratio)},
                        {"ratio", ratio},
                        {"idleRatio", m->idle_ms_per_s / 1000.0},
                        {"busyRatio", m->busy_ms_per_s / 1000.0}});
  }
  return {{"status", "ok"},
          {"backpressure-level", level(max_ratio)},
          {"end-timestamp", now_ms},
          {"subtasks", subtasks}};
}

json VertexWatermarksJson(const JobRunner& job, const Vertex& v) {
  json out = json::array();
  const TaskMetricsSnapshot metrics = job.task_metrics();
  for (const SubtaskTaskMetrics* m : SubtasksOf(metrics, v)) {
    out.push_back({{"id", std::to_string(m->subtask) + ".currentInputWatermark"},
                   {"value", MetricValueText(static_cast<double>(m->input_watermark))}});
  }
  return out;
}

json VertexAccumulatorsJson(const Vertex& v) {
  return {{"id", v.id}, {"user-accumulators", json::array()}};
}

json SubtasksAccumulatorsJson(const Vertex& v, const Endpoint& ep, uint32_t attempt) {
  json subtasks = json::array();
  const std::string location = Host(ep) + ":" + std::to_string(ep.port);
  for (uint32_t i = 0; i < v.parallelism; ++i) {
    subtasks.push_back({{"subtask", i},
                        {"attempt", attempt},
                        {"host", location},
                        {"endpoint", location},
                        {"user-accumulators", json::array()}});
  }
  return {{"id", v.id}, {"parallelism", v.parallelism}, {"subtasks", subtasks}};
}

}  // namespace ckpt::engine::rest
