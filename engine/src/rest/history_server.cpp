// HistoryServer: the archives of a directory served over the REST endpoint's HTTP layer.
#include "ckpt/engine/rest/history_server.h"

#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "ckpt/base/fs.h"
#include "ckpt/engine/rest/rest_archive.h"
#include "rest/history_answers.h"
#include "rest/history_archive_index.h"
#include "rest/rest_dashboard.h"
#include "rest/rest_http.h"
#include "rest/rest_json.h"
#include "rest/rest_requests.h"

namespace ckpt::engine {

using nlohmann::json;

namespace {

void HistoryReply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace),
                  "application/json; charset=UTF-8");
}

// Flink's HistoryServer dashboard configuration: nothing can be submitted, cancelled or
// rescaled; the dashboard shows completed jobs only.
json HistoryConfigJson(int64_t refresh_interval_ms) {
  json config = rest::ConfigJson();
  config["refresh-interval"] = refresh_interval_ms;
  config["features"]["web-submit"] = false;
  config["features"]["web-cancel"] = false;
  config["features"]["web-rescale"] = false;
  config["features"]["web-history"] = true;
  return config;
}

}  // namespace

class HistoryServer::Impl {
 public:
  explicit Impl(HistoryServerOptions options)
      : options_(std::move(options)), index_(options_.archive_dir, options_.max_archive_bytes),
        server_(rest::HttpLimits{}) {}

