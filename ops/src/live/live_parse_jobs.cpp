// Parsers of the job-level answers (jobs overview, job vertices, checkpoint configuration), of
// the asynchronous-operation answers (trigger, status) and of error bodies.
#include <algorithm>
#include <cstdio>

#include "ckpt/ops/live.h"
#include "live/live_json.h"

namespace ckpt::ops {

namespace ljson = live_json;

namespace {

std::string LiveIndexPath(const char* array, size_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

// Every leaf under `v` as (dotted path, text). `depth` is bounded by the parser's depth limit.
void LiveFlattenConfig(const std::string& prefix, const ljson::Json& v, LiveConfig* out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      LiveFlattenConfig(prefix.empty() ? it.key() : prefix + "." + it.key(), it.value(), out);
    }
    return;
  }
  std::string text;
  if (v.is_boolean()) {
    text = v.get<bool>() ? "true" : "false";
  } else if (v.is_number_integer() || v.is_number_unsigned()) {
    text = v.dump();
  } else if (v.is_number_float()) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v.get<double>());
    text = buf;
  } else if (v.is_string()) {
    text = v.get<std::string>();
  } else if (v.is_array()) {
    text = v.dump();
  } else {
    text = "\u2014";  // null: "—"
  }
  out->emplace_back(prefix, std::move(text));
}

// The message line of one Flink error entry: an internal error wraps the trace in
// "<Exception on server side:\n...", a handler's error is "pkg.SomeException: message\n\tat ...".
std::string LiveBriefError(const std::string& entry) {
  std::string line;
  size_t pos = 0;
  while (pos <= entry.size()) {
    size_t nl = entry.find('\n', pos);
    if (nl == std::string::npos) nl = entry.size();
    std::string candidate = entry.substr(pos, nl - pos);
    const size_t b = candidate.find_first_not_of(" \t\r");
    const size_t e = candidate.find_last_not_of(" \t\r");
    candidate = b == std::string::npos ? std::string() : candidate.substr(b, e - b + 1);
    pos = nl + 1;
    if (candidate.empty()) continue;
    line = candidate;
    if (line.rfind("<Exception on server side", 0) != 0) break;
  }
  // A leading Java class name: dotted lower-case package segments, a capitalised class name
  // ending in Exception or Error, then ": ".
  const size_t colon = line.find(": ");
  if (colon != std::string::npos) {
    const std::string head = line.substr(0, colon);
    const size_t dot = head.rfind('.');
    const bool no_space = head.find(' ') == std::string::npos;
    const std::string cls = dot == std::string::npos ? "" : head.substr(dot + 1);
    const auto ends_with = [&cls](const std::string& s) {
      return cls.size() > s.size() && cls.compare(cls.size() - s.size(), s.size(), s) == 0;
    };
    if (no_space && dot != std::string::npos && !cls.empty() && cls[0] >= 'A' && cls[0] <= 'Z' &&
        head[0] >= 'a' && head[0] <= 'z' && (ends_with("Exception") || ends_with("Error"))) {
      line = line.substr(colon + 2);
    }
  }
  return line;
}

}  // namespace

base::Result<std::vector<LiveJob>> ParseJobsOverview(std::string_view json,
                                                     std::string_view where) {
  const ljson::Reader r(where, "GET /jobs/overview");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* jobs, r.Array(doc, "jobs", "", ljson::kRequired));
  std::vector<LiveJob> out;
  out.reserve(jobs->size());
  for (size_t i = 0; i < jobs->size(); ++i) {
    const ljson::Json& j = (*jobs)[i];
    const std::string path = LiveIndexPath("jobs", i);
    if (!j.is_object()) return r.NotAnObject(path, j);
    LiveJob job;
    CKPT_ASSIGN_OR_RETURN(job.id, r.String(j, "jid", path, ljson::kRequired));
    CKPT_ASSIGN_OR_RETURN(job.name, r.String(j, "name", path, ljson::kRequired));
    CKPT_ASSIGN_OR_RETURN(job.state, r.String(j, "state", path, ljson::kRequired));
    CKPT_ASSIGN_OR_RETURN(job.start_time_ms, r.Int(j, "start-time", path));
    out.push_back(std::move(job));
  }
  return out;
}

