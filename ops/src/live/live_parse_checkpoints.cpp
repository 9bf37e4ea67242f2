// Parsers of the checkpoint statistics answers: /jobs/:jobid/checkpoints (counts, summary,
// latest, history), .../details/:id (per vertex) and .../details/:id/subtasks/:vertexid.
#include <limits>

#include "ckpt/ops/live.h"
#include "live/live_json.h"

namespace ckpt::ops {

namespace ljson = live_json;

namespace {

std::string LiveElementPath(const char* array, size_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

base::Result<LiveCheckpoint> LiveReadCheckpoint(const ljson::Reader& r, const ljson::Json& o,
                                                const std::string& path) {
  LiveCheckpoint c;
  CKPT_ASSIGN_OR_RETURN(c.id, r.Int(o, "id", path, ljson::kRequired));
  CKPT_ASSIGN_OR_RETURN(c.status, r.String(o, "status", path, ljson::kRequired));
  CKPT_ASSIGN_OR_RETURN(c.is_savepoint, r.Bool(o, "is_savepoint", path));
  CKPT_ASSIGN_OR_RETURN(c.type, r.String(o, "checkpoint_type", path));
  CKPT_ASSIGN_OR_RETURN(c.trigger_ms, r.Int(o, "trigger_timestamp", path));
  CKPT_ASSIGN_OR_RETURN(c.latest_ack_ms, r.Int(o, "latest_ack_timestamp", path));
  CKPT_ASSIGN_OR_RETURN(c.duration_ms, r.Int(o, "end_to_end_duration", path));
  CKPT_ASSIGN_OR_RETURN(c.checkpointed_bytes, r.Int(o, "checkpointed_size", path));
  CKPT_ASSIGN_OR_RETURN(c.state_bytes, r.Int(o, "state_size", path));
  CKPT_ASSIGN_OR_RETURN(c.processed_bytes, r.Int(o, "processed_data", path));
  CKPT_ASSIGN_OR_RETURN(c.persisted_bytes, r.Int(o, "persisted_data", path));
  CKPT_ASSIGN_OR_RETURN(int64_t subtasks, r.Int(o, "num_subtasks", path));
  CKPT_ASSIGN_OR_RETURN(c.subtasks, ljson::NarrowToInt(r, subtasks, path + ".num_subtasks"));
  CKPT_ASSIGN_OR_RETURN(int64_t acked, r.Int(o, "num_acknowledged_subtasks", path));
  CKPT_ASSIGN_OR_RETURN(c.acknowledged,
                        ljson::NarrowToInt(r, acked, path + ".num_acknowledged_subtasks"));
  CKPT_ASSIGN_OR_RETURN(c.external_path, r.String(o, "external_path", path));
  CKPT_ASSIGN_OR_RETURN(c.discarded, r.Bool(o, "discarded", path));
  CKPT_ASSIGN_OR_RETURN(c.failure_message, r.String(o, "failure_message", path));
  return c;
}

base::Result<std::optional<LiveCheckpoint>> LiveReadLatest(const ljson::Reader& r,
                                                           const ljson::Json& latest,
                                                           const char* key) {
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* o, r.Object(latest, key, "latest"));
  if (o == nullptr) return std::optional<LiveCheckpoint>();
  CKPT_ASSIGN_OR_RETURN(LiveCheckpoint c,
                        LiveReadCheckpoint(r, *o, ljson::Reader::Sub("latest", key)));
  return std::optional<LiveCheckpoint>(std::move(c));
}

// A summary statistic: a number, or NaN for Jackson's "NaN" (too few samples) and an absent one.
base::Result<double> LiveSummaryValue(const ljson::Reader& r, const ljson::Json& s, const char* key,
                                      const std::string& path) {
  const auto it = s.find(key);
  if (it == s.end() || it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string& text = it->get_ref<const std::string&>();
    if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
      return std::numeric_limits<double>::quiet_NaN();
    }
  }
  return r.Error(ljson::Reader::Sub(path, key), std::string("is a ") + it->type_name() + " (" +
                                             it->dump().substr(0, 40) + "), not a number");
}

}  // namespace

