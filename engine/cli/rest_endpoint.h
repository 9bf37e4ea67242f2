// `ckpt-engine run --rest-port N [--rest-address A]`: the REST endpoint of the running job and
// the state file that lets client verbs find it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include <CLI/CLI.hpp>

#include "ckpt/base/result.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/rest/rest_server.h"
#include "run_command.h"

namespace ckpt::engine::cli {

// Registers --rest-port, --rest-address, --rest-keep-alive, --web-ui, --metrics-port and
// --task-metrics on `run`.
void AddRestOptions(CLI::App& run, RunArgs& args);

class RestEndpoint {
 public:
  // nullptr (OK) without --rest-port and --metrics-port; otherwise serves `job` (--rest-port:
  // the REST API, its address printed on stdout and the state file written; --metrics-port:
  // /metrics alone, its URL printed). IOError if the port cannot be bound.
  // `argv` (the engine's command line) goes into the state file for the resume command.
  static base::Result<std::unique_ptr<RestEndpoint>> Start(JobRunner& job, const RunArgs& args,
                                                           const std::vector<std::string>& argv);
  // Lets clients fetch the result of their last operations (bounded wait), stops serving and
  // removes the state file. With --rest-keep-alive it first keeps serving the ended job until
  // ReleaseKeepAlive().
  void Finish();
  // Whether Finish() is keeping the endpoint up for the ended job (a signal then ends it).
  bool KeepingAlive() const { return keeping_alive_.load(); }
  void ReleaseKeepAlive();
  // The port bound.
  int port() const { return server_->port(); }
  ~RestEndpoint();

 private:
  std::unique_ptr<RestServer> server_;           // null without --rest-port
  std::unique_ptr<RestServer> metrics_server_;   // --metrics-port
  bool finished_ = false;
  bool keep_alive_ = false;
  std::atomic<bool> keeping_alive_{false};
  std::mutex mu_;
  std::condition_variable released_cv_;
  bool released_ = false;
};

}  // namespace ckpt::engine::cli