base::Result<std::vector<LiveVertex>> ParseJobVertices(std::string_view json,
                                                       std::string_view where) {
  const ljson::Reader r(where, "GET /jobs/:jobid");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* vertices,
                        r.Array(doc, "vertices", "", ljson::kRequired));
  std::vector<LiveVertex> out;
  out.reserve(vertices->size());
  for (size_t i = 0; i < vertices->size(); ++i) {
    const ljson::Json& v = (*vertices)[i];
    const std::string path = LiveIndexPath("vertices", i);
    if (!v.is_object()) return r.NotAnObject(path, v);
    LiveVertex vertex;
    CKPT_ASSIGN_OR_RETURN(vertex.id, r.String(v, "id", path, ljson::kRequired));
    CKPT_ASSIGN_OR_RETURN(vertex.name, r.String(v, "name", path, ljson::kRequired));
    CKPT_ASSIGN_OR_RETURN(int64_t parallelism, r.Int(v, "parallelism", path));
    CKPT_ASSIGN_OR_RETURN(vertex.parallelism,
                          ljson::NarrowToInt(r, parallelism, path + ".parallelism"));
    out.push_back(std::move(vertex));
  }
  return out;
}

base::Result<LiveConfig> ParseCheckpointConfig(std::string_view json, std::string_view where) {
  const ljson::Reader r(where, "GET /jobs/:jobid/checkpoints/config");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  LiveConfig out;
  LiveFlattenConfig("", doc, &out);
  std::sort(out.begin(), out.end());
  return out;
}

base::Result<std::string> ParseTriggerId(std::string_view json, std::string_view where) {
  const ljson::Reader r(where, "POST (trigger)");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  return r.String(doc, "request-id", "", ljson::kRequired);
}

base::Result<LiveOperation> ParseOperationStatus(std::string_view json, std::string_view where) {
  const ljson::Reader r(where, "GET (operation status)");
  CKPT_ASSIGN_OR_RETURN(ljson::Json doc, r.ParseObject(json));
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* status, r.Object(doc, "status", "", ljson::kRequired));
  CKPT_ASSIGN_OR_RETURN(std::string id, r.String(*status, "id", "status", ljson::kRequired));
  LiveOperation op;
  op.completed = id == "COMPLETED";
  if (!op.completed) return op;
  CKPT_ASSIGN_OR_RETURN(const ljson::Json* operation, r.Object(doc, "operation", ""));
  if (operation == nullptr) return op;
  CKPT_ASSIGN_OR_RETURN(op.location, r.String(*operation, "location", "operation"));
  CKPT_ASSIGN_OR_RETURN(op.checkpoint_id, r.Int(*operation, "checkpointId", "operation"));
  const auto cause = operation->find("failure-cause");
  if (cause != operation->end() && !cause->is_null()) {
    const auto trace = cause->is_object() ? cause->find("stack-trace") : cause->end();
    op.failure = trace != cause->end() && trace->is_string() ? trace->get<std::string>()
                                                             : cause->dump();
  }
  return op;
}

std::string LiveErrorText(std::string_view body, bool brief) {
  const ljson::Json doc =
      ljson::LiveNestsTooDeep(body)
          ? ljson::Json(ljson::Json::value_t::discarded)
          : ljson::Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  std::string msg;
  if (!doc.is_discarded() && doc.is_object() && doc.contains("errors") &&
      doc.at("errors").is_array()) {
    for (const ljson::Json& e : doc.at("errors")) {
      std::string text = e.is_string() ? e.get<std::string>() : e.dump();
      if (brief) {
        text = LiveBriefError(text);
        if (text.empty()) continue;
      }
      if (!msg.empty()) msg += "; ";
      msg += text;
    }
  }
  if (msg.empty()) {
    // Not Flink's error shape (an HTML page from a proxy, plain text): an excerpt.
    constexpr size_t kExcerpt = 1000;
    msg = std::string(body.substr(0, kExcerpt));
    if (body.size() > kExcerpt) msg += "...";
  }
  return msg;
}

}  // namespace ckpt::ops