const std::vector<std::string>& LiveSummaryMetrics() {
  static const std::vector<std::string> metrics = {"checkpointed_size", "state_size",
                                                   "end_to_end_duration", "processed_data",
                                                   "persisted_data", "alignment_buffered"};
  return metrics;
}

base::Result<LiveCheckpoints> ParseCheckpointingStatistics(std::string_view json,
                                                           std::string_view where) {
  const ljson::Reader r(where, "GET /jobs/:jobid/checkpoints");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  LiveCheckpoints c;
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* counts, r.Object(doc, "counts", "", ljson::kRequired));
  CKPT_ASSIGN_OR_RETURN(c.counts.restored, r.Int(*counts, "restored", "counts"));
  CKPT_ASSIGN_OR_RETURN(c.counts.total, r.Int(*counts, "total", "counts"));
  CKPT_ASSIGN_OR_RETURN(c.counts.in_progress, r.Int(*counts, "in_progress", "counts"));
  CKPT_ASSIGN_OR_RETURN(c.counts.completed, r.Int(*counts, "completed", "counts"));
  CKPT_ASSIGN_OR_RETURN(c.counts.failed, r.Int(*counts, "failed", "counts"));

  CKPT_ASSIGN_OR_RETURN(const ljson::Json* summary, r.Object(doc, "summary", ""));
  if (summary != nullptr) {
    static const char* const kStats[] = {"min", "max", "avg", "p50", "p90", "p95", "p99", "p999"};
    for (const std::string& metric : LiveSummaryMetrics()) {
      const std::string path = "summary." + metric;
      CKPT_ASSIGN_OR_RETURN(const ljson::Json* s, r.Object(*summary, metric.c_str(), "summary"));
      if (s == nullptr) continue;
      LiveSummaryRow row;
      row.metric = metric;
      for (int i = 0; i < 8; ++i) {
        CKPT_ASSIGN_OR_RETURN(row.values[i], LiveSummaryValue(r, *s, kStats[i], path));
      }
      c.summary.push_back(std::move(row));
    }
  }

  CKPT_ASSIGN_OR_RETURN(const ljson::Json* latest, r.Object(doc, "latest", ""));
  if (latest != nullptr) {
    CKPT_ASSIGN_OR_RETURN(c.latest_completed, LiveReadLatest(r, *latest, "completed"));
    CKPT_ASSIGN_OR_RETURN(c.latest_savepoint, LiveReadLatest(r, *latest, "savepoint"));
    CKPT_ASSIGN_OR_RETURN(c.latest_failed, LiveReadLatest(r, *latest, "failed"));
    CKPT_ASSIGN_OR_RETURN(const ljson::Json* restored, r.Object(*latest, "restored", "latest"));
    if (restored != nullptr) {
      CKPT_ASSIGN_OR_RETURN(c.restored_id,
                            r.Int(*restored, "id", "latest.restored", ljson::kRequired));
      CKPT_ASSIGN_OR_RETURN(c.restored_path,
                            r.String(*restored, "external_path", "latest.restored"));
    }
  }

  CKPT_ASSIGN_OR_RETURN(const ljson::Json* history, r.Array(doc, "history", ""));
  if (history != nullptr) {
    c.history.reserve(history->size());
    for (size_t i = 0; i < history->size(); ++i) {
      const std::string path = LiveElementPath("history", i);
      if (!(*history)[i].is_object()) return r.NotAnObject(path, (*history)[i]);
      CKPT_ASSIGN_OR_RETURN(LiveCheckpoint e, LiveReadCheckpoint(r, (*history)[i], path));
      c.history.push_back(std::move(e));
    }
  }
  return c;
}

