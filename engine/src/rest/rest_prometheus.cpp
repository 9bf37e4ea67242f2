// Flink's job-manager checkpoint gauges in the Prometheus text format.
#include "rest/rest_prometheus.h"

#include <sstream>
#include <utility>
#include <vector>

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
  return out.str();
}

}  // namespace ckpt::engine::rest
