// The client verbs of ckpt-engine, in the shape of Flink's CLI, against a running engine's REST
// endpoint (or a Flink cluster's): list, checkpoints, checkpoint, savepoint, stop, cancel,
// dispose.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ckpt::engine::cli {

struct ClientArgs {
  // http://HOST:PORT; "" = from the running engine's state file (engine_state_file.h).
  std::string address;
  std::string job_id;
  std::string target_dir;  // savepoint DIR / stop --savepoint-path
  std::string type = "canonical";
  bool drain = false;
  bool full = false;  // checkpoint --full
  std::string path;  // dispose
  int timeout_s = 600;
};

// Registers the verbs on `app`; returns them so main can tell which one was parsed.
std::vector<CLI::App*> AddClientCommands(CLI::App& app, ClientArgs& args);

// Runs the parsed verb `cmd`. Exit code: 0 done; 1 the engine refused or the operation failed;
// 2 usage error or no engine reachable.
int RunClientCommand(const CLI::App& cmd, const ClientArgs& args);

}  // namespace ckpt::engine::cli
