// FaultProxy (test-only): a plain HTTP/1.1 proxy on 127.0.0.1 in front of a local S3 server that
// forwards each request byte for byte (SigV4 signatures stay valid: the client signs the proxy's
// host:port, and the server checks the Host header as received) unless a programmed rule answers
// it with a fault: a reset, a held answer, a 500/503/429/501 S3 error, a truncated body, an
// altered ETag, an answer dropped after the server acted, or a 200 carrying an <Error>. One
// request per connection (every answer says Connection: close), one thread per connection.
// Thread-safe: rules may be added and counts read while requests run.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::s3::testing {

enum class FaultAction {
  kReset,            // read the request, then close the connection with a TCP reset, no answer
  kDelay,            // read the request, hold it for FaultRule::delay_ms, close without answer
  kInternalError,    // answer 500 InternalError (S3 XML error body) without forwarding
  kSlowDown,         // answer 503 SlowDown without forwarding
  kTooManyRequests,  // answer 429 TooManyRequests without forwarding
  kTruncateBody,     // forward; send the answer's head unchanged (full Content-Length), then
                     // half of its body, then close
  kCutUnframed,      // forward; send the head without Content-Length (the body then ends
                     // where the connection does), then half of the body, then close. For
                     // answers framed by Content-Length; others are cut as kTruncateBody
  kAlterETag,        // forward; answer with a different (still MD5-style) ETag header
  kNotImplemented,   // answer 501 NotImplemented without forwarding (an unsupported request)
  kDropAnswer,       // forward, let the server act on the request, then close the connection
                     // with a TCP reset instead of sending its answer
  kErrorIn200,       // answer 200 OK whose body is an S3 <Error> with FaultRule::error_code,
                     // without forwarding (how S3 fails a completion after its status line)
};

struct FaultRule {
  // The request method ("GET", "PUT", ...). Default: "" (every method).
  std::string method;
  // A substring of the request target as sent: "/bucket/key?query", percent-encoded.
  // Default: "" (every target).
  std::string target_contains;
  // Matching requests passed through untouched before the fault starts. Default: 0.
  int skip = 0;
  // Matching requests faulted after the skipped ones; -1 for every one. Default: 1.
  int times = 1;
  FaultAction action = FaultAction::kReset;
  // kDelay: how long the request is held (longer than the client's stall timeout). The proxy's
  // destructor cuts it short. Default: 30 s.
  int64_t delay_ms = 30'000;
  // kErrorIn200: the S3 error code in the body. Default: "InternalError".
  std::string error_code = "InternalError";
};

class FaultProxy {
 public:
  // Listens on 127.0.0.1 at a free port and forwards to `upstream_endpoint`
  // ("http://host:port"). InvalidArgument for another endpoint form; IOError when the socket
  // cannot be set up.
  static base::Result<std::unique_ptr<FaultProxy>> Start(const std::string& upstream_endpoint);
  // Stops accepting, cuts held requests short and joins every connection thread.
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // "http://127.0.0.1:<port>": the endpoint a client under test uses.
  std::string endpoint() const;

  // Adds a rule (rules are tried in the order added; the first that faults a request wins) and
  // returns its id for the counters below.
  int AddRule(FaultRule rule);
  // Requests that matched rule `id` (method and target), faulted or not.
  int Matched(int id) const;
  // Requests rule `id` faulted.
  int Faulted(int id) const;
  // Every request the proxy read, faulted or forwarded.
  int Requests() const;

  // Emulates a wide-area link for every forwarded request (benchmarks): each is held
  // `round_trip_ms` before it is forwarded, and its answer's body is sent at no more than
  // `bytes_per_second` per connection (0: unlimited), as a distant object store serves one
  // stream. Default: 0, 0 (a local link).
  void SetLink(int64_t round_trip_ms, int64_t bytes_per_second);

 private:
  struct RuleState {
    FaultRule rule;
    int matched = 0;
    int faulted = 0;
  };
  struct HttpRequest;

  FaultProxy() = default;
  void AcceptLoop();
  void Serve(int fd);
  // Counts `request` against every rule; true with the faulting rule in `applied` when one
  // faults it, false when it is to be forwarded untouched.
  bool Decide(const HttpRequest& request, FaultRule& applied);
  // Waits up to `ms` or until the proxy stops.
  void Hold(int64_t ms);
  // Sends `body` to `fd` paced at the link's bytes per second (all at once when unlimited).
  bool SendPaced(int fd, std::string_view body);

  std::string upstream_host_;
  int upstream_port_ = 0;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;

  mutable std::mutex mu_;
  std::condition_variable stopped_;
  std::vector<RuleState> rules_;
  std::vector<std::thread> workers_;
  int requests_ = 0;
  std::atomic<int64_t> link_round_trip_ms_{0};
  std::atomic<int64_t> link_bytes_per_second_{0};
};

}  // namespace ckpt::s3::testing
