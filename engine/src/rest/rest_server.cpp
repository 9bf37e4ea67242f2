// RestServer: routes, request validation and Flink's error bodies over cpp-httplib.
#include "ckpt/engine/rest/rest_server.h"

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>
#include <utility>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "rest/checkpoint_details_cache.h"
#include "rest/rest_dashboard.h"
#include "rest/rest_http.h"
#include "rest/rest_json.h"
#include "rest/rest_json_subtask.h"
#include "rest/rest_operations.h"
#include "rest/rest_process.h"
#include "rest/rest_prometheus.h"
#include "rest/rest_requests.h"
#include "rest/savepoint_disposal.h"

namespace ckpt::engine {

using nlohmann::json;

namespace {

// Every path answers with and without Flink's API version prefix.
std::string Route(const std::string& path) { return "(?:/v1)?" + path; }
const std::string kId = "([^/]+)";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Strings in a body may come from the request (paths, ids, messages quoting them) and need not
// be UTF-8: invalid bytes become U+FFFD instead of a json::type_error.
void Reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace),
                  "application/json; charset=UTF-8");
}

void Error(httplib::Response& res, int status, const std::string& message) {
  Reply(res, status, rest::ErrorBody(message));
}

int HttpStatusOf(const base::Status& st) {
  switch (st.code()) {
    case base::StatusCode::kInvalidArgument: return 400;
    case base::StatusCode::kNotFound: return 404;
    case base::StatusCode::kAlreadyExists: return 409;
    case base::StatusCode::kFailedPrecondition: return 409;
    default: return 500;
  }
}

}  // namespace

class RestServer::Impl {
 public:
  Impl(JobRunner& job, RestServerOptions options)
      : job_(job), options_(std::move(options)), start_ms_(NowMs()), server_(Limits(options_)) {
    fs_ = options_.fs != nullptr ? options_.fs : &base::Fs::Default();
  }

  static rest::HttpLimits Limits(const RestServerOptions& o) {
    rest::HttpLimits l;
    l.max_body_bytes = o.max_body_bytes;
    l.read_timeout_ms = o.read_timeout_s * 1000;
    l.write_timeout_ms = o.read_timeout_s * 1000;
    l.request_deadline_ms = o.request_deadline_s * 1000;
    l.idle_timeout_ms = o.idle_timeout_s * 1000;
    l.max_connections = o.max_connections;
    l.max_waiting = o.max_connections;
    return l;
  }

