// The REST endpoint of `ckpt-engine run`.
#include "rest_endpoint.h"

#include <unistd.h>

#include <iostream>

#include "engine_state_file.h"
#include "engine_text_style.h"

namespace ckpt::engine::cli {

void AddRestOptions(CLI::App& run, RunArgs& a) {
  run.add_option("--rest-port", a.rest_port,
                 "Serve Flink's REST API on this port (0 = pick a free one and print it)")
      ->check(CLI::Range(0, 65535));
  run.add_option("--rest-address", a.rest_address,
                 "Address the REST endpoint binds (default 127.0.0.1: this machine only)");
  run.add_flag("--rest-keep-alive", a.rest_keep_alive,
               "Keep serving the REST API (and Flink's dashboard) after the job ended, until "
               "SIGINT or SIGTERM");
  run.add_option("--web-ui", a.web_ui_dir,
                 "Serve a Flink web dashboard unpacked from flink-runtime-web (its `web/` "
                 "folder, with index.html) at / beside the REST API (see docs/rest-api.md)")
      ->check(CLI::ExistingDirectory);
  run.add_option("--metrics-port", a.metrics_port,
                 "Serve only the Prometheus exposition (/metrics) on this port, as Flink's "
                 "PrometheusReporter (0 = pick a free one and print it); binds --rest-address")
      ->check(CLI::Range(0, 65535));
  run.add_option("--task-metrics", a.task_metrics,
                 "Measure per-task records, bytes, busy/idle/back-pressured time and watermarks "
                 "(on) or not (off: to measure their cost)")
      ->check(CLI::IsMember({"on", "off"}));
}

base::Result<std::unique_ptr<RestEndpoint>> RestEndpoint::Start(JobRunner& job,
                                                               const RunArgs& a,
                                                               const std::vector<std::string>& argv) {
  if (a.rest_port < 0 && a.metrics_port < 0) return std::unique_ptr<RestEndpoint>();
  std::unique_ptr<RestEndpoint> e(new RestEndpoint());
  if (a.metrics_port >= 0) {
    RestServerOptions m;
    m.address = a.rest_address;
    m.port = a.metrics_port;
    m.metrics_only = true;
    CKPT_ASSIGN_OR_RETURN(e->metrics_server_, RestServer::Start(job, m));
    std::cout << "Metrics endpoint: " << e->metrics_server_->url() << "/metrics" << std::endl;
  }
  if (a.rest_port < 0) return e;
  RestServerOptions o;
  o.address = a.rest_address;
  o.port = a.rest_port;
  o.web_ui_dir = a.web_ui_dir;
  e->keep_alive_ = a.rest_keep_alive;
  CKPT_ASSIGN_OR_RETURN(e->server_, RestServer::Start(job, o));
  std::cout << "REST endpoint: " << e->server_->url() << std::endl;
  EngineStateRecord r;
  r.address = e->server_->url();
  r.job_id = job.job_id_hex();
  r.pid = static_cast<long>(getpid());
  r.argv = argv;
  if (base::Status st = WriteEngineState(r); !st.ok()) {
    // Client verbs then need --address; the endpoint itself works.
    std::cerr << StyledErr("ckpt-engine run: cannot write the engine state file: " +
                               st.ToString(),
                           clistyle::Tone::kWarning)
              << std::endl;
  }
  return e;
}

void RestEndpoint::Finish() {
  if (finished_) return;
  finished_ = true;
  if (metrics_server_ != nullptr) metrics_server_->Stop();
  if (server_ == nullptr) return;
  if (keep_alive_) {
    std::cout << "The job ended; the REST endpoint " << server_->url()
              << " stays up (--rest-keep-alive) until SIGINT or SIGTERM" << std::endl;
    keeping_alive_ = true;
    std::unique_lock<std::mutex> lock(mu_);
    released_cv_.wait(lock, [this] { return released_; });
  }
  server_->WaitForOperationsCollected(10000);
  server_->Stop();
  RemoveEngineStateIfOurs();
}

void RestEndpoint::ReleaseKeepAlive() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
  }
  released_cv_.notify_all();
}

RestEndpoint::~RestEndpoint() {
  ReleaseKeepAlive();  // nothing to keep up for when the run ends another way
  Finish();
}

}  // namespace ckpt::engine::cli
