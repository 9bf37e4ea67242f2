// `ckpt-engine history-server`: starts a HistoryServer, prints its URL and serves until a
// signal.
#include "history_server_command.h"

#include <signal.h>

#include <iostream>

#include "ckpt/engine/rest/history_server.h"
#include "engine_text_style.h"

namespace ckpt::engine::cli {

CLI::App* AddHistoryServerCommand(CLI::App& app, HistoryServerArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "history-server",
      "Serve the archives of ended jobs (run --archive-dir) like Flink's HistoryServer");
  cmd->add_option("--archive-dir", a.archive_dir,
                  "Directory of job archives (Flink's historyserver.archive.fs.dir)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--port", a.port,
                  "Port to serve on (default 8082, Flink's historyserver.web.port; 0 = pick a "
                  "free one and print it)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--address", a.address,
                  "Address to bind (default 127.0.0.1: this machine only)");
  cmd->add_option("--web-ui", a.web_ui_dir,
                  "Serve a Flink web dashboard unpacked from flink-runtime-web (its `web/` "
                  "folder, with index.html) at / beside the archived REST answers")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--refresh-interval", a.refresh_interval_ms,
                  "Milliseconds between scans of the archive directory for new, replaced and "
                  "removed archives (default 10000)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--jobmanager-log-url-pattern", a.jobmanager_log_url_pattern,
                  "URL of a finished job's log where your log service keeps it, <jobid> "
                  "replaced (Flink's historyserver.log.jobmanager.url-pattern); the dashboard "
                  "links it");
  cmd->add_option("--taskmanager-log-url-pattern", a.taskmanager_log_url_pattern,
                  "URL of a task manager's log, <jobid> and <tmid> replaced (Flink's "
                  "historyserver.log.taskmanager.url-pattern)");
  cmd->footer(
      "Examples:\n"
      "  ckpt-engine run job.json --checkpoint-dir /tmp/ckpt --archive-dir /tmp/archive\n"
      "  ckpt-engine history-server --archive-dir /tmp/archive --port 0\n"
      "Archives that cannot be used (truncated, not JSON, paths outside their job) are skipped\n"
      "with a warning on stderr naming the file.");
  return cmd;
}

int RunHistoryServer(const HistoryServerArgs& a) {
  // Signals go to this thread's sigwait only (blocked before the server's threads start).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  HistoryServerOptions o;
  o.archive_dir = a.archive_dir;
  o.address = a.address;
  o.port = a.port;
  o.web_ui_dir = a.web_ui_dir;
  o.refresh_interval_ms = a.refresh_interval_ms;
  o.jobmanager_log_url_pattern = a.jobmanager_log_url_pattern;
  o.taskmanager_log_url_pattern = a.taskmanager_log_url_pattern;
  o.log = [](const std::string& line) { std::cerr << line << std::endl; };
  base::Result<std::unique_ptr<HistoryServer>> server = HistoryServer::Start(o);
  if (!server.ok()) {
    std::cerr << StyledErr("ckpt-engine history-server: " + server.status().ToString(),
                           clistyle::Tone::kError)
              << "\n";
    return 2;
  }
  std::cout << "History server: " << (*server)->url() << " (archives in " << a.archive_dir
            << ")" << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  std::cout << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ": stopping the history server"
            << std::endl;
  (*server)->Stop();
  return 0;
}

}  // namespace ckpt::engine::cli
