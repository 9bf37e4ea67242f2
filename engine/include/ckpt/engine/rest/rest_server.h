// RestServer: a Flink-compatible REST endpoint over one running JobRunner (Flink's paths, JSON
// field names and error body {"errors": [...]}), on cpp-httplib. Serves /config, /overview,
// /jobs, /jobs/overview, /jobs/:id, /jobs/:id/plan, the checkpoint history, config, details
// (with Flink's cache of requested details) and subtask details, the views Flink's web dashboard
// reads (vertex details, task managers, metrics, watermarks, back pressure, accumulators; job
// config and exceptions; task managers; job manager config, environment, metrics and logs), a
// Prometheus exposition at /metrics, and triggers checkpoints, savepoints, stop-with-savepoint, cancel and
// savepoint disposal as asynchronous operations polled by trigger id. Every path also answers
// under Flink's "/v1" prefix. Every byte sequence a client sends gets an HTTP answer (4xx when
// it is not a valid request), never an exception or an abort; slow and idle clients cannot hold
// the endpoint (see RestServerOptions). Thread-safe; connections are served by a bounded pool
// of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/job_runner.h"

namespace ckpt::engine {

struct RestServerOptions {
  // Address to bind. Default: 127.0.0.1 (loopback only; another only when asked).
  std::string address = "127.0.0.1";
  // TCP port; 0 = pick a free one (see RestServer::port()). Default: 0.
  int port = 0;
  // Larger request bodies get 413. Default: 1 MiB.
  size_t max_body_bytes = 1 << 20;
  // A client that sends nothing for this long while sending a request is disconnected.
  // Default: 5 s.
  int read_timeout_s = 5;
  // A request (head and body) must arrive within this long of its first byte. Default: 10 s.
  int request_deadline_s = 10;
  // A connection without a request for this long is closed. Default: 5 s.
  int idle_timeout_s = 5;
  // Connections served at once, each on its own thread; more wait in arrival order (up to as
  // many again, beyond that they get 503). Default: 256.
  size_t max_connections = 256;
  // Filesystem for target-directory checks and savepoint disposal. Default: base::Fs::Default().
  base::Fs* fs = nullptr;
  // A directory holding a Flink web dashboard's static files (index.html and its assets, as
  // unpacked from flink-runtime-web's `web/`), served under `/` beside the API. Empty: none.
  std::string web_ui_dir;
  // Serve only the Prometheus exposition at /metrics (`ckpt-engine run --metrics-port`, as
  // Flink's PrometheusReporter port). Default: false.
  bool metrics_only = false;
};

class RestServer {
 public:
  // Binds and starts serving `job` (which must outlive the server) on a background thread.
  // IOError naming the address and port if it cannot bind.
  static base::Result<std::unique_ptr<RestServer>> Start(JobRunner& job,
                                                         RestServerOptions options);
  ~RestServer();  // Stop()s

  // The port bound (the chosen one when options.port was 0).
  int port() const;
  // "http://<address>:<port>".
  std::string url() const;
  // Waits until every asynchronous operation (savepoint, stop, ...) ended and its final status
  // was fetched by a client, or `timeout_ms` passed; returns whether all were fetched. Lets a
  // client polling a stop-with-savepoint see it complete before the engine exits.
  bool WaitForOperationsCollected(int64_t timeout_ms);
  // Serves `request` (raw bytes of one request, or several pipelined ones) exactly as if read
  // from a connection, and returns the raw response bytes. For fuzzing the whole request path.
  std::string ServeBytes(std::string_view request);
  // Stops serving and waits for the requests and operations in flight.
  void Stop();

  class Impl;

 private:
  explicit RestServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::engine