base::Result<std::vector<LiveTaskStats>> ParseCheckpointDetails(std::string_view json,
                                                                std::string_view where) {
  const ljson::Reader r(where, "GET /jobs/:jobid/checkpoints/details/:checkpointid");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* tasks, r.Object(doc, "tasks", "", ljson::kRequired));
  std::vector<LiveTaskStats> out;
  out.reserve(tasks->size());
  for (auto it = tasks->begin(); it != tasks->end(); ++it) {
    const std::string path = "tasks." + it.key();
    if (!it->is_object()) return r.NotAnObject(path, *it);
    const ljson::Json& t = *it;
    LiveTaskStats s;
    s.vertex_id = it.key();
    CKPT_ASSIGN_OR_RETURN(s.status, r.String(t, "status", path));
    CKPT_ASSIGN_OR_RETURN(int64_t subtasks, r.Int(t, "num_subtasks", path));
    CKPT_ASSIGN_OR_RETURN(s.subtasks, ljson::NarrowToInt(r, subtasks, path + ".num_subtasks"));
    CKPT_ASSIGN_OR_RETURN(int64_t acked, r.Int(t, "num_acknowledged_subtasks", path));
    CKPT_ASSIGN_OR_RETURN(s.acknowledged,
                          ljson::NarrowToInt(r, acked, path + ".num_acknowledged_subtasks"));
    CKPT_ASSIGN_OR_RETURN(s.duration_ms, r.Int(t, "end_to_end_duration", path));
    CKPT_ASSIGN_OR_RETURN(s.checkpointed_bytes, r.Int(t, "checkpointed_size", path));
    CKPT_ASSIGN_OR_RETURN(s.state_bytes, r.Int(t, "state_size", path));
    CKPT_ASSIGN_OR_RETURN(s.processed_bytes, r.Int(t, "processed_data", path));
    CKPT_ASSIGN_OR_RETURN(s.persisted_bytes, r.Int(t, "persisted_data", path));
    out.push_back(std::move(s));
  }
  return out;
}

base::Result<std::vector<LiveSubtaskStats>> ParseSubtaskDetails(std::string_view json,
                                                                std::string_view where) {
  const ljson::Reader r(where,
                        "GET /jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* subtasks,
                        r.Array(doc, "subtasks", "", ljson::kRequired));
  std::vector<LiveSubtaskStats> out;
  out.reserve(subtasks->size());
  for (size_t i = 0; i < subtasks->size(); ++i) {
    const std::string path = LiveElementPath("subtasks", i);
    const ljson::Json& j = (*subtasks)[i];
    if (!j.is_object()) return r.NotAnObject(path, j);
    LiveSubtaskStats s;
    CKPT_ASSIGN_OR_RETURN(int64_t index, r.Int(j, "index", path, ljson::kRequired));
    CKPT_ASSIGN_OR_RETURN(s.index, ljson::NarrowToInt(r, index, path + ".index"));
    CKPT_ASSIGN_OR_RETURN(s.status, r.String(j, "status", path));
    CKPT_ASSIGN_OR_RETURN(s.ack_ms, r.Int(j, "ack_timestamp", path));
    CKPT_ASSIGN_OR_RETURN(s.duration_ms, r.Int(j, "end_to_end_duration", path));
    CKPT_ASSIGN_OR_RETURN(s.state_bytes, r.Int(j, "state_size", path));
    CKPT_ASSIGN_OR_RETURN(s.checkpointed_bytes, r.Int(j, "checkpointed_size", path));
    CKPT_ASSIGN_OR_RETURN(const ljson::Json* cp, r.Object(j, "checkpoint", path));
    if (cp != nullptr) {
      const std::string cp_path = path + ".checkpoint";
      CKPT_ASSIGN_OR_RETURN(s.sync_ms, r.Int(*cp, "sync", cp_path));
      CKPT_ASSIGN_OR_RETURN(s.async_ms, r.Int(*cp, "async", cp_path));
    }
    CKPT_ASSIGN_OR_RETURN(const ljson::Json* al, r.Object(j, "alignment", path));
    if (al != nullptr) {
      const std::string al_path = path + ".alignment";
      CKPT_ASSIGN_OR_RETURN(s.alignment_ms, r.Int(*al, "duration", al_path));
      CKPT_ASSIGN_OR_RETURN(s.processed_bytes, r.Int(*al, "processed", al_path));
      CKPT_ASSIGN_OR_RETURN(s.persisted_bytes, r.Int(*al, "persisted", al_path));
    }
    CKPT_ASSIGN_OR_RETURN(s.start_delay_ms, r.Int(j, "start_delay", path));
    CKPT_ASSIGN_OR_RETURN(s.unaligned, r.Bool(j, "unaligned_checkpoint", path));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ckpt::ops
