// Flink's job-manager checkpoint gauges in the Prometheus text format.
#include "rest/rest_prometheus.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "rest/rest_json.h"
#include "rest/rest_process.h"

namespace ckpt::engine::rest {
namespace {

// Label values escape backslash, double quote and newline (the exposition format's rule).
std::string EscapeLabel(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A sample value: integers as such, rates with their fraction.
std::string SampleText(double v) {
  if (std::fabs(v) < 9e18 && v == std::floor(v)) {
    return std::to_string(static_cast<int64_t>(v));
  }
  char text[64];
  std::snprintf(text, sizeof(text), "%.6g", v);
  return text;
}

// Flink's task-scope metrics (flink_taskmanager_job_task_<name>) of every measured subtask.
void AppendTaskMetrics(const JobRunner& job, const std::string& host, std::ostringstream& out) {
  const TaskMetricsSnapshot m = job.task_metrics();
  if (!m.enabled || m.subtasks.empty()) return;
  std::map<std::string, std::string> vertex_names;
  for (const Vertex& v : Vertices(job.job_graph())) vertex_names[v.id] = v.name;
  using Get = std::function<double(const SubtaskTaskMetrics&)>;
  auto d = [](auto x) { return static_cast<double>(x); };
  const std::vector<std::pair<const char*, Get>> metrics = {
      {"numRecordsIn", [&](const SubtaskTaskMetrics& s) { return d(s.records_in); }},
      {"numRecordsOut", [&](const SubtaskTaskMetrics& s) { return d(s.records_out); }},
      {"numBytesIn", [&](const SubtaskTaskMetrics& s) { return d(s.bytes_in); }},
      {"numBytesOut", [&](const SubtaskTaskMetrics& s) { return d(s.bytes_out); }},
      {"numRecordsInPerSecond", [](const SubtaskTaskMetrics& s) { return s.records_in_per_s; }},
      {"numRecordsOutPerSecond", [](const SubtaskTaskMetrics& s) { return s.records_out_per_s; }},
      {"numBytesInPerSecond", [](const SubtaskTaskMetrics& s) { return s.bytes_in_per_s; }},
      {"numBytesOutPerSecond", [](const SubtaskTaskMetrics& s) { return s.bytes_out_per_s; }},
      {"busyTimeMsPerSecond", [](const SubtaskTaskMetrics& s) { return s.busy_ms_per_s; }},
      {"idleTimeMsPerSecond", [](const SubtaskTaskMetrics& s) { return s.idle_ms_per_s; }},
      {"backPressuredTimeMsPerSecond",
       [](const SubtaskTaskMetrics& s) { return s.backpressured_ms_per_s; }},
      {"accumulatedBusyTime", [&](const SubtaskTaskMetrics& s) { return d(s.busy_ms); }},
      {"accumulatedIdleTime", [&](const SubtaskTaskMetrics& s) { return d(s.idle_ms); }},
      {"accumulatedBackPressuredTime",
       [&](const SubtaskTaskMetrics& s) { return d(s.backpressured_ms); }},
      {"currentInputWatermark", [&](const SubtaskTaskMetrics& s) { return d(s.input_watermark); }},
      {"currentOutputWatermark",
       [&](const SubtaskTaskMetrics& s) { return d(s.output_watermark); }},
      {"checkpointStartDelayNanos",
       [&](const SubtaskTaskMetrics& s) { return d(s.checkpoint_start_delay_ns); }},
      {"checkpointAlignmentTime",
       [&](const SubtaskTaskMetrics& s) { return d(s.checkpoint_alignment_ns); }}};
  // Flink's task scope labels; the attempt id is Flink's ExecutionAttemptID text
  // (<job>_<vertex>_<subtask>_<attempt>).
  std::vector<std::string> labels;
  for (const SubtaskTaskMetrics& s : m.subtasks) {
    const std::string attempt = std::to_string(s.attempt);
    labels.push_back(
        "{job_id=\"" + EscapeLabel(job.job_id_hex()) + "\",job_name=\"" +
        EscapeLabel(job.job_name()) + "\",task_id=\"" + EscapeLabel(s.vertex_id) +
        "\",task_name=\"" + EscapeLabel(vertex_names[s.vertex_id]) + "\",subtask_index=\"" +
        std::to_string(s.subtask) + "\",task_attempt_id=\"" +
        EscapeLabel(job.job_id_hex() + "_" + s.vertex_id + "_" + std::to_string(s.subtask) + "_" +
                    attempt) +
        "\",task_attempt_num=\"" + attempt + "\",tm_id=\"" + EscapeLabel(TaskManagerId()) +
        "\",host=\"" + EscapeLabel(host) + "\"}");
  }
  for (const auto& [name, get] : metrics) {
    const std::string metric = std::string("flink_taskmanager_job_task_") + name;
    out << "# HELP " << metric << " " << name << " (scope: taskmanager_job_task)\n";
    out << "# TYPE " << metric << " gauge\n";
    for (size_t i = 0; i < m.subtasks.size(); ++i) {
      out << metric << labels[i] << " " << SampleText(get(m.subtasks[i])) << "\n";
    }
  }
}

}  // namespace

std::string PrometheusText(const JobRunner& job, const std::string& host, int64_t now_ms) {
  const CheckpointStatsSnapshot s = job.checkpoint_stats();
  const JobTimeline t = job.timeline();
  const std::optional<CheckpointStatsEntry>& last = s.latest_completed;
  auto or_none = [&](auto get) -> int64_t { return last ? static_cast<int64_t>(get(*last)) : -1; };
  const std::vector<std::pair<const char*, int64_t>> gauges = {
      {"numberOfCheckpoints", static_cast<int64_t>(s.total)},
      {"numberOfInProgressCheckpoints", static_cast<int64_t>(s.in_progress)},
      {"numberOfCompletedCheckpoints", static_cast<int64_t>(s.completed)},
      {"numberOfFailedCheckpoints", static_cast<int64_t>(s.failed)},
      {"lastCheckpointDuration",
       or_none([](const CheckpointStatsEntry& e) { return e.metrics.end_to_end_duration(); })},
      {"lastCheckpointSize",
       or_none([](const CheckpointStatsEntry& e) { return e.metrics.checkpointed_size(); })},
      {"lastCheckpointFullSize",
       or_none([](const CheckpointStatsEntry& e) { return e.metrics.state_size(); })},
      {"lastCheckpointProcessedData",
       or_none([](const CheckpointStatsEntry& e) { return e.metrics.processed_data(); })},
      {"lastCheckpointPersistedData",
       or_none([](const CheckpointStatsEntry& e) { return e.metrics.persisted_data(); })},
      {"lastCompletedCheckpointId",
       or_none([](const CheckpointStatsEntry& e) { return e.checkpoint_id; })},
      {"lastCheckpointRestoreTimestamp",
       s.latest_restored ? s.latest_restored->restore_timestamp_ms : -1},
      {"numRestarts", static_cast<int64_t>(job.restarts())},
      // Flink's uptime: how long the job has run without interruption (since its last
      // restart), 0 while it does not run, -1 once it ended.
      {"uptime", t.end_ms != 0                  ? -1
                 : job.status_name() == "RUNNING" ? now_ms - t.attempt_start_ms
                                                  : 0}};
  const std::string labels = "{job_id=\"" + EscapeLabel(job.job_id_hex()) + "\",job_name=\"" +
                             EscapeLabel(job.job_name()) + "\",host=\"" + EscapeLabel(host) +
                             "\"}";
  std::ostringstream out;
  for (const auto& [name, value] : gauges) {
    const std::string metric = std::string("flink_jobmanager_job_") + name;
    out << "# HELP " << metric << " " << name << " (scope: jobmanager_job)\n";
    out << "# TYPE " << metric << " gauge\n";
    out << metric << labels << " " << value << "\n";
  }
  AppendTaskMetrics(job, host, out);
  return out.str();
}

}  // namespace ckpt::engine::rest
