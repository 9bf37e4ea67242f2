// LiveClient: the HTTP transport (cpp-httplib) under the live parsers. httplib's errors and HTTP
// error answers become Status here, in one place.
#include <chrono>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "ckpt/ops/live.h"

namespace ckpt::ops {

namespace {

base::Status LiveHttpError(int http_status, const std::string& what, const std::string& body,
                           bool brief) {
  const std::string msg = what + ": HTTP " + std::to_string(http_status) + ": " +
                          LiveErrorText(body, brief);
  switch (http_status) {
    case 400: return base::Status::InvalidArgument(msg);
    case 404: return base::Status::NotFound(msg);
    case 409: return base::Status::FailedPrecondition(msg);
    default: return base::Status::Internal(msg);
  }
}

std::string LiveJobPath(const std::string& job_id) { return "/jobs/" + job_id; }

}  // namespace

base::Result<std::unique_ptr<LiveClient>> LiveClient::Create(const std::string& address,
                                                             const LiveClientOptions& options) {
  std::string a = address;
  if (a.rfind("http://", 0) != 0) a = "http://" + a;
  const std::string rest = a.substr(7);
  const auto colon = rest.rfind(':');
  if (rest.empty() || colon == std::string::npos || colon + 1 >= rest.size() ||
      rest.find('/') != std::string::npos) {
    return base::Status::InvalidArgument("address '" + address +
                                         "' is not http://HOST:PORT (e.g. "
                                         "http://127.0.0.1:8081)");
  }
  return std::unique_ptr<LiveClient>(new LiveClient(a, options));
}

LiveClient::LiveClient(std::string address, const LiveClientOptions& options)
    : address_(std::move(address)), options_(options) {}
LiveClient::~LiveClient() = default;

base::Result<std::string> LiveClient::Send(const char* method, const std::string& path,
                                           const std::string& body) const {
  // A client per request: no state shared between threads, and no keep-alive to go stale
  // between the polls of a live view.
  httplib::Client client(address_);
  client.set_connection_timeout(options_.connect_timeout_s, 0);
  client.set_read_timeout(options_.read_timeout_s, 0);
  client.set_write_timeout(options_.read_timeout_s, 0);
  const std::string what = std::string(method) + " " + path;
  std::string answer;
  bool too_big = false;
  httplib::Result r{nullptr, httplib::Error::Unknown};
  if (std::string_view(method) == "GET") {
    r = client.Get(path, [&answer, &too_big](const char* data, size_t n) {
      if (answer.size() + n > kLiveMaxBodyBytes) {
        too_big = true;
        return false;
      }
      answer.append(data, n);
      return true;
    });
  } else if (std::string_view(method) == "POST") {
    r = client.Post(path, body, "application/json");
  } else {
    r = client.Patch(path, body, "application/json");
  }
  if (too_big) {
    return base::Status::Corruption(what + ": the answer is larger than the " +
                                    std::to_string(kLiveMaxBodyBytes >> 20) + " MiB limit");
  }
  if (!r) {
    return base::Status::IOError("cannot reach " + address_ + " (" + what +
                                 "): " + httplib::to_string(r.error()));
  }
  if (std::string_view(method) != "GET") answer = r->body;
  if (r->status >= 400) return LiveHttpError(r->status, what, answer, options_.brief_errors);
  return answer;
}

base::Result<std::vector<LiveJob>> LiveClient::JobsOverview() const {
  const std::string path = "/jobs/overview";
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("GET", path, ""));
  return ParseJobsOverview(body, "GET " + path);
}

base::Result<std::vector<LiveVertex>> LiveClient::JobVertices(const std::string& job_id) const {
  const std::string path = LiveJobPath(job_id);
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("GET", path, ""));
  return ParseJobVertices(body, "GET " + path);
}

base::Result<LiveCheckpoints> LiveClient::Checkpoints(const std::string& job_id) const {
  const std::string path = LiveJobPath(job_id) + "/checkpoints";
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("GET", path, ""));
  return ParseCheckpointingStatistics(body, "GET " + path);
}

