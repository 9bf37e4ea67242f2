// `ckpt-engine run`: options bound by CLI11 and the function that runs a job with them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::engine::cli {

struct RunArgs {
  std::string job_file;
  std::string checkpoint_dir;
  std::string state_backend;    // "" = the spec's (default heap)
  std::string incremental;      // "" = the spec's (default false); "true"/"false"
  std::string changelog;        // "" = the spec's (default off); "on"/"off"
  std::string state_local_dir;  // "" = the spec's (default: system temp dir)
  int64_t changelog_materialization_interval_ms = -1;  // -1 = the spec's (default 10000)
  std::string savepoint_dir;
  int64_t interval_ms = -1;
  std::string mode;
  uint32_t parallelism = 0;
  std::string restore_path;
  bool allow_non_restored_state = false;
  std::string claim_mode = "no-claim";
  std::string from_latest;
  bool allow_empty_start = false;
  double stop_with_savepoint_after_s = -1;
  bool drain = false;
  uint32_t num_retained = 0;
  std::string retention;
  int64_t max_restarts = -1;
  int64_t restart_delay_ms = -1;
  // Network (defaults: NetworkOptions).
  int64_t network_buffer_bytes = -1;
  int64_t buffers_per_channel = -1;
  int64_t max_overdraft_buffers_per_gate = -1;
  int64_t buffer_timeout_ms = -2;  // -2: not given (-1 is "only when full")
  int64_t max_subtasks_per_channel_state_file = -1;
  int64_t aligned_checkpoint_timeout_ms = -1;
  bool debloat = false;
  int64_t debloat_target_ms = -1;
  int64_t debloat_period_ms = -1;
  int64_t min_buffer_bytes = -1;
  // REST endpoint (rest_endpoint.cpp): port (-1 = none, 0 = pick a free one) and address.
  int rest_port = -1;
  std::string rest_address = "127.0.0.1";
  std::string web_ui_dir;        // --web-ui: a Flink dashboard's static files, served at /
  bool rest_keep_alive = false;  // --rest-keep-alive: serve the ended job until a signal
  int metrics_port = -1;          // --metrics-port: /metrics alone on its own port (0 = free)
  std::string task_metrics = "on";  // --task-metrics on|off
  // --archive-dir (Flink's jobmanager.archive.fs.dir): the job's REST answers are archived as
  // <dir>/<job id> after each completed checkpoint and when the job ends. "" = none.
  std::string archive_dir;
};

// Registers the `run` subcommand on `app`, binding `args`.
CLI::App* AddRunCommand(CLI::App& app, RunArgs& args);

// Runs the job; returns the process exit code (0 finished or stopped with a savepoint,
// 1 job failed, 2 bad spec or flags, 130 cancelled by a second signal).
// `argv` is the whole command line; the resume command printed after a stop repeats it with the
// restore flags replaced by `-s <savepoint>`.
int Run(const RunArgs& args, const std::vector<std::string>& argv);

// --from-latest's argument as (checkpoint root, job id hex): a 32-hex job id resolves to
// <checkpoint-dir>/<job-id> (InvalidArgument without --checkpoint-dir); otherwise it is the job
// directory, whose parent is the checkpoint root (InvalidArgument if --checkpoint-dir differs).
base::Result<std::pair<std::string, std::string>> ResolveFromLatest(const RunArgs& args,
                                                                    base::Fs& fs);

// The command that resumes from `savepoint`: `argv` without -s/--from-savepoint, --from-latest,
// --stop-with-savepoint-after, --drain (and their values), plus `-s <savepoint>`, shell-quoted.
std::string ResumeCommand(const std::vector<std::string>& argv, const std::string& savepoint);

}  // namespace ckpt::engine::cli