  base::Status Bind() {
    // The error and exception handlers run outside cpp-httplib's own try block: nothing may
    // escape them.
    server_.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
      try {
        ErrorBodyFor(req, res);
      } catch (...) {
        res.status = 500;
        res.set_content("{\"errors\":[\"Internal server error\"]}",
                        "application/json; charset=UTF-8");
      }
    });
    server_.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
          std::string what = "internal error";
          try {
            if (ep) std::rethrow_exception(ep);
          } catch (const std::exception& e) {
            what = e.what();
          } catch (...) {
          }
          try {
            Error(res, 500, "Internal server error: " + what);
          } catch (...) {
            res.status = 500;
          }
        });
    server_.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      // Flink's paths and ids are ASCII: bytes that are not even UTF-8 name nothing here.
      if (!rest::IsValidUtf8(req.path)) {
        Error(res, 400, "Bad request: the request path is not valid UTF-8");
        return httplib::Server::HandlerResponse::Handled;
      }
      // A compressed body would be inflated past every size limit before a handler sees it.
      const std::string encoding = req.get_header_value("Content-Encoding");
      if (!encoding.empty() && encoding != "identity") {
        rest::HttpServer::CloseAfterResponse();
        res.set_header("Connection", "close");
        Error(res, 415, "Unsupported Content-Encoding: send the request body uncompressed");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    Routes();
    if (!options_.web_ui_dir.empty()) {
      CKPT_RETURN_IF_ERROR(server_.MountWebUi(options_.web_ui_dir));
    }
    CKPT_ASSIGN_OR_RETURN(port_, server_.BindEndpoint("REST", options_.address, options_.port));
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    return base::Status::OK();
  }

  void Stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
    ops_.JoinAll();
  }

  std::string ServeBytes(std::string_view request) { return server_.ServeBytes(request); }

  int port_ = -1;
  std::string address() const { return options_.address; }
  rest::Operations ops_;

 private:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

  void Get(const std::string& path, Handler h) { Add("GET", path, std::move(h)); }
  void Post(const std::string& path, Handler h) { Add("POST", path, std::move(h)); }
  void ErrorBodyFor(const httplib::Request& req, httplib::Response& res) {
    if (rest::HttpServer::RequestTooLarge()) {
      res.set_header("Connection", "close");
      Error(res, 413, "Request to " + req.path + " is larger than " +
                          std::to_string(options_.max_body_bytes) + " bytes of body (or its "
                          "head is too long)");
      return;
    }
    if (!res.body.empty()) return;
    if (res.status == 404 && OtherMethodMatches(req)) {
      res.status = 405;
      Error(res, 405, "Method " + req.method + " is not allowed for " + req.path);
      return;
    }
    if (res.status == 404) {
      Error(res, 404, "Not found: " + req.path);
    } else if (res.status == 413) {
      res.set_header("Connection", "close");
      Error(res, 413, "Request body of " + req.path + " is larger than " +
                          std::to_string(options_.max_body_bytes) + " bytes");
    } else {
      Error(res, res.status, "Bad request (HTTP " + std::to_string(res.status) + ")");
    }
  }

  void Add(const std::string& method, const std::string& path, Handler handler) {
    // A chunked body is only bounded on the wire (with its framing): its decoded size is
    // checked here, as a Content-Length one is before it is read.
    Handler h = [this, handler = std::move(handler)](const httplib::Request& req,
                                                     httplib::Response& res) {
      if (req.body.size() > options_.max_body_bytes) {
        rest::HttpServer::CloseAfterResponse();
        res.set_header("Connection", "close");
        Error(res, 413, "Request body of " + req.path + " is larger than " +
                            std::to_string(options_.max_body_bytes) + " bytes");
        return;
      }
      handler(req, res);
    };
    const std::string pattern = Route(path);
    patterns_.emplace_back(method, std::regex(pattern));
    if (method == "GET") server_.Get(pattern, h);
    if (method == "POST") server_.Post(pattern, h);
    if (method == "PATCH") server_.Patch(pattern, h);
  }

  bool OtherMethodMatches(const httplib::Request& req) const {
    for (const auto& [method, re] : patterns_) {
      if (method != req.method && std::regex_match(req.path, re)) return true;
    }
    return false;
  }

  // The job id of the path is ours; otherwise answers 400 or 404 and returns false.
  bool CheckJob(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    if (!rest::IsJobIdHex(id)) {
      Error(res, 400, "Invalid JobID '" + id + "': expected 32 hexadecimal digits");
      return false;
    }
    if (id != job_.job_id_hex()) {
      Error(res, 404, "Job " + id + " not found");
      return false;
    }
    return true;
  }

  // A parsed request body; answers 400 with the parser's message otherwise.
  template <typename T>
  static std::optional<T> Parsed(base::Result<T> r, httplib::Response& res) {
    if (!r.ok()) {
      Error(res, 400, r.status().message());
      return std::nullopt;
    }
    return std::move(*r);
  }

  // The savepoint target: `requested` or the engine's default; answers 400 when there is none,
  // it is relative, or it cannot be created or written.
  // Nothing is created before the path is known to be acceptable (CheckSavepointTarget).
  std::optional<std::string> TargetDir(const std::string& requested, httplib::Response& res) {
    base::Result<std::string> local = rest::StripFileScheme(requested);
    if (!local.ok()) {
      Error(res, 400, local.status().message());
      return std::nullopt;
    }
    std::string given = std::move(*local);
    if (given.empty()) given = job_.checkpoint_options().savepoint_dir;
    if (given.empty()) {
      Error(res, 400, "No savepoint directory: give target-directory (the engine runs without "
                      "--savepoint-dir)");
      return std::nullopt;
    }
    base::Result<std::string> checked = rest::CheckSavepointTarget(given);
    if (!checked.ok()) {
      Error(res, 400, checked.status().message());
      return std::nullopt;
    }
    const std::string dir = *checked;
    base::Status st = fs_->CreateDirs(dir);
    if (st.ok()) {
      const std::string probe = base::JoinPath(dir, ".ckpt-write-probe-" + rest::NewTriggerId());
      base::Result<std::unique_ptr<base::WritableFile>> f = fs_->OpenWriteExclusive(probe);
      st = f.status();
      if (f.ok()) {
        (*f)->Close().IgnoreError();
        fs_->RemoveFile(probe).IgnoreError();
      }
    }
    if (!st.ok()) {
      Error(res, 400, "Savepoint target directory " + dir + " is not writable: " + st.ToString());
      return std::nullopt;
    }
    return dir;
  }

  void Accepted(httplib::Response& res, const base::Result<std::string>& trigger) {
    if (!trigger.ok()) {
      Error(res, HttpStatusOf(trigger.status()), trigger.status().message());
      return;
    }
    Reply(res, 202, {{"request-id", *trigger}});
  }

  void Status(const std::string& kind, const httplib::Request& req, httplib::Response& res,
              size_t id_match) {
    const std::string trigger = req.matches[id_match];
    if (!rest::IsTriggerId(trigger)) {
      Error(res, 400, "Invalid trigger id '" + trigger + "': expected 32 lowercase hexadecimal "
                      "digits");
      return;
    }
    std::optional<json> st = ops_.Status(kind, trigger);
    if (!st) {
      Error(res, 404, "There is no " + kind + " operation with trigger id " + trigger);
      return;
    }
    Reply(res, 200, *st);
  }

  // Entry of checkpoint `id` (the path's second match); answers 400/404 otherwise.
  std::optional<CheckpointStatsEntry> Checkpoint(const httplib::Request& req,
                                                 httplib::Response& res) {
    const std::string text = req.matches[2];
    base::Result<int64_t> parsed = rest::ParseCheckpointIdSegment(text);
    if (!parsed.ok()) {
      Error(res, 400, parsed.status().message());
      return std::nullopt;
    }
    const int64_t id = *parsed;
    std::optional<CheckpointStatsEntry> e = details_.Lookup(job_.checkpoint_stats(), id);
    if (!e) {
      Error(res, 404, "Could not find checkpointing statistics for checkpoint " + text +
                          " (it is not in the history of the last " +
                          std::to_string(CheckpointStatsTracker::kDefaultHistorySize) +
                          ", and its details were never requested)");
      return std::nullopt;
    }
    return e;
  }

  // Vertex `id` (the path's second match) of the job; answers 404 otherwise.
  std::optional<rest::Vertex> VertexOf(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[2];
    std::optional<rest::Vertex> v = rest::FindVertex(job_, id);
    if (!v) Error(res, 404, "Job " + job_.job_id_hex() + " has no vertex " + id);
    return v;
  }

  // A vertex path: checks the job and the vertex, then answers with `body(vertex)`.
  template <typename F>
  Handler VertexRoute(F body) {
    return [this, body](const httplib::Request& req, httplib::Response& res) {
      if (!CheckJob(req, res)) return;
      if (std::optional<rest::Vertex> v = VertexOf(req, res)) Reply(res, 200, body(*v, req));
    };
  }

  rest::Endpoint Ep() const { return {options_.address, port_, start_ms_}; }

  // GET /jobmanager/log and /jobmanager/stdout: the file the engine's stderr (`fd` 2) or stdout
  // (1) goes to, its last 4 MiB.
  void ServeOutputFile(int fd, httplib::Response& res) {
    const char* what = fd == 2 ? "standard error (where the engine logs)" : "standard output";
    std::optional<std::string> path = rest::RegularFileOfFd(fd);
    std::optional<std::string> text;
    if (path) text = rest::TailOfFile(*path, 4 << 20);
    if (!text) {
      Error(res, 404, std::string("The engine's ") + what + " is not a regular file (a terminal "
                      "or a pipe): redirect it to a file to read it here");
      return;
    }
    res.status = 200;
    res.set_content(*text, "text/plain; charset=UTF-8");
  }

  // Waits for checkpoint `id` to complete or fail (the trigger operation's result).
  base::Result<json> AwaitCheckpoint(int64_t id) {
    for (;;) {
      CheckpointStatsSnapshot stats = job_.checkpoint_stats();
      const CheckpointStatsEntry* e = stats.Find(id);
      if (e != nullptr && e->status == CheckpointStatsStatus::kCompleted) {
        return json{{"checkpointId", id}};
      }
      if (e != nullptr && e->status == CheckpointStatsStatus::kFailed) {
        return base::Status::Internal("checkpoint " + std::to_string(id) +
                                      " failed: " + e->failure_message);
      }
      const std::string s = job_.status_name();
      if (s == "FINISHED" || s == "CANCELED" || s == "FAILED") {
        return base::Status::Cancelled("checkpoint " + std::to_string(id) +
                                       ": the job ended (" + s + ")");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  void Routes();
  void DashboardRoutes(const std::string& vertex_path);
  void MetricsRoute() {
    Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.status = 200;
      res.set_content(rest::PrometheusText(job_, options_.address, NowMs()),
                      rest::kPrometheusContentType);
    });
  }

  JobRunner& job_;
  RestServerOptions options_;
  rest::CheckpointDetailsCache details_;
  base::Fs* fs_ = nullptr;
  const int64_t start_ms_;
  rest::HttpServer server_;
  std::thread thread_;
  std::vector<std::pair<std::string, std::regex>> patterns_;
};

