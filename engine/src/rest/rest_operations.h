// Asynchronous operations of the REST API (savepoint, stop, checkpoint, disposal): each runs on
// its own thread and is polled by trigger id, as Flink's AsynchronousOperationResult. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/base/result.h"

namespace ckpt::engine::rest {

class Operations {
 public:
  ~Operations();  // joins every operation

  // Starts `work` under `trigger_id` (a new random id when empty); `work` returns the operation
  // body ("location", "checkpointId", ...) or why it failed. AlreadyExists if the id is taken.
  base::Result<std::string> Start(const std::string& kind, std::string trigger_id,
                                  std::function<base::Result<nlohmann::json>()> work);
  // Flink's {"status": {"id": ...}, "operation": ...}; nullopt for an unknown id of `kind`.
  std::optional<nlohmann::json> Status(const std::string& kind, const std::string& trigger_id);
  // Waits until every operation ended and its final status was fetched at least once, or
  // `timeout_ms` passed (a client polling a stop-with-savepoint must see it complete before the
  // engine exits). Returns whether all were collected.
  bool WaitCollected(int64_t timeout_ms);
  // Waits for every operation to end.
  void JoinAll();

 private:
  struct Op {
    std::string kind;
    bool done = false;
    base::Status failure;
    nlohmann::json result;
    bool collected = false;  // its final status was fetched
  };
  std::mutex mu_;
  std::condition_variable cv_;
  // Joins the threads of operations that ended (mu_ held; joined after it is released).
  std::vector<std::thread> TakeEndedThreads();

  std::map<std::string, Op> ops_;
  std::vector<std::pair<std::string, std::thread>> threads_;  // trigger id, its thread
};

// A random 32-hex-digit id (Flink's TriggerId).
std::string NewTriggerId();

}  // namespace ckpt::engine::rest
