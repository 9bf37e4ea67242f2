// JSON bodies of the REST API in Flink's shapes.
#include "rest/rest_json.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>

#include "ckpt/version.h"

namespace ckpt::engine::rest {
namespace {

using nlohmann::json;

// Per subtask of a vertex: its operators' metrics combined (sizes add, durations take the
// slowest operator, as one task thread snapshots the whole chain).
std::map<uint32_t, pb::SubtaskMetrics> VertexSubtasks(const Vertex& v,
                                                     const CheckpointStatsEntry& e) {
  std::map<uint32_t, pb::SubtaskMetrics> out;
  for (const format::OperatorId& op : v.operators) {
    auto it = e.subtasks.find(op);
    if (it == e.subtasks.end()) continue;
    for (const auto& [index, m] : it->second) {
      auto [slot, fresh] = out.emplace(index, m);
      if (fresh) continue;
      pb::SubtaskMetrics& s = slot->second;
      s.set_ack_timestamp(std::max(s.ack_timestamp(), m.ack_timestamp()));
      s.set_end_to_end_duration(std::max(s.end_to_end_duration(), m.end_to_end_duration()));
      s.set_state_size(s.state_size() + m.state_size());
      s.set_checkpointed_size(s.checkpointed_size() + m.checkpointed_size());
      s.set_sync_duration(std::max(s.sync_duration(), m.sync_duration()));
      s.set_async_duration(std::max(s.async_duration(), m.async_duration()));
      s.set_alignment_duration(std::max(s.alignment_duration(), m.alignment_duration()));
      s.set_start_delay(std::max(s.start_delay(), m.start_delay()));
      s.set_processed_data(s.processed_data() + m.processed_data());
      s.set_persisted_data(s.persisted_data() + m.persisted_data());
      s.set_unaligned_checkpoint(s.unaligned_checkpoint() || m.unaligned_checkpoint());
    }
  }
  return out;
}

const char* StatusName(CheckpointStatsStatus s) {
  switch (s) {
    case CheckpointStatsStatus::kInProgress: return "IN_PROGRESS";
    case CheckpointStatsStatus::kCompleted: return "COMPLETED";
    case CheckpointStatsStatus::kFailed: return "FAILED";
  }
  return "IN_PROGRESS";
}

const char* ClassName(CheckpointStatsStatus s) {
  switch (s) {
    case CheckpointStatsStatus::kInProgress: return "in_progress";
    case CheckpointStatsStatus::kCompleted: return "completed";
    case CheckpointStatsStatus::kFailed: return "failed";
  }
  return "in_progress";
}

// Flink's RestAPICheckpointType.
std::string CheckpointTypeName(const CheckpointStatsEntry& e) {
  if (e.kind == pb::SAVEPOINT) {
    return e.post_action == pb::POST_ACTION_STOP || e.post_action == pb::POST_ACTION_TERMINATE
               ? "SYNC_SAVEPOINT"
               : "SAVEPOINT";
  }
  return e.metrics.is_unaligned() ? "UNALIGNED_CHECKPOINT" : "CHECKPOINT";
}

// Flink's StatsSummaryDto: min, max, avg and the percentiles of Commons Math's default
// estimator (position p * (n + 1), linear between neighbours).
json StatsSummary(std::vector<double> values) {
  json j = {{"min", 0}, {"max", 0}, {"avg", 0}, {"p50", 0.0}, {"p90", 0.0},
            {"p95", 0.0}, {"p99", 0.0}, {"p999", 0.0}};
  if (values.empty()) return j;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  const double n = static_cast<double>(values.size());
  auto pct = [&](double p) {
    const double pos = p * (n + 1);
    if (pos < 1) return values.front();
    if (pos >= n) return values.back();
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const double frac = pos - std::floor(pos);
    return values[lo - 1] + frac * (values[lo] - values[lo - 1]);
  };
  j["min"] = static_cast<int64_t>(values.front());
  j["max"] = static_cast<int64_t>(values.back());
  j["avg"] = static_cast<int64_t>(sum / n);
  j["p50"] = pct(0.5);
  j["p90"] = pct(0.9);
  j["p95"] = pct(0.95);
  j["p99"] = pct(0.99);
  j["p999"] = pct(0.999);
  return j;
}

// Flink's MinMaxAvgStatistics.
// Over the acknowledged subtasks (Flink's StatsSummaryDto, as the checkpoint summary).
template <typename F>
json MinMaxAvg(const std::map<uint32_t, pb::SubtaskMetrics>& subtasks, F get) {
  std::vector<double> values;
  for (const auto& [i, m] : subtasks) values.push_back(static_cast<double>(get(m)));
  return StatsSummary(std::move(values));
}

json CheckpointJson(const JobRunner& job, const CheckpointStatsEntry& e, bool with_tasks) {
  const pb::CheckpointMetrics& m = e.metrics;
  json j = {
      {"className", ClassName(e.status)},
      {"id", e.checkpoint_id},
      {"status", StatusName(e.status)},
      {"is_savepoint", e.kind == pb::SAVEPOINT},
      {"savepointFormat", e.kind == pb::SAVEPOINT
                              ? json(e.savepoint_format == pb::NATIVE ? "NATIVE" : "CANONICAL")
                              : json(nullptr)},
      {"trigger_timestamp", m.trigger_timestamp()},
      {"latest_ack_timestamp", m.latest_ack_timestamp()},
      {"checkpointed_size", m.checkpointed_size()},
      {"state_size", m.state_size()},
      {"end_to_end_duration", m.end_to_end_duration()},
      {"alignment_buffered", 0},
      {"processed_data", m.processed_data()},
      {"persisted_data", m.persisted_data()},
      {"num_subtasks", m.num_subtasks()},
      {"num_acknowledged_subtasks", m.num_acknowledged_subtasks()},
      {"checkpoint_type", CheckpointTypeName(e)},
      {"tasks", json::object()},
  };
  if (e.status == CheckpointStatsStatus::kCompleted) {
    j["external_path"] = e.external_path;
    j["discarded"] = e.discarded;
  }
  if (e.status == CheckpointStatsStatus::kFailed) {
    j["failure_timestamp"] = e.failure_timestamp_ms;
    j["failure_message"] = e.failure_message;
  }
  if (with_tasks) {
    for (const Vertex& v : Vertices(job.job_graph())) {
      std::map<uint32_t, pb::SubtaskMetrics> subs = VertexSubtasks(v, e);
      json t = {{"id", e.checkpoint_id}, {"status", StatusName(e.status)},
                {"latest_ack_timestamp", 0}, {"checkpointed_size", 0}, {"state_size", 0},
                {"end_to_end_duration", 0}, {"alignment_buffered", 0}, {"processed_data", 0},
                {"persisted_data", 0}, {"num_subtasks", v.parallelism},
                {"num_acknowledged_subtasks", subs.size()}};
      int64_t ack = 0;
      uint64_t cs = 0, ss = 0, pd = 0, pe = 0;
      for (const auto& [i, sm] : subs) {
        ack = std::max(ack, sm.ack_timestamp());
        cs += sm.checkpointed_size();
        ss += sm.state_size();
        pd += sm.processed_data();
        pe += sm.persisted_data();
      }
      t["latest_ack_timestamp"] = ack;
      t["checkpointed_size"] = cs;
      t["state_size"] = ss;
      t["end_to_end_duration"] = subs.empty() ? 0 : ack - m.trigger_timestamp();
      t["processed_data"] = pd;
      t["persisted_data"] = pe;
      j["tasks"][v.id] = t;
    }
  }
  return j;
}

json TaskCounts(const std::string& status, uint32_t n) {
  json t = {{"CREATED", 0},   {"SCHEDULED", 0}, {"DEPLOYING", 0},    {"RUNNING", 0},
            {"FINISHED", 0},  {"CANCELING", 0}, {"CANCELED", 0},     {"FAILED", 0},
            {"RECONCILING", 0}, {"INITIALIZING", 0}};
  const std::string key = TaskStatusOf(status);
  if (t.contains(key)) t[key] = n;
  return t;
}

// When the job entered each JobStatus (0: never): creation, (re)start, the last failure and the
// terminal state.
json Timestamps(const JobRunner& job, int64_t start_ms) {
  const JobTimeline tl = job.timeline();
  json t = json::object();
  for (const char* s : {"INITIALIZING", "CREATED", "RUNNING", "FAILING", "FAILED", "CANCELLING",
                        "CANCELED", "FINISHED", "RESTARTING", "SUSPENDED", "RECONCILING"}) {
    t[s] = 0;
  }
  t["INITIALIZING"] = start_ms;
  t["CREATED"] = start_ms;
  t["RUNNING"] = tl.attempt_start_ms;
  if (!tl.failures.empty()) t["RESTARTING"] = tl.failures.back().timestamp_ms;
  const std::string s = job.status_name();
  if (tl.end_ms != 0 && t.contains(s)) t[s] = tl.end_ms;
  return t;
}

uint32_t TotalTasks(const std::vector<Vertex>& vs) {
  uint32_t n = 0;
  for (const Vertex& v : vs) n += v.parallelism;
  return n;
}

}  // namespace

std::vector<Vertex> Vertices(const pb::JobGraph& graph) {
  std::map<uint32_t, Vertex> by_chain;
  std::map<uint32_t, std::vector<std::pair<uint32_t, const pb::OperatorInfo*>>> ops;
  for (const pb::OperatorInfo& op : graph.operators()) {
    ops[op.chain_index()].push_back({op.position_in_chain(), &op});
  }
  std::vector<Vertex> out;
  for (auto& [chain, list] : ops) {
    std::sort(list.begin(), list.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    Vertex v;
    for (const auto& [pos, op] : list) {
      base::Result<format::OperatorId> id = format::OperatorId::FromBytes(op->operator_id());
      if (!id.ok()) continue;
      if (v.operators.empty()) {
        v.id = id->ToHex();
        v.parallelism = op->parallelism();
        v.max_parallelism = op->max_parallelism();
      } else {
        v.name += " -> ";
      }
      v.name += op->name();
      v.operators.push_back(*id);
    }
    if (!v.operators.empty()) out.push_back(std::move(v));
  }
  return out;
}

std::optional<Vertex> FindVertex(const JobRunner& job, const std::string& id) {
  for (Vertex& v : Vertices(job.job_graph())) {
    if (v.id == id) return std::move(v);
  }
  return std::nullopt;
}

JobTimes TimesOf(const JobRunner& job, int64_t fallback_start_ms, int64_t now_ms) {
  const JobTimeline t = job.timeline();
  JobTimes out;
  out.start_ms = t.created_ms != 0 ? t.created_ms : fallback_start_ms;
  out.end_ms = t.end_ms != 0 ? t.end_ms : -1;
  out.duration_ms = (t.end_ms != 0 ? t.end_ms : now_ms) - out.start_ms;
  return out;
}

json IoMetricsJson() {
  return {{"read-bytes", 0},     {"read-bytes-complete", false},
          {"write-bytes", 0},    {"write-bytes-complete", false},
          {"read-records", 0},   {"read-records-complete", false},
          {"write-records", 0},  {"write-records-complete", false},
          {"accumulated-backpressured-time", 0},
          {"accumulated-idle-time", 0},
          {"accumulated-busy-time", 0}};
}

json IoMetricsJson(const std::vector<const SubtaskTaskMetrics*>& subtasks, size_t expected) {
  if (subtasks.empty()) return IoMetricsJson();
  uint64_t read_bytes = 0, write_bytes = 0, read_records = 0, write_records = 0;
  int64_t backpressured = 0, idle = 0, busy = 0;
  for (const SubtaskTaskMetrics* m : subtasks) {
    read_bytes += m->bytes_in;
    write_bytes += m->bytes_out;
    read_records += m->records_in;
    write_records += m->records_out;
    backpressured = std::max(backpressured, m->backpressured_ms);
    idle = std::max(idle, m->idle_ms);
    busy = std::max(busy, m->busy_ms);
  }
  const bool complete = subtasks.size() >= expected;
  return {{"read-bytes", read_bytes},       {"read-bytes-complete", complete},
          {"write-bytes", write_bytes},     {"write-bytes-complete", complete},
          {"read-records", read_records},   {"read-records-complete", complete},
          {"write-records", write_records}, {"write-records-complete", complete},
          {"accumulated-backpressured-time", backpressured},
          {"accumulated-idle-time", idle},
          {"accumulated-busy-time", busy}};
}

std::vector<const SubtaskTaskMetrics*> SubtasksOf(const TaskMetricsSnapshot& m, const Vertex& v) {
  std::vector<const SubtaskTaskMetrics*> out;
  for (const SubtaskTaskMetrics& s : m.subtasks) {
    if (s.vertex_id == v.id) out.push_back(&s);
  }
  std::sort(out.begin(), out.end(), [](const SubtaskTaskMetrics* a, const SubtaskTaskMetrics* b) {
    return a->subtask < b->subtask;
  });
  return out;
}

std::string MetricValueText(double value) {
  // Watermarks are longs: Long.MIN_VALUE ("no watermark") and Long.MAX_VALUE (end of input)
  // do not survive a round trip through a double's integer conversion.
  if (value <= -9.2e18) return "-9223372036854775808";
  if (value >= 9.2e18) return "9223372036854775807";
  if (std::isnan(value)) return "NaN";
  if (value == std::floor(value)) return std::to_string(static_cast<int64_t>(value));
  char text[64];
  std::snprintf(text, sizeof(text), "%.3f", value);
  return text;
}

std::string TaskStatusOf(const std::string& s) {
  if (s == "CANCELLING") return "CANCELING";
  if (s == "RESTARTING") return "SCHEDULED";
  return s;
}

json ErrorBody(const std::string& message) { return {{"errors", json::array({message})}}; }

json ConfigJson() {
  return {{"refresh-interval", 3000},
          {"timezone-name", "Coordinated Universal Time"},
          {"timezone-offset", 0},
          {"flink-version", std::string("ckpt-engine ") + kVersion},
          {"flink-revision", "ckpt-engine"},
          {"features",
           {{"web-submit", false}, {"web-cancel", true}, {"web-rescale", false},
            {"web-history", false}}}};
}

json OverviewJson(const JobRunner& job) {
  const std::string s = job.status_name();
  const uint32_t slots = TotalTasks(Vertices(job.job_graph()));
  return {{"taskmanagers", 1},
          {"slots-total", slots},
          {"slots-available", 0},
          {"jobs-running", s == "RUNNING" || s == "RESTARTING" || s == "CANCELLING" ? 1 : 0},
          {"jobs-finished", s == "FINISHED" ? 1 : 0},
          {"jobs-cancelled", s == "CANCELED" ? 1 : 0},
          {"jobs-failed", s == "FAILED" ? 1 : 0},
          {"flink-version", std::string("ckpt-engine ") + kVersion},
          {"flink-commit", "ckpt-engine"}};
}

json JobsJson(const JobRunner& job) {
  return {{"jobs", json::array({{{"id", job.job_id_hex()}, {"status", job.status_name()}}})}};
}

json JobsOverviewJson(const JobRunner& job, int64_t endpoint_start_ms, int64_t now_ms) {
  const std::vector<Vertex> vs = Vertices(job.job_graph());
  const JobTimes times = TimesOf(job, endpoint_start_ms, now_ms);
  const std::string s = job.status_name();
  json t = TaskCounts(s, TotalTasks(vs));
  json lower = json::object();
  for (auto& [k, v] : t.items()) {
    std::string key = k;
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    lower[key] = v;
  }
  lower["total"] = TotalTasks(vs);
  return {{"jobs", json::array({{{"jid", job.job_id_hex()},
                                  {"name", job.job_name()},
                                  {"start-time", times.start_ms},
                                  {"end-time", times.end_ms},
                                  {"duration", times.duration_ms},
                                  {"state", s},
                                  {"last-modification",
                                   times.end_ms > 0 ? times.end_ms : times.start_ms},
                                  {"tasks", lower},
                                  // Flink 2.x fields.
                                  {"jobType", "STREAMING"},
                                  {"pending-operators", 0},
                                  {"schedulerType", "Default"}}})}};
}

json JobDetailsJson(const JobRunner& job, int64_t endpoint_start_ms, int64_t now_ms) {
  const std::string s = job.status_name();
  const JobTimes times = TimesOf(job, endpoint_start_ms, now_ms);
  const std::vector<Vertex> vs = Vertices(job.job_graph());
  const TaskMetricsSnapshot metrics = job.task_metrics();
  json vertices = json::array();
  for (const Vertex& v : vs) {
    vertices.push_back({{"id", v.id},
                        {"name", v.name},
                        {"maxParallelism", v.max_parallelism},
                        {"parallelism", v.parallelism},
                        {"status", s},
                        {"start-time", times.start_ms},
                        {"end-time", times.end_ms},
                        {"duration", times.duration_ms},
                        {"tasks", TaskCounts(s, v.parallelism)},
                        {"slotSharingGroupId", job.job_id_hex()},
                        {"metrics", IoMetricsJson(SubtasksOf(metrics, v), v.parallelism)}});
  }
  return {{"jid", job.job_id_hex()},
          {"name", job.job_name()},
          {"isStoppable", false},
          {"state", s},
          {"job-type", "STREAMING"},
          // Flink 2.x fields.
          {"application-id", nullptr},
          {"pending-operators", 0},
          {"schedulerType", "Default"},
          {"start-time", times.start_ms},
          {"end-time", times.end_ms},
          {"duration", times.duration_ms},
          {"maxParallelism", -1},
          {"now", now_ms},
          {"timestamps", Timestamps(job, times.start_ms)},
          {"vertices", vertices},
          {"status-counts", TaskCounts(s, static_cast<uint32_t>(vs.size()))},
          {"plan", PlanJson(job)["plan"]}};
}

json PlanJson(const JobRunner& job) {
  const pb::JobGraph& g = job.job_graph();
  const std::vector<Vertex> vs = Vertices(g);
  std::map<std::string, std::string> vertex_of;  // operator id bytes -> vertex id
  for (const pb::OperatorInfo& op : g.operators()) {
    base::Result<format::OperatorId> id = format::OperatorId::FromBytes(op.operator_id());
    if (!id.ok()) continue;
    for (const Vertex& v : vs) {
      if (std::find(v.operators.begin(), v.operators.end(), *id) != v.operators.end()) {
        vertex_of[op.operator_id()] = v.id;
      }
    }
  }
  json nodes = json::array();
  for (const Vertex& v : vs) {
    json inputs = json::array();
    int num = 0;
    for (const pb::EdgeInfo& e : g.edges()) {
      const std::string& from = vertex_of[e.source_operator_id()];
      const std::string& to = vertex_of[e.target_operator_id()];
      if (to != v.id || from == v.id) continue;
      inputs.push_back({{"num", num++},
                        {"id", from},
                        {"ship_strategy", pb::Partitioning_Name(e.partitioning())},
                        {"exchange", "pipelined_bounded"}});
    }
    json node = {{"id", v.id},
                 {"parallelism", v.parallelism},
                 {"operator", ""},
                 {"operator_strategy", ""},
                 {"description", v.name},
                 {"optimizer_properties", json::object()}};
    if (!inputs.empty()) node["inputs"] = inputs;
    nodes.push_back(node);
  }
  return {{"plan",
           {{"jid", job.job_id_hex()}, {"name", job.job_name()}, {"type", "STREAMING"},
            {"nodes", nodes}}}};
}

json CheckpointingStatisticsJson(const JobRunner& job, const CheckpointStatsSnapshot& st) {
  json counts = {{"restored", st.restored},
                 {"total", st.total},
                 {"in_progress", st.in_progress},
                 {"completed", st.completed},
                 {"failed", st.failed}};
  auto values = [&](auto get) {
    std::vector<double> v;
    for (const pb::CheckpointMetrics& m : st.completed_metrics) v.push_back(static_cast<double>(get(m)));
    return StatsSummary(std::move(v));
  };
  json summary = {
      {"checkpointed_size", values([](const auto& m) { return m.checkpointed_size(); })},
      {"state_size", values([](const auto& m) { return m.state_size(); })},
      {"end_to_end_duration", values([](const auto& m) { return m.end_to_end_duration(); })},
      {"alignment_buffered", StatsSummary({})},
      {"processed_data", values([](const auto& m) { return m.processed_data(); })},
      {"persisted_data", values([](const auto& m) { return m.persisted_data(); })}};
  json latest = {{"completed", nullptr}, {"savepoint", nullptr}, {"failed", nullptr},
                 {"restored", nullptr}};
  if (st.latest_completed) latest["completed"] = CheckpointJson(job, *st.latest_completed, false);
  if (st.latest_savepoint) latest["savepoint"] = CheckpointJson(job, *st.latest_savepoint, false);
  if (st.latest_failed) latest["failed"] = CheckpointJson(job, *st.latest_failed, false);
  if (st.latest_restored) {
    latest["restored"] = {{"id", st.latest_restored->checkpoint_id},
                          {"restore_timestamp", st.latest_restored->restore_timestamp_ms},
                          {"is_savepoint", st.latest_restored->savepoint},
                          {"external_path", st.latest_restored->external_path}};
  }
  json history = json::array();
  for (const CheckpointStatsEntry& e : st.history) history.push_back(CheckpointJson(job, e, false));
  return {{"counts", counts}, {"summary", summary}, {"latest", latest}, {"history", history}};
}

json CheckpointConfigJson(const JobRunner& job) {
  const CheckpointCoordinatorOptions& o = job.checkpoint_options();
  const bool externalized = o.retention != pb::NO_EXTERNALIZED;
  return {{"mode", o.mode == pb::AT_LEAST_ONCE ? "at_least_once" : "exactly_once"},
          {"interval", o.interval_ms == 0 ? INT64_MAX : o.interval_ms},
          {"timeout", o.timeout_ms},
          {"min_pause", o.min_pause_ms},
          {"max_concurrent", o.max_concurrent},
          {"externalization",
           {{"enabled", externalized},
            {"delete_on_cancellation", o.retention != pb::RETAIN_ON_CANCELLATION}}},
          {"state_backend", job.state_backend_name() == "rocksdb" ? "EmbeddedRocksDBStateBackend"
                                                                  : "HashMapStateBackend"},
          {"checkpoint_storage", o.checkpoint_dir.empty() ? "JobManagerCheckpointStorage"
                                                          : "FileSystemCheckpointStorage"},
          {"unaligned_checkpoints", o.mode == pb::UNALIGNED},
          {"tolerable_failed_checkpoints", o.tolerable_failures},
          {"aligned_checkpoint_timeout", 0},
          {"checkpoints_after_tasks_finish", true},
          {"state_changelog_enabled", job.changelog_enabled()},
          {"changelog_periodic_materialization_interval", 0},
          {"changelog_storage", "memory"}};
}

json CheckpointDetailsJson(const JobRunner& job, const CheckpointStatsEntry& entry) {
  return CheckpointJson(job, entry, true);
}

std::optional<json> SubtaskDetailsJson(const JobRunner& job, const CheckpointStatsEntry& e,
                                       const std::string& vertex_id) {
  for (const Vertex& v : Vertices(job.job_graph())) {
    if (v.id != vertex_id) continue;
    json j = CheckpointJson(job, e, true)["tasks"][v.id];
    const std::map<uint32_t, pb::SubtaskMetrics> subs = VertexSubtasks(v, e);
    using M = pb::SubtaskMetrics;
    j["summary"] = {
        {"checkpointed_size", MinMaxAvg(subs, [](const M& m) { return m.checkpointed_size(); })},
        {"state_size", MinMaxAvg(subs, [](const M& m) { return m.state_size(); })},
        {"end_to_end_duration",
         MinMaxAvg(subs, [](const M& m) { return m.end_to_end_duration(); })},
        {"checkpoint_duration",
         {{"sync", MinMaxAvg(subs, [](const M& m) { return m.sync_duration(); })},
          {"async", MinMaxAvg(subs, [](const M& m) { return m.async_duration(); })}}},
        {"alignment",
         {{"buffered", MinMaxAvg(subs, [](const M&) { return 0; })},
          {"processed", MinMaxAvg(subs, [](const M& m) { return m.processed_data(); })},
          {"persisted", MinMaxAvg(subs, [](const M& m) { return m.persisted_data(); })},
          {"duration", MinMaxAvg(subs, [](const M& m) { return m.alignment_duration(); })}}},
        {"start_delay", MinMaxAvg(subs, [](const M& m) { return m.start_delay(); })}};
    json list = json::array();
    for (uint32_t i = 0; i < v.parallelism; ++i) {
      auto it = subs.find(i);
      if (it == subs.end()) {
        list.push_back(
            {{"className", "pending_or_failed"}, {"index", i}, {"status", "pending_or_failed"}});
        continue;
      }
      const M& m = it->second;
      list.push_back({{"className", "completed"},
                      {"index", i},
                      {"status", "completed"},
                      {"ack_timestamp", m.ack_timestamp()},
                      {"end_to_end_duration", m.end_to_end_duration()},
                      {"checkpointed_size", m.checkpointed_size()},
                      {"state_size", m.state_size()},
                      {"checkpoint", {{"sync", m.sync_duration()}, {"async", m.async_duration()}}},
                      {"alignment",
                       {{"buffered", 0},
                        {"processed", m.processed_data()},
                        {"persisted", m.persisted_data()},
                        {"duration", m.alignment_duration()}}},
                      {"start_delay", m.start_delay()},
                      {"unaligned_checkpoint", m.unaligned_checkpoint()},
                      {"aborted", false}});
    }
    j["subtasks"] = list;
    return j;
  }
  return std::nullopt;
}

}  // namespace ckpt::engine::rest