// The task manager's metrics, logs and thread dump, the job manager's log files and thread dump
// and the flame graph: the rest of what Flink's dashboard reads (rest_dashboard.h).
void RestServer::Impl::DashboardRoutes(const std::string& vertex_path) {
  Get(vertex_path + "/flamegraph", VertexRoute([](const rest::Vertex&, const httplib::Request&) {
        return rest::FlameGraphDisabledJson();
      }));
  // Runs `serve` for the engine's task manager id, a 404 naming it for any other.
  auto tm = [this](auto serve) {
    return [this, serve](const httplib::Request& req, httplib::Response& res) {
      const std::string id = req.matches[1];
      if (id != rest::TaskManagerId()) {
        Error(res, 404, "Could not find TaskExecutor " + id + " (the engine process is " +
                            rest::TaskManagerId() + ")");
        return;
      }
      serve(req, res);
    };
  };
  // A file of a log list: `role`.log is standard error, `role`.out standard output.
  auto log_file = [this](const std::string& role, const std::string& name, httplib::Response& res) {
    std::optional<int> fd = rest::LogNameFd(role, name);
    if (!fd) {
      Error(res, 404, "No log file " + name + " (there are " + role + ".log and " + role +
                          ".out)");
      return;
    }
    ServeOutputFile(*fd, res);
  };
  const std::string tm_path = "/taskmanagers/" + kId;
  Get(tm_path + "/metrics", tm([](const httplib::Request& req, httplib::Response& res) {
        Reply(res, 200, rest::TaskManagerMetricsJson(req.get_param_value("get")));
      }));
  Get(tm_path + "/logs", tm([](const httplib::Request&, httplib::Response& res) {
        Reply(res, 200, rest::TaskManagerLogsJson());
      }));
  Get(tm_path + "/logs/([^/]+)", tm([log_file](const httplib::Request& req, httplib::Response& res) {
        log_file("taskmanager", req.matches[2], res);
      }));
  Get(tm_path + "/log", tm([this](const httplib::Request&, httplib::Response& res) {
        ServeOutputFile(2, res);
      }));
  Get(tm_path + "/stdout", tm([this](const httplib::Request&, httplib::Response& res) {
        ServeOutputFile(1, res);
      }));
  Get(tm_path + "/thread-dump", tm([](const httplib::Request&, httplib::Response& res) {
        Reply(res, 200, rest::ThreadDumpJson());
      }));
  Get("/jobmanager/logs/([^/]+)", [log_file](const httplib::Request& req, httplib::Response& res) {
    log_file("jobmanager", req.matches[1], res);
  });
  Get("/jobmanager/thread-dump", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::ThreadDumpJson());
  });
  Get("/applications/overview", [this](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::ApplicationsOverviewJson(rest::JobsOverviewJson(job_, start_ms_, NowMs())));
  });
}

