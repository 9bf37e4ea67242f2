// FaultProxy: see fault_proxy.h.
#include "fault_proxy.h"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace ckpt::s3::testing {

struct FaultProxy::HttpRequest {
  std::string method;
  std::string target;
  std::string head;  // request line and headers, without the blank line
  std::string body;
};

namespace {

constexpr int kFaultPollMs = 50;
// A peer silent this long is given up on (a request never completed, an upstream that hangs).
constexpr int64_t kFaultIdleLimitMs = 60'000;

struct FaultHead {
  std::string start_line;
  std::vector<std::pair<std::string, std::string>> headers;  // names as sent
};

std::string FaultLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Appends what `fd` has next to `buf`. False at EOF, on an error, when `stop` is set or after
// kFaultIdleLimitMs without a byte.
bool FaultReadSome(int fd, std::string& buf, const std::atomic<bool>& stop) {
  int64_t idle_ms = 0;
  for (;;) {
    if (stop) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, kFaultPollMs);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) {
      idle_ms += kFaultPollMs;
      if (idle_ms > kFaultIdleLimitMs) return false;
      continue;
    }
    char chunk[64 << 10];
    const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf.append(chunk, static_cast<size_t>(n));
    return true;
  }
}

bool FaultSendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// "start line\r\nName: value\r\n..." (without the blank line) into its parts.
FaultHead FaultParseHead(std::string_view head) {
  FaultHead out;
  size_t pos = head.find("\r\n");
  out.start_line = std::string(head.substr(0, pos));
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    const size_t start = pos + 2;
    const size_t end = head.find("\r\n", start);
    const std::string_view line =
        head.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      out.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
    }
    pos = end;
  }
  return out;
}

std::string FaultHeaderValue(const FaultHead& head, std::string_view lower_name) {
  for (const auto& [name, value] : head.headers) {
    if (FaultLower(name) == lower_name) return value;
  }
  return "";
}

// The head without Connection / Keep-Alive headers, saying Connection: close instead: the
// client opens a new connection for its next request (one request per connection).
void FaultForceClose(FaultHead& head) {
  std::erase_if(head.headers, [](const auto& h) {
    const std::string name = FaultLower(h.first);
    return name == "connection" || name == "keep-alive";
  });
  head.headers.emplace_back("Connection", "close");
}

std::string FaultJoinHead(const FaultHead& head) {
  std::string out = head.start_line + "\r\n";
  for (const auto& [name, value] : head.headers) out += name + ": " + value + "\r\n";
  return out + "\r\n";
}

// The request target as XML character data (a query's '&' would end the body's parse).
std::string FaultXmlEscape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out.push_back(c);
  }
  return out;
}

// An S3 error answer as the server would send it (no body for a HEAD request).
std::string FaultErrorAnswer(int status, std::string_view reason, std::string_view code,
                             std::string_view message, const std::string& resource,
                             bool head_request) {
  const std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" +
                           std::string(code) + "</Code><Message>" + std::string(message) +
                           "</Message><Resource>" + FaultXmlEscape(resource) +
                           "</Resource><RequestId>fault-proxy</RequestId></Error>";
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n";
  out += "Content-Type: application/xml\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "Connection: close\r\n\r\n";
  if (!head_request) out += body;
  return out;
}

// A different ETag of the same shape: the first hex digit inside the quotes changed.
std::string FaultAlteredETag(std::string etag) {
  for (char& c : etag) {
    if (std::isxdigit(static_cast<unsigned char>(c))) {
      c = c == '0' ? '1' : '0';
      return etag;
    }
  }
  return "\"00000000000000000000000000000000\"";
}

