// The REST endpoint of a real `ckpt-engine run --rest-port 0` subprocess against careless and
// hostile clients on 127.0.0.1: bytes that are not UTF-8, oversized chunked bodies, savepoint
// targets and trigger ids that must be refused before anything is created, disposal of a
// savepoint directory that also holds a user's files, and idle and trickling connections that
// must not starve other clients. The engine answers 4xx and keeps running its job.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "rest_itcase_util.h"

namespace ckpt::itcase {
namespace {

using nlohmann::json;

#define ASSERT_ENGINE_BUILT() \
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built: this test needs it"

const std::string kJobPath = std::string("/jobs/") + kJobId;

bool JobRunning(httplib::Client& c) {
  HttpAnswer jobs = HttpGet(c, "/jobs");
  return jobs.status == 200 && jobs.body["jobs"][0]["status"] == "RUNNING";
}

// A running keyed-sum job (kJobId) with its REST endpoint, and a client of it.
class RestHostileClientITCase : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_ENGINE_BUILT();
    engine_ = std::make_unique<RestEngine>(run_.Args(), run_.log, run_.state);
    ASSERT_GT(engine_->port(), 0) << ReadFile(run_.log);
    client_ = engine_->Client();
  }
  int port() const { return engine_->port(); }

  EngineRun run_{2000, 100000000, 200};
  std::unique_ptr<RestEngine> engine_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(RestHostileClientITCase, PathsThatAreNotUtf8Get400AndTheEngineKeepsRunning) {
  const std::vector<std::string> requests = {
      "GET /%ff", "GET /\xff", "GET /overview\xc3", "DELETE /\xff", "GET /v1/\xff",
      "GET /jobs/%ff%fe", "GET " + kJobPath + "/checkpoints/details/%c3", "POST /v1/\xc3\x28",
      "GET " + kJobPath + "/savepoints/%ed%a0%80", "PATCH " + kJobPath + "?mode=%ff"};
  for (const std::string& line : requests) {
    const std::string answer =
        RawExchange(port(), line + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                                            "Connection: close\r\n\r\n");
    EXPECT_EQ(answer.rfind("HTTP/1.1 4", 0), 0u) << line << " -> " << answer;
    const size_t body = answer.find("\r\n\r\n");
    ASSERT_NE(body, std::string::npos) << line << " -> " << answer;
    const json j = json::parse(answer.substr(body + 4), nullptr, false);
    EXPECT_TRUE(j.is_object() && j["errors"].is_array()) << line << " -> " << answer;
    ASSERT_TRUE(JobRunning(*client_)) << "after " << line << "\n" << ReadFile(run_.log);
  }
  // Known routes answer 400, not 500.
  for (const std::string path : {"/overview%ff", "/jobs/%c3%28", "/v1/jobs/overview\xc3"}) {
    const std::string answer =
        RawExchange(port(), "GET " + std::string(path) +
                                       " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << path << " -> " << answer;
  }
}

TEST_F(RestHostileClientITCase, ChunkedBodyIsBoundedLikeAContentLengthOne) {
  const int fd = ConnectLoopback(port());
  ASSERT_GE(fd, 0);
  const std::string head = "POST " + kJobPath + "/savepoints HTTP/1.1\r\nHost: x\r\n"
                           "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  ASSERT_EQ(send(fd, head.data(), head.size(), MSG_NOSIGNAL), static_cast<ssize_t>(head.size()));
  // Up to 256 MiB in 64 KiB chunks: the server stops reading long before.
  const std::string payload(64 << 10, ' ');
  char size_line[32];
  std::snprintf(size_line, sizeof(size_line), "%zx\r\n", payload.size());
  const std::string chunk = size_line + payload + "\r\n";
  timeval tv{30, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  size_t sent = 0;
  for (int i = 0; i < 4096; ++i) {
    const ssize_t n = send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  EXPECT_LT(sent, size_t{256} << 20) << "the server read the whole chunked body";
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) got.append(buf, static_cast<size_t>(n));
  close(fd);
  EXPECT_EQ(got.rfind("HTTP/1.1 413", 0), 0u) << got.substr(0, 300);
  EXPECT_TRUE(JobRunning(*client_)) << ReadFile(run_.log);

  // A chunked body just over the limit in one chunk, and a gzip-encoded one, are refused too.
  const std::string big(size_t{1} << 20 | 16, ' ');
  char line[32];
  std::snprintf(line, sizeof(line), "%zx\r\n", big.size());
  std::string answer = RawExchange(port(), head + line + big + "\r\n0\r\n\r\n");
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer.substr(0, 300);
  answer = RawExchange(port(), "POST " + kJobPath + "/savepoints HTTP/1.1\r\nHost: x\r\n"
                                      "Content-Encoding: gzip\r\nContent-Length: 4\r\n\r\nabcd");
  EXPECT_EQ(answer.rfind("HTTP/1.1 415", 0), 0u) << answer.substr(0, 300);
  EXPECT_TRUE(JobRunning(*client_)) << ReadFile(run_.log);
}

TEST_F(RestHostileClientITCase, SavepointTargetsAndTriggerIdsAreCheckedBeforeAnythingIsCreated) {
  const std::string base = run_.tmp.Sub("targets");
  std::filesystem::create_directories(base);
  auto refused = [&](const std::string& path, const json& body, const std::string& what) {
    HttpAnswer a = HttpPost(*client_, path, body.dump());
    EXPECT_EQ(a.status, 400) << what << ": " << a.body.dump();
    EXPECT_TRUE(a.body["errors"].is_array()) << what;
  };
  const std::vector<std::pair<std::string, std::string>> bad_targets = {
      {"/", "the root"},
      {"file:///", "the root as a URI"},
      {base + "/x/../escaped", "a path with '..'"},
      {base + "/./dot", "a path with '.'"},
      {base + "//double", "an empty component"},
      {base + "/nul" + std::string(1, '\0') + "tail", "a NUL byte"},
      {"/etc/ckpt-savepoints", "a system directory"},
      {"/usr/local/sp", "below a system directory"},
      {"/lib64", "a /lib* directory"},
      {"relative/sp", "a relative path"}};
  for (const auto& [target, what] : bad_targets) {
    refused(kJobPath + "/savepoints", {{"target-directory", target}}, "savepoint to " + what);
    refused(kJobPath + "/stop", {{"targetDirectory", target}}, "stop to " + what);
  }
  // Nothing was created: not the truncated NUL name, not the '..' target's parts.
  EXPECT_TRUE(std::filesystem::is_empty(base));
  EXPECT_FALSE(std::filesystem::exists("/escaped"));

  for (const std::string id : {"x", "0123456789ABCDEF0123456789ABCDEF",
                                "0123456789abcdef0123456789abcde", "../../etc"}) {
    refused(kJobPath + "/savepoints", {{"target-directory", base}, {"triggerId", id}},
            "trigger id '" + id + "'");
    refused(kJobPath + "/checkpoints", {{"triggerId", id}}, "checkpoint trigger id '" + id + "'");
    refused("/savepoint-disposal", {{"savepoint-path", base}, {"triggerId", id}},
            "disposal trigger id '" + id + "'");
  }
  HttpAnswer status = HttpGet(*client_, kJobPath + "/savepoints/not-a-trigger-id");
  EXPECT_EQ(status.status, 400) << status.body.dump();
  EXPECT_TRUE(std::filesystem::is_empty(base));

  // A valid one still works, its trigger id as given.
  const std::string trigger = "00112233445566778899aabbccddeeff";
  HttpAnswer ok = HttpPost(*client_, kJobPath + "/savepoints",
                           json{{"target-directory", base + "/"}, {"triggerId", trigger}}.dump());
  ASSERT_EQ(ok.status, 202) << ok.body.dump();
  EXPECT_EQ(ok.body["request-id"], trigger);
  json op = AwaitOperation(*client_, kJobPath + "/savepoints/" + trigger);
  ASSERT_TRUE(op.contains("location")) << op.dump();
  EXPECT_EQ(op["location"].get<std::string>().rfind(base + "/savepoint-", 0), 0u) << op.dump();
  EXPECT_TRUE(JobRunning(*client_)) << ReadFile(run_.log);
}

TEST_F(RestHostileClientITCase, DisposalRemovesOnlyTheSavepointsOwnFiles) {
  auto savepoint = [&](const std::string& dir) {
    HttpAnswer a = HttpPost(*client_, kJobPath + "/savepoints", json{{"target-directory", dir}}.dump());
    EXPECT_EQ(a.status, 202) << a.body.dump();
    json op = AwaitOperation(*client_, kJobPath + "/savepoints/" + a.body.value("request-id", ""));
    return op.contains("location") ? op["location"].get<std::string>() : std::string();
  };
  const std::string shared_dir = savepoint(run_.tmp.Sub("sp"));
  ASSERT_FALSE(shared_dir.empty());
  const pb::CheckpointMetadata md = ReadMd(shared_dir);
  ASSERT_GT(md.files_size(), 0);
  // The user keeps notes and a sub-directory of their own next to the savepoint's files.
  std::ofstream(shared_dir + "/NOTES.txt") << "restore this one on Monday\n";
  std::filesystem::create_directories(shared_dir + "/mine");
  std::ofstream(shared_dir + "/mine/data.csv") << "1,2,3\n";

  HttpAnswer a = HttpPost(*client_, "/savepoint-disposal", json{{"savepoint-path", shared_dir}}.dump());
  ASSERT_EQ(a.status, 202) << a.body.dump();
  json op = AwaitOperation(*client_, "/savepoint-disposal/" + a.body.value("request-id", ""));
  EXPECT_FALSE(op.contains("failure-cause")) << op.dump();
  EXPECT_FALSE(std::filesystem::exists(shared_dir + "/_metadata"));
  for (const pb::FileEntry& f : md.files()) {
    EXPECT_FALSE(std::filesystem::exists(shared_dir + "/" + f.path())) << f.path();
  }
  EXPECT_EQ(ReadFile(shared_dir + "/NOTES.txt"), "restore this one on Monday\n");
  EXPECT_EQ(ReadFile(shared_dir + "/mine/data.csv"), "1,2,3\n");

  // A savepoint directory with nothing else in it goes entirely.
  const std::string own_dir = savepoint(run_.tmp.Sub("sp2"));
  ASSERT_FALSE(own_dir.empty());
  a = HttpPost(*client_, "/savepoint-disposal", json{{"savepoint-path", "file://" + own_dir}}.dump());
  ASSERT_EQ(a.status, 202) << a.body.dump();
  op = AwaitOperation(*client_, "/savepoint-disposal/" + a.body.value("request-id", ""));
  EXPECT_FALSE(op.contains("failure-cause")) << op.dump();
  EXPECT_FALSE(std::filesystem::exists(own_dir));
  EXPECT_TRUE(std::filesystem::exists(run_.tmp.Sub("sp2")));
  EXPECT_TRUE(JobRunning(*client_)) << ReadFile(run_.log);
}

// Connections held open against the server: `idle` that never send a byte and `trickling` that
// send one byte of an endless header every 100 ms. Whichever the server closes is opened again,
// until Stop().
class HostileConnections {
 public:
  HostileConnections(int port, int idle, int trickling)
      : port_(port), idle_(static_cast<size_t>(idle)), trickle_(static_cast<size_t>(trickling)) {
    for (int& fd : idle_) fd = ConnectLoopback(port_);
    for (int& fd : trickle_) fd = OpenTrickle();
    thread_ = std::thread([this] { Run(); });
  }
  ~HostileConnections() { Stop(); }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    stopped_.notify_all();
    if (thread_.joinable()) thread_.join();
    for (int fd : idle_) close(fd);
    for (int fd : trickle_) close(fd);
    idle_.clear();
    trickle_.clear();
  }
  int open_idle() const { return open_idle_; }
  int reopened() const { return reopened_; }

 private:
  int OpenTrickle() {
    const int fd = ConnectLoopback(port_);
    const std::string start = "GET /jobs HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    if (fd >= 0) send(fd, start.data(), start.size(), MSG_NOSIGNAL);
    return fd;
  }

  // Whether the server closed `fd` (readable with EOF or an error; a 4xx answer counts too).
  static bool Closed(int fd) {
    if (fd < 0) return true;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return false;
    char buf[512];
    return recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0;  // 0: EOF; >0: the server answered
  }

  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      lock.unlock();
      int open = 0;
      for (int& fd : idle_) {
        if (Closed(fd)) {
          if (fd >= 0) close(fd);
          fd = ConnectLoopback(port_);
          ++reopened_;
        }
        open += fd >= 0 ? 1 : 0;
      }
      open_idle_ = open;
      for (int& fd : trickle_) {
        if (fd >= 0 && send(fd, "a", 1, MSG_NOSIGNAL) == 1) continue;
        if (fd >= 0) close(fd);
        fd = OpenTrickle();
        ++reopened_;
      }
      // The trickle's pace: one byte per connection every 100 ms, until Stop().
      lock.lock();
      stopped_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
    }
  }