void RestServer::Impl::Routes() {
  if (options_.metrics_only) return MetricsRoute();
  Get("/config", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::ConfigJson());
  });
  Get("/overview", [this](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::OverviewJson(job_));
  });
  Get("/jobs", [this](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::JobsJson(job_));
  });
  Get("/jobs/overview", [this](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::JobsOverviewJson(job_, start_ms_, NowMs()));
  });
  Get("/jobs/" + kId, [this](const httplib::Request& req, httplib::Response& res) {
    if (CheckJob(req, res)) Reply(res, 200, rest::JobDetailsJson(job_, start_ms_, NowMs()));
  });
  Add("PATCH", "/jobs/" + kId, [this](const httplib::Request& req, httplib::Response& res) {
    if (!CheckJob(req, res)) return;
    const std::string mode = req.has_param("mode") ? req.get_param_value("mode") : "cancel";
    if (mode != "cancel") {
      Error(res, 400, "Unsupported termination mode '" + mode + "' (only 'cancel'; stop with "
                      "POST /jobs/:jobid/stop)");
      return;
    }
    job_.Cancel();
    Reply(res, 202, json::object());
  });
  // Flink's dashboard cancels with GET (the path YARN's proxy let through).
  Get("/jobs/" + kId + "/yarn-cancel", [this](const httplib::Request& req, httplib::Response& res) {
    if (!CheckJob(req, res)) return;
    job_.Cancel();
    Reply(res, 202, json::object());
  });
  Get("/jobs/" + kId + "/config", [this](const httplib::Request& req, httplib::Response& res) {
    if (CheckJob(req, res)) Reply(res, 200, rest::JobConfigJson(job_));
  });
  Get("/jobs/" + kId + "/exceptions", [this](const httplib::Request& req, httplib::Response& res) {
    if (!CheckJob(req, res)) return;
    size_t max = 20;  // Flink's default maxExceptions
    if (req.has_param("maxExceptions")) {
      base::Result<int64_t> n =
          rest::ParseCheckpointIdSegment(req.get_param_value("maxExceptions"));
      if (!n.ok()) {
        Error(res, 400, "Invalid maxExceptions '" + req.get_param_value("maxExceptions") +
                            "': expected a non-negative number");
        return;
      }
      max = static_cast<size_t>(*n);
    }
    Reply(res, 200, rest::JobExceptionsJson(job_, max));
  });
  Get("/jobs/" + kId + "/accumulators",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (CheckJob(req, res)) Reply(res, 200, rest::JobAccumulatorsJson());
      });
  const std::string vertex_path = "/jobs/" + kId + "/vertices/" + kId;
  Get(vertex_path, VertexRoute([this](const rest::Vertex& v, const httplib::Request&) {
        return rest::VertexDetailsJson(job_, v, Ep(), NowMs());
      }));
  Get(vertex_path + "/taskmanagers",
      VertexRoute([this](const rest::Vertex& v, const httplib::Request&) {
        return rest::VertexTaskManagersJson(job_, v, Ep(), NowMs());
      }));
  Get(vertex_path + "/metrics",
      VertexRoute([this](const rest::Vertex& v, const httplib::Request& req) {
        return rest::VertexMetricsJson(job_, v, req.get_param_value("get"));
      }));
  Get(vertex_path + "/subtasks/metrics",
      VertexRoute([this](const rest::Vertex& v, const httplib::Request& req) {
        return rest::AggregatedSubtaskMetricsJson(job_, v, req.get_param_value("get"),
                                                  req.get_param_value("agg"));
      }));
  Get(vertex_path + "/watermarks",
      VertexRoute([this](const rest::Vertex& v, const httplib::Request&) {
        return rest::VertexWatermarksJson(job_, v);
      }));
  Get(vertex_path + "/backpressure",
      VertexRoute([this](const rest::Vertex& v, const httplib::Request&) {
        return rest::BackPressureJson(job_, v, NowMs());
      }));
  Get(vertex_path + "/accumulators",
      VertexRoute([](const rest::Vertex& v, const httplib::Request&) {
        return rest::VertexAccumulatorsJson(v);
      }));
  Get(vertex_path + "/subtasks/accumulators",
      VertexRoute([this](const rest::Vertex& v, const httplib::Request&) {
        return rest::SubtasksAccumulatorsJson(v, Ep(), job_.timeline().attempt);
      }));
  Get(vertex_path + "/subtasktimes",
      VertexRoute([this](const rest::Vertex& v, const httplib::Request&) {
        return rest::SubtasksTimesJson(job_, v, Ep(), NowMs());
      }));
  // A subtask's current attempt (also under its attempt number), as the vertex details list it.
  for (const std::string& subtask : {vertex_path + "/subtasks/([0-9]+)",
                                     vertex_path + "/subtasks/([0-9]+)/attempts/([0-9]+)"}) {
    Get(subtask, [this](const httplib::Request& req, httplib::Response& res) {
      if (!CheckJob(req, res)) return;
      std::optional<rest::Vertex> v = VertexOf(req, res);
      if (!v) return;
      const std::string index = req.matches[3];
      const bool any_attempt = req.matches.size() < 5;
      std::optional<json> s;
      if (index.size() <= 9) {
        s = rest::SubtaskAttemptJson(job_, *v, Ep(), NowMs(),
                                     static_cast<uint32_t>(std::stoul(index)));
      }
      if (s && !any_attempt && req.matches[4].str() != std::to_string(job_.timeline().attempt)) {
        s.reset();
      }
      if (!s) {
        Error(res, 404, "Vertex " + v->id + " has no subtask " + index +
                            (any_attempt ? "" : " attempt " + req.matches[4].str()));
        return;
      }
      Reply(res, 200, *s);
    });
  }
  Get("/taskmanagers", [this](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::TaskManagersJson(job_, Ep(), NowMs()));
  });
  Get("/taskmanagers/" + kId, [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    if (id != rest::TaskManagerId()) {
      Error(res, 404, "Could not find TaskExecutor " + id + " (the engine process is " +
                          rest::TaskManagerId() + ")");
      return;
    }
    Reply(res, 200, rest::TaskManagerDetailsJson(job_, Ep(), NowMs()));
  });
  DashboardRoutes(vertex_path);
  Get("/jobmanager/config", [this](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::JobManagerConfigJson(job_, Ep()));
  });
  // Flink 1.19+: the job manager's configuration and environment as one job saw them.
  Get("/jobs/" + kId + "/jobmanager/config",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (CheckJob(req, res)) Reply(res, 200, rest::JobManagerConfigJson(job_, Ep()));
      });
  Get("/jobs/" + kId + "/jobmanager/environment",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (CheckJob(req, res)) Reply(res, 200, rest::JobManagerEnvironmentJson());
      });
  Get("/jobmanager/environment", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::JobManagerEnvironmentJson());
  });
  Get("/jobmanager/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    Reply(res, 200, rest::JobManagerMetricsJson(job_, req.get_param_value("get")));
  });
  Get("/jobmanager/logs", [](const httplib::Request&, httplib::Response& res) {
    Reply(res, 200, rest::JobManagerLogsJson());
  });
  Get("/jobmanager/log", [this](const httplib::Request&, httplib::Response& res) {
    ServeOutputFile(2, res);
  });
  Get("/jobmanager/stdout", [this](const httplib::Request&, httplib::Response& res) {
    ServeOutputFile(1, res);
  });
  MetricsRoute();
  Get("/jobs/" + kId + "/plan", [this](const httplib::Request& req, httplib::Response& res) {
    if (CheckJob(req, res)) Reply(res, 200, rest::PlanJson(job_));
  });
  Get("/jobs/" + kId + "/checkpoints",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (!CheckJob(req, res)) return;
        const CheckpointStatsSnapshot stats = job_.checkpoint_stats();
        details_.Observe(stats);
        Reply(res, 200, rest::CheckpointingStatisticsJson(job_, stats));
      });
  Get("/jobs/" + kId + "/checkpoints/config",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (CheckJob(req, res)) Reply(res, 200, rest::CheckpointConfigJson(job_));
      });
  Get("/jobs/" + kId + "/checkpoints/details/([^/]+)",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (!CheckJob(req, res)) return;
        if (auto e = Checkpoint(req, res)) Reply(res, 200, rest::CheckpointDetailsJson(job_, *e));
      });
  Get("/jobs/" + kId + "/checkpoints/details/([^/]+)/subtasks/([^/]+)",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (!CheckJob(req, res)) return;
        std::optional<CheckpointStatsEntry> e = Checkpoint(req, res);
        if (!e) return;
        const std::string vertex = req.matches[3];
        std::optional<json> j = rest::SubtaskDetailsJson(job_, *e, vertex);
        if (!j) {
          Error(res, 404, "Job " + job_.job_id_hex() + " has no vertex " + vertex);
          return;
        }
        Reply(res, 200, *j);
      });
  Get("/jobs/" + kId + "/checkpoints/([^/]+)",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (CheckJob(req, res)) Status("checkpoint", req, res, 2);
      });
  Post("/jobs/" + kId + "/checkpoints",
       [this](const httplib::Request& req, httplib::Response& res) {
         if (!CheckJob(req, res)) return;
         std::optional<rest::CheckpointTriggerRequest> body =
             Parsed(rest::ParseCheckpointTriggerRequest(req.body), res);
         if (!body) return;
         const std::string& trigger = body->trigger_id;
         using Type = rest::CheckpointTriggerRequest::Type;
         if (body->type == Type::kIncremental && !job_.incremental_checkpoints()) {
           Error(res, 400, "An INCREMENTAL checkpoint needs the rocksdb backend with "
                           "--incremental true");
           return;
         }
         if (job_.job_dir().empty()) {
           Error(res, 409, "Checkpoint could not be triggered: the job runs without a "
                           "checkpoint directory (--checkpoint-dir)");
           return;
         }
         // As Flink queues a manual checkpoint behind those in flight: retried on the
         // operation's thread while max concurrent checkpoints are pending.
         const bool full = body->type == Type::kFull;
         Accepted(res, ops_.Start("checkpoint", trigger, [this, full]() -> base::Result<json> {
           for (;;) {
             base::Result<int64_t> id = job_.TriggerCheckpoint(full);
             if (id.ok()) return AwaitCheckpoint(*id);
             const std::string s = job_.status_name();
             if (id.status().code() != base::StatusCode::kFailedPrecondition ||
                 s == "FINISHED" || s == "CANCELED" || s == "FAILED") {
               return id.status().WithContext("checkpoint could not be triggered");
             }
             std::this_thread::sleep_for(std::chrono::milliseconds(10));
           }
         }));
       });
  Post("/jobs/" + kId + "/savepoints",
       [this](const httplib::Request& req, httplib::Response& res) {
         if (!CheckJob(req, res)) return;
         std::optional<rest::SavepointTriggerRequest> body =
             Parsed(rest::ParseSavepointTriggerRequest(req.body), res);
         if (!body) return;
         const std::string& trigger = body->trigger_id;
         const bool cancel = body->cancel_job;
         const pb::SavepointFormat format = body->format;
         std::optional<std::string> dir = TargetDir(body->target_directory, res);
         if (!dir) return;
         Accepted(res, ops_.Start("savepoint", trigger,
                                  [this, d = *dir, cancel, format]() -> base::Result<json> {
                                    base::Result<std::string> sp =
                                        cancel ? job_.StopWithSavepoint(false, d, format)
                                               : job_.TriggerSavepoint(d, format);
                                    if (!sp.ok()) return sp.status();
                                    return json{{"location", *sp}};
                                  }));
       });
  Get("/jobs/" + kId + "/savepoints/([^/]+)",
      [this](const httplib::Request& req, httplib::Response& res) {
        if (CheckJob(req, res)) Status("savepoint", req, res, 2);
      });
  Post("/jobs/" + kId + "/stop", [this](const httplib::Request& req, httplib::Response& res) {
    if (!CheckJob(req, res)) return;
    std::optional<rest::StopRequest> body = Parsed(rest::ParseStopRequest(req.body), res);
    if (!body) return;
    const std::string& trigger = body->trigger_id;
    const bool drain = body->drain;
    const pb::SavepointFormat format = body->format;
    std::optional<std::string> dir = TargetDir(body->target_directory, res);
    if (!dir) return;
    Accepted(res, ops_.Start("savepoint", trigger,
                             [this, d = *dir, drain, format]() -> base::Result<json> {
                               base::Result<std::string> sp = job_.StopWithSavepoint(drain, d, format);
                               if (!sp.ok()) return sp.status();
                               return json{{"location", *sp}};
                             }));
  });
  Post("/savepoint-disposal", [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<rest::DisposalRequest> body = Parsed(rest::ParseDisposalRequest(req.body), res);
    if (!body) return;
    const std::string& path = body->path;
    const std::string& trigger = body->trigger_id;
    base::Result<rest::DisposalPlan> plan = rest::PlanDisposal(*fs_, path);
    if (!plan.ok()) {
      Error(res, 400, "Cannot dispose " + path + ": not a readable savepoint (" +
                          plan.status().ToString() + ")");
      return;
    }
    const std::string job_dir = job_.job_dir();
    if (!job_dir.empty() && (plan->dir + "/").rfind(job_dir + "/", 0) == 0) {
      Error(res, 400, "Cannot dispose " + plan->dir + ": it is a checkpoint of the running job "
                      "(the engine deletes its own checkpoints when they are subsumed)");
      return;
    }
    Accepted(res, ops_.Start("disposal", trigger, [this, p = *plan]() -> base::Result<json> {
               CKPT_RETURN_IF_ERROR(rest::Dispose(*fs_, p));
               return json::object();
             }));
  });
  Get("/savepoint-disposal/([^/]+)", [this](const httplib::Request& req, httplib::Response& res) {
    Status("disposal", req, res, 1);
  });
}

base::Result<std::unique_ptr<RestServer>> RestServer::Start(JobRunner& job,
                                                            RestServerOptions options) {
  auto impl = std::make_unique<Impl>(job, std::move(options));
  CKPT_RETURN_IF_ERROR(impl->Bind());
  return std::unique_ptr<RestServer>(new RestServer(std::move(impl)));
}

RestServer::RestServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestServer::~RestServer() { Stop(); }
int RestServer::port() const { return impl_->port_; }
std::string RestServer::url() const {
  return "http://" + impl_->address() + ":" + std::to_string(impl_->port_);
}
bool RestServer::WaitForOperationsCollected(int64_t timeout_ms) {
  return impl_->ops_.WaitCollected(timeout_ms);
}
std::string RestServer::ServeBytes(std::string_view request) {
  return impl_->ServeBytes(request);
}
void RestServer::Stop() { impl_->Stop(); }

}  // namespace ckpt::engine