// The end of a complete chunked body at the start of `data` (its last chunk and trailers
// included), or npos while it is incomplete.
size_t FaultChunkedEnd(std::string_view data) {
  size_t pos = 0;
  for (;;) {
    const size_t line_end = data.find("\r\n", pos);
    if (line_end == std::string_view::npos) return std::string_view::npos;
    const size_t size = std::strtoull(std::string(data.substr(pos, line_end - pos)).c_str(),
                                      nullptr, 16);
    pos = line_end + 2;
    if (size == 0) break;
    if (data.size() < pos + size + 2) return std::string_view::npos;
    pos += size + 2;
  }
  for (;;) {  // trailer lines up to an empty one
    const size_t line_end = data.find("\r\n", pos);
    if (line_end == std::string_view::npos) return std::string_view::npos;
    if (line_end == pos) return pos + 2;
    pos = line_end + 2;
  }
}

// Whether `answer` holds one whole HTTP answer by its framing: no body after a HEAD, 204 or 304;
// Content-Length bytes; a complete chunked body; else everything up to the server's close.
bool FaultAnswerComplete(std::string_view answer, bool head_request) {
  const size_t head_end = answer.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return false;
  const FaultHead head = FaultParseHead(answer.substr(0, head_end + 2));
  const std::string_view body = answer.substr(head_end + 4);
  const size_t sp = head.start_line.find(' ');
  const int status = sp == std::string::npos ? 0 : std::atoi(head.start_line.c_str() + sp + 1);
  if (head_request || status == 204 || status == 304 || (status >= 100 && status < 200)) {
    return true;
  }
  if (FaultLower(FaultHeaderValue(head, "transfer-encoding")).find("chunked") !=
      std::string::npos) {
    return FaultChunkedEnd(body) != std::string_view::npos;
  }
  const std::string length = FaultHeaderValue(head, "content-length");
  if (!length.empty()) return body.size() >= std::strtoull(length.c_str(), nullptr, 10);
  return false;
}

int FaultConnect(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

base::Result<std::unique_ptr<FaultProxy>> FaultProxy::Start(const std::string& upstream_endpoint) {
  constexpr std::string_view kScheme = "http://";
  const std::string_view rest = std::string_view(upstream_endpoint).substr(
      upstream_endpoint.starts_with(kScheme) ? kScheme.size() : 0);
  const size_t colon = rest.rfind(':');
  if (!upstream_endpoint.starts_with(kScheme) || colon == std::string_view::npos ||
      rest.find('/') != std::string_view::npos) {
    return base::Status::InvalidArgument("fault proxy: upstream '" + upstream_endpoint +
                                         "' is not http://host:port");
  }
  std::unique_ptr<FaultProxy> proxy(new FaultProxy());
  proxy->upstream_host_ = std::string(rest.substr(0, colon));
  proxy->upstream_port_ = std::atoi(std::string(rest.substr(colon + 1)).c_str());
  if (proxy->upstream_port_ <= 0) {
    return base::Status::InvalidArgument("fault proxy: upstream '" + upstream_endpoint +
                                         "' has no valid port");
  }
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return base::Status::IOError("fault proxy: socket: " + std::to_string(errno));
  proxy->listen_fd_ = fd;  // closed by the destructor from here on
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return base::Status::IOError("fault proxy: cannot listen on 127.0.0.1: errno " +
                                 std::to_string(errno));
  }
  proxy->port_ = ntohs(addr.sin_port);
  proxy->acceptor_ = std::thread([p = proxy.get()] { p->AcceptLoop(); });
  return proxy;
}

FaultProxy::~FaultProxy() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stopped_.notify_all();
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
  // The acceptor has ended: no worker is added any more.
  for (std::thread& t : workers_) t.join();
}

std::string FaultProxy::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

int FaultProxy::AddRule(FaultRule rule) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(RuleState{std::move(rule)});
  return static_cast<int>(rules_.size()) - 1;
}

int FaultProxy::Matched(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.at(static_cast<size_t>(id)).matched;
}

int FaultProxy::Faulted(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.at(static_cast<size_t>(id)).faulted;
}

