// `ckpt-engine history-server`: Flink's HistoryServer over a directory of job archives written
// by `ckpt-engine run --archive-dir` (or by Flink's jobmanager.archive.fs.dir).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace ckpt::engine::cli {

struct HistoryServerArgs {
  std::string archive_dir;
  int port = 8082;  // Flink's historyserver.web.port; 0 = pick a free one
  std::string address = "127.0.0.1";
  std::string web_ui_dir;
  int64_t refresh_interval_ms = 10000;  // Flink's historyserver.archive.fs.refresh-interval
  std::string jobmanager_log_url_pattern;   // historyserver.log.jobmanager.url-pattern
  std::string taskmanager_log_url_pattern;  // historyserver.log.taskmanager.url-pattern
};

// Registers the `history-server` subcommand on `app`, binding `args`.
CLI::App* AddHistoryServerCommand(CLI::App& app, HistoryServerArgs& args);

// Serves the archives until SIGINT or SIGTERM. Exit code: 0 after a signal; 2 bad flags, an
// unusable directory, or the port cannot be bound.
int RunHistoryServer(const HistoryServerArgs& args);

}  // namespace ckpt::engine::cli
