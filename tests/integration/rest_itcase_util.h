// A real `ckpt-engine run --rest-port 0` subprocess for the REST ITCases, and an HTTP client
// (httplib::Client) with JSON bodies.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "ckpt/format/proto.h"
#include "ckpt/testing/temp_dir.h"

#include "itcase_util.h"

namespace ckpt::itcase {

// The job id of the keyed-sum job the REST ITCases run.
inline constexpr const char* kJobId = "0123456789abcdef0123456789abcdef";

// A keyed-sum job (job id kJobId) in a temporary directory, with the engine's checkpoint
// directory, log and state file beside it.
struct EngineRun {
  testing::TempDir tmp;
  std::string job_file, ckpt_dir, log, state;
  int interval_ms;
  explicit EngineRun(double rate = 5000, int64_t to = 100000000, int interval_ms = 100);
  // Arguments of `ckpt-engine run`: the job, its checkpoint directory and interval, then `extra`.
  std::vector<std::string> Args(std::vector<std::string> extra = {}) const;
};

// A connected loopback socket to `port`, or -1.
int ConnectLoopback(int port);
// Sends `request` on a fresh loopback connection and returns all the server sends back until it
// closes the connection (or 60 s pass).
std::string RawExchange(int port, const std::string& request);

class RestEngine {
 public:
  // Starts ckpt-engine with `args` after "run" (plus --rest-port 0), the state file at
  // `state_file`, output in `log`; waits for the printed REST address. port() is 0 on failure.
  RestEngine(const std::vector<std::string>& args, const std::string& log,
             const std::string& state_file);
  ~RestEngine();  // SIGKILLs the engine if it still runs

  int port() const { return port_; }
  const std::string& url() const { return url_; }
  pid_t pid() const { return pid_; }
  // Waits for the engine to exit: its exit code.
  int Wait();
  void Kill();

  std::unique_ptr<httplib::Client> Client() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string url_;
  bool exited_ = false;
};

struct HttpAnswer {
  int status = 0;  // 0: no answer (connection failed)
  nlohmann::json body;
};
HttpAnswer HttpGet(httplib::Client& c, const std::string& path);
HttpAnswer HttpPost(httplib::Client& c, const std::string& path, const std::string& body);

// Polls an asynchronous operation until COMPLETED (deadline 60 s): its "operation".
nlohmann::json AwaitOperation(httplib::Client& c, const std::string& status_path);

// GET /jobs/<job_id>/checkpoints.
nlohmann::json CheckpointsOf(httplib::Client& c, const std::string& job_id);
// Waits (deadline 60 s) until `job_id` has at least `n` completed checkpoints.
bool WaitCompleted(httplib::Client& c, const std::string& job_id, int n);
// <dir>/_metadata decoded; an empty message and a test failure if it cannot be read.
pb::CheckpointMetadata ReadMd(const std::string& dir);

}  // namespace ckpt::itcase
