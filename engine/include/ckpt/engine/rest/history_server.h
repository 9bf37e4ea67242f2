// HistoryServer: Flink's HistoryServer over a directory of job archives (rest_archive.h): every
// archived answer under its URL (also with Flink's "/v1" prefix), /jobs/overview merging all
// archived jobs, /config with features.web-history true, Flink's error body for unknown paths,
// and optionally a Flink web dashboard's static files at /. New, replaced and removed archives
// are picked up by Refresh(), which a background thread runs every refresh interval. Archives
// that cannot be used (unreadable, too large, not JSON, missing fields, paths outside their job)
// are skipped with a warning naming the file. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "ckpt/base/result.h"

namespace ckpt::engine {

struct HistoryServerOptions {
  // The directory of archives (Flink's historyserver.archive.fs.dir). Required; it must exist.
  std::string archive_dir;
  // Address to bind. Default: 127.0.0.1.
  std::string address = "127.0.0.1";
  // TCP port; 0 = pick a free one. Default: 8082 (Flink's historyserver.web.port).
  int port = 8082;
  // A Flink web dashboard's static files (index.html and its assets), served at /. Default: none.
  std::string web_ui_dir;
  // Milliseconds between scans of `archive_dir` (Flink's historyserver.archive.fs.refresh-
  // interval); 0: only when Refresh() is called. Default: 10000.
  int64_t refresh_interval_ms = 10000;
  // The URL of a job's job manager log and of a task manager's log, answered at
  // /jobs/:jid/jobmanager/log-url and /jobs/:jid/taskmanagers/:tmid/log-url with <jobid> and
  // <tmid> replaced (Flink's historyserver.log.jobmanager.url-pattern and
  // historyserver.log.taskmanager.url-pattern). Empty: 404, as Flink without them.
  std::string jobmanager_log_url_pattern;
  std::string taskmanager_log_url_pattern;
  // Larger archive files are skipped with a warning. Default: 64 MiB.
  uint64_t max_archive_bytes = uint64_t{64} << 20;
  // Receives the warnings about skipped archives and the jobs loaded (from the scanning
  // thread). Default: none.
  std::function<void(const std::string&)> log;
};

class HistoryServer {
 public:
  // Scans `archive_dir` once, binds and starts serving. InvalidArgument if the directory or
  // --web-ui is not usable; IOError naming address and port if it cannot bind.
  static base::Result<std::unique_ptr<HistoryServer>> Start(HistoryServerOptions options);
  ~HistoryServer();  // Stop()s

  int port() const;
  // "http://<address>:<port>".
  std::string url() const;
  // Scans the directory now: loads new and changed archives, drops removed ones. Returns the
  // number of jobs served afterwards.
  size_t Refresh();
  // Stops the scanning thread and the server.
  void Stop();

  class Impl;

 private:
  explicit HistoryServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::engine