int FaultProxy::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void FaultProxy::AcceptLoop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, kFaultPollMs) <= 0) continue;
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

bool FaultProxy::Decide(const HttpRequest& request, FaultRule& applied) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_;
  bool found = false;
  for (RuleState& r : rules_) {
    if (!r.rule.method.empty() && r.rule.method != request.method) continue;
    if (request.target.find(r.rule.target_contains) == std::string::npos) continue;
    const int nth = r.matched++;  // 0-based among this rule's matches
    if (found || nth < r.rule.skip) continue;
    if (r.rule.times >= 0 && nth >= r.rule.skip + r.rule.times) continue;
    ++r.faulted;
    applied = r.rule;
    found = true;
  }
  return found;
}

void FaultProxy::Hold(int64_t ms) {
  std::unique_lock<std::mutex> lock(mu_);
  stopped_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_.load(); });
}

void FaultProxy::SetLink(int64_t round_trip_ms, int64_t bytes_per_second) {
  link_round_trip_ms_ = round_trip_ms;
  link_bytes_per_second_ = bytes_per_second;
}

bool FaultProxy::SendPaced(int fd, std::string_view body) {
  const int64_t rate = link_bytes_per_second_.load();
  if (rate <= 0) return FaultSendAll(fd, body);
  // Slices of 10 ms worth of bytes, each sent no earlier than the rate allows.
  const size_t slice = std::max<size_t>(4096, static_cast<size_t>(rate / 100));
  const auto start = std::chrono::steady_clock::now();
  for (size_t sent = 0; sent < body.size() && !stop_;) {
    const size_t n = std::min(slice, body.size() - sent);
    if (!FaultSendAll(fd, body.substr(sent, n))) return false;
    sent += n;
    const auto due = start + std::chrono::microseconds(static_cast<int64_t>(
                                 static_cast<double>(sent) * 1e6 / static_cast<double>(rate)));
    const auto now = std::chrono::steady_clock::now();
    if (due > now) {
      Hold(std::chrono::duration_cast<std::chrono::milliseconds>(due - now).count() + 1);
    }
  }
  return !stop_;
}