base::Result<LiveConfig> LiveClient::CheckpointConfig(const std::string& job_id) const {
  const std::string path = LiveJobPath(job_id) + "/checkpoints/config";
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("GET", path, ""));
  return ParseCheckpointConfig(body, "GET " + path);
}

base::Result<std::vector<LiveTaskStats>> LiveClient::CheckpointDetails(
    const std::string& job_id, int64_t checkpoint_id) const {
  const std::string path =
      LiveJobPath(job_id) + "/checkpoints/details/" + std::to_string(checkpoint_id);
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("GET", path, ""));
  return ParseCheckpointDetails(body, "GET " + path);
}

base::Result<std::vector<LiveSubtaskStats>> LiveClient::SubtaskDetails(
    const std::string& job_id, int64_t checkpoint_id, const std::string& vertex_id) const {
  const std::string path = LiveJobPath(job_id) + "/checkpoints/details/" +
                           std::to_string(checkpoint_id) + "/subtasks/" + vertex_id;
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("GET", path, ""));
  return ParseSubtaskDetails(body, "GET " + path);
}

base::Result<std::string> LiveClient::TriggerCheckpoint(const std::string& job_id,
                                                        bool full) const {
  const std::string path = LiveJobPath(job_id) + "/checkpoints";
  const nlohmann::json request = {{"checkpointType", full ? "FULL" : "CONFIGURED"}};
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("POST", path, request.dump()));
  CKPT_ASSIGN_OR_RETURN(std::string id, ParseTriggerId(body, "POST " + path));
  return path + "/" + id;
}

base::Result<std::string> LiveClient::TriggerSavepoint(const std::string& job_id,
                                                       const LiveSavepointRequest& sp) const {
  const std::string path = LiveJobPath(job_id) + "/savepoints";
  nlohmann::json request = {{"cancel-job", false}, {"formatType", sp.format_type}};
  if (!sp.target_dir.empty()) request["target-directory"] = sp.target_dir;
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("POST", path, request.dump()));
  CKPT_ASSIGN_OR_RETURN(std::string id, ParseTriggerId(body, "POST " + path));
  return path + "/" + id;
}

base::Result<std::string> LiveClient::TriggerStop(const std::string& job_id,
                                                  const LiveSavepointRequest& sp) const {
  const std::string path = LiveJobPath(job_id) + "/stop";
  nlohmann::json request = {{"drain", sp.drain}, {"formatType", sp.format_type}};
  if (!sp.target_dir.empty()) request["targetDirectory"] = sp.target_dir;
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("POST", path, request.dump()));
  CKPT_ASSIGN_OR_RETURN(std::string id, ParseTriggerId(body, "POST " + path));
  // A stop's status is served with the savepoints'.
  return LiveJobPath(job_id) + "/savepoints/" + id;
}

base::Result<std::string> LiveClient::TriggerDisposal(const std::string& savepoint_path) const {
  const std::string path = "/savepoint-disposal";
  const nlohmann::json request = {{"savepoint-path", savepoint_path}};
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("POST", path, request.dump()));
  CKPT_ASSIGN_OR_RETURN(std::string id, ParseTriggerId(body, "POST " + path));
  return path + "/" + id;
}

base::Status LiveClient::CancelJob(const std::string& job_id) const {
  return Send("PATCH", LiveJobPath(job_id) + "?mode=cancel", "").status();
}

base::Result<LiveOperation> LiveClient::OperationStatus(const std::string& status_path) const {
  CKPT_ASSIGN_OR_RETURN(std::string body, Send("GET", status_path, ""));
  return ParseOperationStatus(body, "GET " + status_path);
}

base::Result<LiveOperation> LiveClient::AwaitOperation(const std::string& status_path,
                                                       int timeout_s) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    CKPT_ASSIGN_OR_RETURN(LiveOperation op, OperationStatus(status_path));
    if (op.completed) {
      if (op.failure) return base::Status::Internal(*op.failure);
      return op;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return base::Status::IOError("the operation did not complete within " +
                                   std::to_string(timeout_s) + " s (" + status_path + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(options_.poll_interval_ms));
  }
}

}  // namespace ckpt::ops
