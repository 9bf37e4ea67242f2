// HttpServer: cpp-httplib's Server with the connection handling an endpoint open to careless or
// hostile clients needs. cpp-httplib gives each connection a pool thread for its whole life and
// bounds only each single read, so a few clients that trickle bytes or stay idle occupy every
// thread; it reads a chunked body whole, whatever its size. Here:
// - every connection gets its own thread, up to `max_connections`; later connections wait in a
//   FIFO queue (at most `max_waiting`, beyond that they are closed at once);
// - a connection waits at most `idle_timeout_ms` for its next request, and a request (head and
//   body) must arrive within `request_deadline_ms` of its first byte, each read within
//   `read_timeout_ms`;
// - a request head is bounded by `max_head_bytes` and a body, chunked or not, by
//   `max_body_bytes` (RequestTooLarge() tells the error handler to answer 413), and the
//   connection is closed after such a request.
// ServeBytes runs the same per-request path over bytes in memory (the fuzz target's entry).
// Thread-safe as httplib::Server is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <httplib.h>

#include "ckpt/base/result.h"

namespace ckpt::engine::rest {

struct HttpLimits {
  size_t max_body_bytes = 1 << 20;
  size_t max_head_bytes = 64 << 10;
  int read_timeout_ms = 5000;
  int request_deadline_ms = 10000;
  int idle_timeout_ms = 5000;
  int write_timeout_ms = 5000;
  size_t keep_alive_max_requests = 100;
  size_t max_connections = 256;
  size_t max_waiting = 256;
};

class HttpServer : public httplib::Server {
 public:
  explicit HttpServer(HttpLimits limits);
  ~HttpServer() override;

  const HttpLimits& limits() const { return limits_; }

  // Binds `address`:`port` (0: a free port) and widens the backlog: the port bound, or IOError
  // naming `what`, the address and the port.
  base::Result<int> BindEndpoint(const std::string& what, const std::string& address, int port);

  // Serves a Flink web dashboard's static files from `dir` at /. Static files are looked up
  // before the API routes; a dashboard has no file named like an API path, so both are served
  // from one origin, as Flink's dashboard expects. InvalidArgument naming --web-ui if `dir` has
  // no index.html or cannot be read.
  base::Status MountWebUi(const std::string& dir);

  // After binding: lets up to SOMAXCONN connections wait for accept (cpp-httplib listens with a
  // backlog of 5, so a burst of connections got their SYNs dropped and retried a second later).
  void WidenBacklog();

  // Serves `request` (one request, or several pipelined ones) as if read from one connection
  // and returns every byte written back.
  std::string ServeBytes(std::string_view request);

  // For handlers: whether the request being served on this thread was cut off because its head
  // or body exceeded the limits.
  static bool RequestTooLarge();
  // For handlers: closes the connection after the current response (its body is left unread).
  static void CloseAfterResponse();

 private:
  bool process_and_close_socket(socket_t sock) override;

  HttpLimits limits_;
};

}  // namespace ckpt::engine::rest