  base::Status Bind() {
    std::error_code ec;
    if (!std::filesystem::is_directory(options_.archive_dir, ec)) {
      return base::Status::InvalidArgument("--archive-dir " + options_.archive_dir +
                                           ": not a directory");
    }
    Refresh();
    server_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      try {
        if (!res.body.empty()) return;
        if (rest::HttpServer::RequestTooLarge()) {
          res.set_header("Connection", "close");
          HistoryReply(res, 413, rest::ErrorBody("Request to " + req.path + " is too large"));
        } else if (res.status == 404) {
          HistoryReply(res, 404, rest::ErrorBody("Not found: " + req.path));
        } else {
          HistoryReply(res, res.status, rest::ErrorBody("Bad request (HTTP " +
                                                        std::to_string(res.status) + ")"));
        }
      } catch (...) {
        res.status = 500;
        res.set_content("{\"errors\":[\"Internal server error\"]}",
                        "application/json; charset=UTF-8");
      }
    });
    server_.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!rest::IsValidUtf8(req.path)) {
        HistoryReply(res, 400,
                     rest::ErrorBody("Bad request: the request path is not valid UTF-8"));
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    server_.Get("(?:/v1)?/config", [this](const httplib::Request&, httplib::Response& res) {
      HistoryReply(res, 200, HistoryConfigJson(options_.refresh_interval_ms));
    });
    server_.Get("(?:/v1)?/jobs/overview", [this](const httplib::Request&, httplib::Response& res) {
      res.status = 200;
      res.set_content(index_.Current()->overview, "application/json; charset=UTF-8");
    });
    server_.Get("(?:/v1)?/overview", [this](const httplib::Request&, httplib::Response& res) {
      HistoryReply(res, 200, history::ClusterOverviewJson(JobsOverview()));
    });
    server_.Get("(?:/v1)?/applications/overview",
                [this](const httplib::Request&, httplib::Response& res) {
                  HistoryReply(res, 200, rest::ApplicationsOverviewJson(JobsOverview()));
                });
    // Metrics as archived (their values when the job's archive was written), filtered as the
    // live endpoint filters them.
    server_.Get("(?:/v1)?(/jobs/[^/]+/vertices/[^/]+(?:/subtasks)?/metrics)",
                [this](const httplib::Request& req, httplib::Response& res) {
                  std::shared_ptr<const history::ArchiveIndex::Snapshot> now = index_.Current();
                  auto it = now->answers.find(req.matches[1]);
                  if (it == now->answers.end()) {
                    HistoryReply(res, 404, rest::ErrorBody("Not found: " + req.path +
                                                           " (no archived job answers it)"));
                    return;
                  }
                  HistoryReply(res, 200,
                               history::FilteredMetricsJson(
                                   json::parse(it->second, nullptr, false),
                                   req.get_param_value("get"), req.get_param_value("agg")));
                });
    // Flink's historyserver.log.jobmanager.url-pattern and .taskmanager.url-pattern.
    server_.Get("(?:/v1)?/jobs/([^/]+)/jobmanager/log-url",
                [this](const httplib::Request& req, httplib::Response& res) {
                  LogUrl(options_.jobmanager_log_url_pattern, req.matches[1], "", req, res);
                });
    server_.Get("(?:/v1)?/jobs/([^/]+)/taskmanagers/([^/]+)/log-url",
                [this](const httplib::Request& req, httplib::Response& res) {
                  LogUrl(options_.taskmanager_log_url_pattern, req.matches[1], req.matches[2],
                         req, res);
                });
    server_.Get("(?:/v1)?(/jobs/.+)", [this](const httplib::Request& req, httplib::Response& res) {
      std::shared_ptr<const history::ArchiveIndex::Snapshot> now = index_.Current();
      std::string path = req.matches[1];
      while (path.size() > 1 && path.back() == '/') path.pop_back();
      auto it = now->answers.find(path);
      if (it == now->answers.end()) {
        HistoryReply(res, 404, rest::ErrorBody("Not found: " + req.path +
                                               " (no archived job answers it)"));
        return;
      }
      res.status = 200;
      res.set_content(it->second, "application/json; charset=UTF-8");
    });
    if (!options_.web_ui_dir.empty()) {
      CKPT_RETURN_IF_ERROR(server_.MountWebUi(options_.web_ui_dir));
    }
    CKPT_ASSIGN_OR_RETURN(port_,
                          server_.BindEndpoint("history server", options_.address, options_.port));
    serve_thread_ = std::thread([this] { server_.listen_after_bind(); });
    if (options_.refresh_interval_ms > 0) scan_thread_ = std::thread([this] { Scan(); });
    return base::Status::OK();
  }

  json JobsOverview() const { return json::parse(index_.Current()->overview, nullptr, false); }

  // 404 as Flink's HistoryServer without the pattern configured, or for a job not archived.
  void LogUrl(const std::string& pattern, const std::string& job_id, const std::string& tm_id,
              const httplib::Request& req, httplib::Response& res) const {
    if (pattern.empty()) {
      HistoryReply(res, 404, rest::ErrorBody("Not found: " + req.path +
                                             " (no log URL pattern is configured: "
                                             "--jobmanager-log-url-pattern, "
                                             "--taskmanager-log-url-pattern)"));
      return;
    }
    if (index_.Current()->answers.count("/jobs/" + job_id) == 0) {
      HistoryReply(res, 404, rest::ErrorBody("Not found: " + req.path +
                                             " (no archived job answers it)"));
      return;
    }
    HistoryReply(res, 200, history::LogUrlJson(pattern, job_id, tm_id));
  }

  size_t Refresh() {
    std::lock_guard<std::mutex> lock(refresh_mu_);
    std::vector<std::string> messages;
    const size_t jobs = index_.Refresh(&messages);
    if (options_.log) {
      for (const std::string& m : messages) options_.log(m);
    }
    return jobs;
  }

  void Scan() {
    std::unique_lock<std::mutex> lock(stop_mu_);
    while (!stop_) {
      stop_cv_.wait_for(lock, std::chrono::milliseconds(options_.refresh_interval_ms),
                        [this] { return stop_; });
      if (stop_) break;
      lock.unlock();
      Refresh();
      lock.lock();
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(stop_mu_);
      stop_ = true;
    }
    stop_cv_.notify_all();
    if (scan_thread_.joinable()) scan_thread_.join();
    server_.stop();
    if (serve_thread_.joinable()) serve_thread_.join();
  }

  HistoryServerOptions options_;
  history::ArchiveIndex index_;
  rest::HttpServer server_;
  int port_ = -1;
  std::mutex refresh_mu_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread serve_thread_;
  std::thread scan_thread_;
};

base::Result<std::unique_ptr<HistoryServer>> HistoryServer::Start(HistoryServerOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  CKPT_RETURN_IF_ERROR(impl->Bind());
  return std::unique_ptr<HistoryServer>(new HistoryServer(std::move(impl)));
}

HistoryServer::HistoryServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HistoryServer::~HistoryServer() { Stop(); }
int HistoryServer::port() const { return impl_->port_; }
std::string HistoryServer::url() const {
  return "http://" + impl_->options_.address + ":" + std::to_string(impl_->port_);
}
size_t HistoryServer::Refresh() { return impl_->Refresh(); }
void HistoryServer::Stop() { impl_->Stop(); }

}  // namespace ckpt::engine