  const int port_;
  std::vector<int> idle_;
  std::vector<int> trickle_;
  std::mutex mu_;
  std::condition_variable stopped_;
  bool stop_ = false;  // guarded by mu_
  std::atomic<int> open_idle_{0};
  std::atomic<int> reopened_{0};
  std::thread thread_;
};

TEST_F(RestHostileClientITCase, IdleAndTricklingConnectionsDoNotStarveOtherClients) {
  HostileConnections hostile(port(), 200, 16);
  ASSERT_TRUE(testing::WaitUntil([&] { return hostile.open_idle() == 200; }))
      << hostile.open_idle() << " of 200 idle connections open";

  constexpr int kClients = 4, kPerClient = 250;
  std::atomic<int> ok{0};
  std::vector<std::string> failures[kClients];
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      for (int n = 0; n < kPerClient; ++n) {
        // A fresh connection for each request: each must get through the accept queue. A
        // starved client waits until the timeout; it bounds a hang (a loaded machine answers
        // some requests after seconds), it does not measure speed.
        httplib::Client client("127.0.0.1", port());
        client.set_connection_timeout(30, 0);
        client.set_read_timeout(30, 0);
        client.set_write_timeout(30, 0);
        auto r = client.Get((kJobPath + "/checkpoints").c_str());
        if (r && r->status == 200) {
          ++ok;
        } else if (failures[i].size() < 5) {
          failures[i].push_back(r ? std::to_string(r->status) + " " + r->body
                                  : httplib::to_string(r.error()));
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  const int open_idle = hostile.open_idle();
  hostile.Stop();
  EXPECT_EQ(ok.load(), kClients * kPerClient) << ReadFile(run_.log);
  for (const auto& f : failures) {
    for (const std::string& why : f) ADD_FAILURE() << why;
  }
  EXPECT_GE(open_idle, 150) << "the idle connections were not held open during the requests";
  EXPECT_TRUE(JobRunning(*client_)) << ReadFile(run_.log);
}

}  // namespace
}  // namespace ckpt::itcase