void FaultProxy::Serve(int fd) {
  // The whole request first (the client has sent everything before any fault shows).
  std::string buf;
  size_t head_end = std::string::npos;
  while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (!FaultReadSome(fd, buf, stop_)) {
      close(fd);
      return;
    }
  }
  HttpRequest request;
  request.head = buf.substr(0, head_end + 2);
  FaultHead head = FaultParseHead(request.head);
  const size_t sp1 = head.start_line.find(' ');
  const size_t sp2 = head.start_line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
  request.method = head.start_line.substr(0, sp1);
  if (sp1 != std::string::npos) request.target = head.start_line.substr(sp1 + 1, sp2 - sp1 - 1);
  const bool head_request = request.method == "HEAD";
  if (!FaultHeaderValue(head, "transfer-encoding").empty()) {
    FaultSendAll(fd, FaultErrorAnswer(501, "Not Implemented", "NotImplemented",
                                      "fault proxy: chunked requests are not supported",
                                      request.target, head_request));
    close(fd);
    return;
  }
  const size_t body_bytes =
      static_cast<size_t>(std::atoll(FaultHeaderValue(head, "content-length").c_str()));
  request.body = buf.substr(head_end + 4);
  while (request.body.size() < body_bytes) {
    if (!FaultReadSome(fd, request.body, stop_)) {
      close(fd);
      return;
    }
  }
  request.body.resize(body_bytes);

  FaultRule rule;
  const bool fault = Decide(request, rule);
  if (fault) {
    switch (rule.action) {
      case FaultAction::kReset: {
        const linger hard{1, 0};  // close() sends RST instead of FIN
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
        close(fd);
        return;
      }
      case FaultAction::kDelay:
        Hold(rule.delay_ms);
        close(fd);
        return;
      case FaultAction::kInternalError:
        FaultSendAll(fd, FaultErrorAnswer(500, "Internal Server Error", "InternalError",
                                          "We encountered an internal error. Please try again.",
                                          request.target, head_request));
        close(fd);
        return;
      case FaultAction::kSlowDown:
        FaultSendAll(fd, FaultErrorAnswer(503, "Slow Down", "SlowDown",
                                          "Please reduce your request rate.", request.target,
                                          head_request));
        close(fd);
        return;
      case FaultAction::kTooManyRequests:
        FaultSendAll(fd, FaultErrorAnswer(429, "Too Many Requests", "TooManyRequests",
                                          "Please reduce your request rate.", request.target,
                                          head_request));
        close(fd);
        return;
      case FaultAction::kNotImplemented:
        FaultSendAll(fd, FaultErrorAnswer(501, "Not Implemented", "NotImplemented",
                                          "A header or query you provided implies functionality "
                                          "that is not implemented.",
                                          request.target, head_request));
        close(fd);
        return;
      case FaultAction::kErrorIn200:
        FaultSendAll(fd, FaultErrorAnswer(200, "OK", rule.error_code,
                                          "fault proxy: an error after the 200 status line",
                                          request.target, head_request));
        close(fd);
        return;
      case FaultAction::kDropAnswer:
      case FaultAction::kTruncateBody:
      case FaultAction::kCutUnframed:
      case FaultAction::kAlterETag:
        break;  // forwarded, then altered below
    }
  }

  if (const int64_t rtt = link_round_trip_ms_.load(); rtt > 0) Hold(rtt);
  // Forward the request bytes unchanged; the answer keeps the framing the server chose
  // (Content-Length or chunked), so a cut body stays detectable as it would be from the server.
  const int up = FaultConnect(upstream_host_, upstream_port_);
  if (up < 0) {
    FaultSendAll(fd, FaultErrorAnswer(502, "Bad Gateway", "FaultProxyUpstream",
                                      "fault proxy: cannot connect to the upstream server",
                                      request.target, head_request));
    close(fd);
    return;
  }
  std::string answer;
  if (FaultSendAll(up, request.head + "\r\n") && FaultSendAll(up, request.body)) {
    while (!FaultAnswerComplete(answer, head_request) && FaultReadSome(up, answer, stop_)) {
    }
  }
  close(up);
  if (fault && rule.action == FaultAction::kDropAnswer) {
    const linger hard{1, 0};  // the server has acted; the client sees only a reset
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    close(fd);
    return;
  }
  const size_t answer_head_end = answer.find("\r\n\r\n");
  if (answer_head_end == std::string::npos) {
    FaultSendAll(fd, FaultErrorAnswer(502, "Bad Gateway", "FaultProxyUpstream",
                                      "fault proxy: the upstream server gave no answer",
                                      request.target, head_request));
    close(fd);
    return;
  }
  FaultHead answer_head = FaultParseHead(std::string_view(answer).substr(0, answer_head_end + 2));
  std::string answer_body = answer.substr(answer_head_end + 4);
  FaultForceClose(answer_head);
  if (fault && rule.action == FaultAction::kAlterETag) {
    for (auto& [name, value] : answer_head.headers) {
      if (FaultLower(name) == "etag") value = FaultAlteredETag(value);
    }
  }
  if (fault && rule.action == FaultAction::kCutUnframed) {
    std::erase_if(answer_head.headers,
                  [](const auto& h) { return FaultLower(h.first) == "content-length"; });
  }
  if (fault && (rule.action == FaultAction::kTruncateBody ||
                rule.action == FaultAction::kCutUnframed)) {
    answer_body.resize(answer_body.size() / 2);
  }
  if (FaultSendAll(fd, FaultJoinHead(answer_head))) SendPaced(fd, answer_body);
  shutdown(fd, SHUT_WR);
  close(fd);
}

}  // namespace ckpt::s3::testing
