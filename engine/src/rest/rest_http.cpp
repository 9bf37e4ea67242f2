// HttpServer: per-connection threads from a bounded pool with a FIFO queue, and a Stream that
// enforces the read deadlines and size limits while cpp-httplib parses the request.
#include "rest/rest_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ckpt::engine::rest {

namespace {

using Clock = std::chrono::steady_clock;

// Longest single wait, so a connection notices promptly that the server stops.
constexpr int kPollSliceMs = 100;

// Set while the pool runs a connection it has no room for on the accepting thread.
thread_local bool tl_rejecting = false;

class ConnectionStream;
thread_local ConnectionStream* tl_stream = nullptr;

int MsUntil(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// A connection's bytes: from a socket (fd >= 0) or from memory (ServeBytes). Reads are buffered
// and counted per request against the head and body limits; every wait ends at the request's
// deadline or when the server stops.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(int fd, const HttpLimits& limits, const std::atomic<socket_t>* server_socket)
      : fd_(fd), limits_(limits), server_socket_(server_socket) {}

  void SetInput(std::string_view in) { buffer_.assign(in.begin(), in.end()); }
  std::string& output() { return output_; }

  // Whether a request's first byte is here (buffered or readable) within the idle timeout.
  bool WaitRequest() {
    if (pos_ < buffer_.size()) return true;
    if (fd_ < 0) return false;
    return Wait(POLLIN, Clock::now() + std::chrono::milliseconds(limits_.idle_timeout_ms),
                /*until_stop=*/true);
  }

  // A new request: fresh limits and deadline.
  void BeginRequest() {
    in_head_ = true;
    line_len_ = 0;
    head_bytes_ = 0;
    body_bytes_ = 0;
    too_large_ = false;
    deadline_ = Clock::now() + std::chrono::milliseconds(limits_.request_deadline_ms);
  }

  bool too_large() const { return too_large_; }
  bool must_close() const { return too_large_ || failed_ || close_after_; }
  void CloseAfterResponse() { close_after_ = true; }

  bool is_readable() const override { return pos_ < buffer_.size() || fd_ >= 0; }
  bool is_writable() const override { return !failed_; }

  ssize_t read(char* ptr, size_t size) override {
    if (size == 0) return 0;
    if (too_large_ || failed_) return -1;
    if (pos_ == buffer_.size() && !Fill()) return failed_ ? -1 : 0;
    size_t n = 0;
    if (in_head_) {
      // cpp-httplib reads the head a byte at a time: count it up to the blank line.
      while (n < size && pos_ < buffer_.size() && in_head_) {
        const char c = buffer_[pos_];
        if (++head_bytes_ > limits_.max_head_bytes) return TooLarge(n);
        ptr[n++] = c;
        ++pos_;
        if (c == '\n') {
          if (line_len_ == 0) in_head_ = false;
          line_len_ = 0;
        } else if (c != '\r') {
          ++line_len_;
        }
      }
      return static_cast<ssize_t>(n);
    }
    // A chunked body carries its framing on the wire: allow for it, the decoded body is checked
    // against max_body_bytes by the handler.
    const size_t body_limit = 2 * limits_.max_body_bytes + 4096;
    n = std::min(size, buffer_.size() - pos_);
    if (body_bytes_ + n > body_limit) {
      n = body_limit - body_bytes_;
      if (n == 0) return TooLarge(0);
    }
    std::memcpy(ptr, buffer_.data() + pos_, n);
    pos_ += n;
    body_bytes_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (fd_ < 0) {
      output_.append(ptr, size);
      return static_cast<ssize_t>(size);
    }
    const Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(limits_.write_timeout_ms);
    size_t done = 0;
    while (done < size) {
      if (!Wait(POLLOUT, deadline)) break;
      const ssize_t n = ::send(fd_, ptr + done, size - done, MSG_NOSIGNAL);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    if (done < size) {
      failed_ = true;
      return -1;
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
    if (fd_ >= 0) Name(::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
    if (fd_ >= 0) Name(::getsockname, ip, port);
  }
  socket_t socket() const override { return fd_; }

 private:
  ssize_t TooLarge(size_t n) {
    too_large_ = true;
    return n > 0 ? static_cast<ssize_t>(n) : -1;
  }

  // Waits for `events` on the socket until `deadline`; between requests (`until_stop`) also
  // until the server stops (a request begun is still answered). False on timeout, error or
  // stop.
  bool Wait(short events, Clock::time_point deadline, bool until_stop = false) {
    for (;;) {
      if (until_stop && server_socket_ != nullptr && *server_socket_ == INVALID_SOCKET) {
        return false;
      }
      const int left = MsUntil(deadline);
      pollfd p{fd_, events, 0};
      const int r = ::poll(&p, 1, std::min(left, kPollSliceMs));
      if (r > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
      if (r < 0 && errno != EINTR) return false;
      if (left == 0) return false;
    }
  }

  // More bytes into the buffer; false at the end of input, on timeout or error (failed_).
  bool Fill() {
    buffer_.clear();
    pos_ = 0;
    if (fd_ < 0) return false;
    const Clock::time_point read_deadline = std::min(
        deadline_, Clock::now() + std::chrono::milliseconds(limits_.read_timeout_ms));
    for (;;) {
      if (!Wait(POLLIN, read_deadline)) {
        failed_ = true;
        return false;
      }
      char buf[8192];
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        failed_ = n < 0;
        return false;
      }
      buffer_.assign(buf, buf + n);
      return true;
    }
  }

  template <typename F>
  void Name(F f, std::string& ip, int& port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (f(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
    char host[64] = {};
    if (addr.ss_family == AF_INET) {
      const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
      ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
      port = ntohs(a->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
      ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
      port = ntohs(a->sin6_port);
    }
    ip = host;
  }

  const int fd_;
  const HttpLimits& limits_;
  const std::atomic<socket_t>* server_socket_;
  std::vector<char> buffer_;
  size_t pos_ = 0;
  std::string output_;
  bool in_head_ = true;
  size_t line_len_ = 0;
  size_t head_bytes_ = 0;
  size_t body_bytes_ = 0;
  bool too_large_ = false;
  bool failed_ = false;
  bool close_after_ = false;
  Clock::time_point deadline_ = Clock::now();
};

// One thread per connection, created on demand up to `max_threads`; connections beyond wait in
// FIFO order, up to `max_waiting`; beyond that a connection is run with tl_rejecting set (it is
// answered 503 and closed at once).
class ConnectionPool final : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t max_threads, size_t max_waiting)
      : max_threads_(std::max<size_t>(1, max_threads)), max_waiting_(max_waiting) {}
  ~ConnectionPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock<std::mutex> lock(mu_);
    const bool covered = jobs_.size() < idle_;
    if (!covered && threads_.size() < max_threads_) {
      threads_.emplace_back([this] { Work(); });
    } else if (!covered && jobs_.size() >= idle_ + max_waiting_) {
      lock.unlock();
      tl_rejecting = true;
      fn();
      tl_rejecting = false;
      return;
    }
    jobs_.push_back(std::move(fn));
    cv_.notify_one();
  }

  void shutdown() override {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      threads.swap(threads_);
    }
    cv_.notify_all();
    for (std::thread& t : threads) t.join();
  }

 private:
  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ++idle_;
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) return;  // stopping, nothing left to run
      std::function<void()> fn = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  const size_t max_threads_;
  const size_t max_waiting_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

std::string TooManyConnections() {
  const std::string body = "{\"errors\":[\"Too many connections, try again later\"]}";
  return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=UTF-8\r\n"
         "Connection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Requests of one connection until it ends, idles too long, or must be closed.
void ServeRequests(ConnectionStream& strm, size_t max_requests,
                   const std::function<bool(bool last, bool& closed)>& process) {
  for (size_t n = 0; n < max_requests && strm.WaitRequest(); ++n) {
    strm.BeginRequest();
    bool closed = false;
    tl_stream = &strm;
    const bool ok = process(n + 1 == max_requests, closed);
    tl_stream = nullptr;
    if (!ok || closed || strm.must_close()) break;
  }
}

}  // namespace

HttpServer::HttpServer(HttpLimits limits) : limits_(limits) {
  new_task_queue = [this] {
    return new ConnectionPool(limits_.max_connections, limits_.max_waiting);
  };
  set_payload_max_length(limits_.max_body_bytes);
  // A response goes out in several writes (head, body): without this, Nagle's algorithm holds
  // the body back until the client's delayed acknowledgement of the head.
  set_tcp_nodelay(true);
  set_keep_alive_max_count(std::max<size_t>(1, limits_.keep_alive_max_requests));
}

HttpServer::~HttpServer() = default;

base::Result<int> HttpServer::BindEndpoint(const std::string& what, const std::string& address,
                                           int port) {
  int bound = -1;
  if (port == 0) {
    bound = bind_to_any_port(address);
  } else if (bind_to_port(address, port)) {
    bound = port;
  }
  if (bound <= 0) {
    return base::Status::IOError(what + ": cannot bind " + address + ":" + std::to_string(port));
  }
  WidenBacklog();
  return bound;
}

base::Status HttpServer::MountWebUi(const std::string& dir) {
  if (!std::filesystem::is_regular_file(std::filesystem::path(dir) / "index.html")) {
    return base::Status::InvalidArgument(
        "--web-ui " + dir +
        ": no index.html there (unpack the `web/` folder of flink-runtime-web, see "
        "docs/rest-api.md)");
  }
  if (!set_mount_point("/", dir)) {
    return base::Status::InvalidArgument("--web-ui " + dir + ": not a readable directory");
  }
  set_file_extension_and_mimetype_mapping("mjs", "text/javascript");
  return base::Status::OK();
}

void HttpServer::WidenBacklog() {
  const socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, SOMAXCONN);
}

bool HttpServer::RequestTooLarge() { return tl_stream != nullptr && tl_stream->too_large(); }

void HttpServer::CloseAfterResponse() {
  if (tl_stream != nullptr) tl_stream->CloseAfterResponse();
}

std::string HttpServer::ServeBytes(std::string_view request) {
  ConnectionStream strm(-1, limits_, nullptr);
  strm.SetInput(request);
  ServeRequests(strm, limits_.keep_alive_max_requests, [&](bool last, bool& closed) {
    return process_request(strm, last, closed, nullptr);
  });
  return std::move(strm.output());
}

bool HttpServer::process_and_close_socket(socket_t sock) {
  if (tl_rejecting) {
    const std::string answer = TooManyConnections();
    ::send(sock, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  } else {
    const int one = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ConnectionStream strm(sock, limits_, &svr_sock_);
    ServeRequests(strm, limits_.keep_alive_max_requests, [&](bool last, bool& closed) {
      return process_request(strm, last, closed, nullptr);
    });
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

}  // namespace ckpt::engine::rest
