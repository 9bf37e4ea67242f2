// A small client of the engine's (or a Flink cluster's) REST API for the client verbs: JSON in,
// JSON out, Flink's error bodies turned into Status, and polling of asynchronous operations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/base/result.h"

namespace ckpt::engine::cli {

class RestClient {
 public:
  // `address`: http://HOST:PORT (or HOST:PORT). InvalidArgument if it is not one.
  static base::Result<std::unique_ptr<RestClient>> Create(const std::string& address);
  ~RestClient();

  // IOError when the endpoint cannot be reached; for a 4xx/5xx answer, the code by status
  // (400 InvalidArgument, 404 NotFound, 409 FailedPrecondition, else Internal) with Flink's
  // "errors" as the message.
  base::Result<nlohmann::json> Get(const std::string& path);
  base::Result<nlohmann::json> Post(const std::string& path, const nlohmann::json& body);
  base::Result<nlohmann::json> Patch(const std::string& path);
  // Polls `status_path` (every 100 ms) until the operation completed; returns its "operation",
  // or its failure-cause as an Internal status. DeadlineExceeded-like IOError after timeout_s.
  base::Result<nlohmann::json> AwaitOperation(const std::string& status_path, int timeout_s);

  const std::string& address() const { return address_; }

 private:
  struct Impl;
  RestClient(std::string address, std::unique_ptr<Impl> impl);
  std::string address_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt::engine::cli
