// ops::LiveClient against a small in-process httplib server: answers parsed, HTTP errors turned
// into statuses naming the request, an unreachable port and an endpoint that does not answer,
// oversized answers, triggers and the polling of asynchronous operations, and concurrent use.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>

#include "ckpt/ops/live.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::ops {
namespace {

// An httplib server on a free loopback port, serving on its own thread for one test.
class LiveTestServer {
 public:
  LiveTestServer() = default;
  ~LiveTestServer() { Stop(); }

  httplib::Server& server() { return server_; }

  // Binds, serves, and waits until it accepts. Routes must be set before.
  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    ASSERT_TRUE(testing::WaitUntil([this] { return server_.is_running(); }));
  }
  void Stop() {
    if (!thread_.joinable()) return;
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

std::unique_ptr<LiveClient> LiveTestClient(const std::string& address,
                                           LiveClientOptions options = {}) {
  options.poll_interval_ms = 1;
  base::Result<std::unique_ptr<LiveClient>> c = LiveClient::Create(address, options);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(*c) : nullptr;
}

void LiveJson(httplib::Response& res, const std::string& body, int status = 200) {
  res.status = status;
  res.set_content(body, "application/json");
}

TEST(LiveClientTest, CreateAcceptsHostPortOnly) {
  base::Result<std::unique_ptr<LiveClient>> c = LiveClient::Create("127.0.0.1:8081");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->address(), "http://127.0.0.1:8081");
  for (const char* bad : {"", "localhost", "http://host:8081/path", "http://"}) {
    base::Result<std::unique_ptr<LiveClient>> r = LiveClient::Create(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), base::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("is not http://HOST:PORT"), std::string::npos);
  }
}

TEST(LiveClientTest, ReadsAnswersAndNamesTheRequestInErrors) {
  LiveTestServer s;
  s.server().Get("/jobs/overview", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res, R"({"jobs": [{"jid": "abc", "name": "n", "state": "RUNNING"}]})");
  });
  s.server().Get("/jobs/abc/checkpoints", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res, R"({"counts": {"total": 3}, "history": [{"id": "x", "status": "COMPLETED"}]})");
  });
  s.server().Get("/jobs/missing/checkpoints", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res,
             R"j({"errors": ["org.apache.flink.runtime.rest.NotFoundException: Job missing not found\n\tat a.b(C.java:1)"]})j",
             404);
  });
  s.server().Get("/jobs/abc", [](const httplib::Request&, httplib::Response& res) {
    res.status = 502;
    res.set_content("<html>Bad Gateway</html>", "text/html");
  });
  s.Start();
  std::unique_ptr<LiveClient> c = LiveTestClient(s.address());
  ASSERT_NE(c, nullptr);

  base::Result<std::vector<LiveJob>> jobs = c->JobsOverview();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].id, "abc");

  base::Result<LiveCheckpoints> bad = c->Checkpoints("abc");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), base::StatusCode::kCorruption);
  EXPECT_EQ(bad.status().message(),
            "GET /jobs/abc/checkpoints: history[0].id is a string, not a number");

  base::Result<LiveCheckpoints> missing = c->Checkpoints("missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), base::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("GET /jobs/missing/checkpoints: HTTP 404: "
                                            "org.apache.flink.runtime.rest.NotFoundException"),
            std::string::npos)
      << missing.status().message();

  std::unique_ptr<LiveClient> brief = LiveTestClient(s.address(), {.brief_errors = true});
  base::Result<LiveCheckpoints> short_missing = brief->Checkpoints("missing");
  ASSERT_FALSE(short_missing.ok());
  EXPECT_EQ(short_missing.status().message(),
            "GET /jobs/missing/checkpoints: HTTP 404: Job missing not found");

  base::Result<std::vector<LiveVertex>> gateway = c->JobVertices("abc");
  ASSERT_FALSE(gateway.ok());
  EXPECT_EQ(gateway.status().code(), base::StatusCode::kInternal);
  EXPECT_EQ(gateway.status().message(), "GET /jobs/abc: HTTP 502: <html>Bad Gateway</html>");
}

TEST(LiveClientTest, UnreachablePortIsAnIOErrorNamingHostAndPort) {
  LiveTestServer s;
  s.Start();
  const std::string address = s.address();
  s.Stop();  // nothing listens there any more
  std::unique_ptr<LiveClient> c = LiveTestClient(address);
  base::Result<std::vector<LiveJob>> r = c->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kIOError);
  EXPECT_NE(r.status().message().find("cannot reach " + address + " (GET /jobs/overview)"),
            std::string::npos)
      << r.status().message();
}

TEST(LiveClientTest, AnEndpointThatDoesNotAnswerTimesOut) {
  LiveTestServer s;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  s.server().Get("/jobs/overview", [&](const httplib::Request&, httplib::Response& res) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return release; });  // until the client gave up
    LiveJson(res, R"({"jobs": []})");
  });
  s.Start();
  std::unique_ptr<LiveClient> c = LiveTestClient(s.address(), {.read_timeout_s = 1});
  base::Result<std::vector<LiveJob>> r = c->JobsOverview();
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kIOError);
  EXPECT_NE(r.status().message().find("(GET /jobs/overview)"), std::string::npos)
      << r.status().message();
}

TEST(LiveClientTest, AnswersOverTheLimitAreRefused) {
  LiveTestServer s;
  s.server().Get("/jobs/overview", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res, R"({"jobs": [], "pad": ")" + std::string(kLiveMaxBodyBytes, 'x') + "\"}");
  });
  s.Start();
  std::unique_ptr<LiveClient> c = LiveTestClient(s.address());
  base::Result<std::vector<LiveJob>> r = c->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("GET /jobs/overview: the answer is larger than the 64 MiB"),
            std::string::npos)
      << r.status().message();
}

TEST(LiveClientTest, SavepointAndStopAreTriggeredThenPolledUntilCompleted) {
  LiveTestServer s;
  std::mutex mu;
  std::vector<std::string> bodies;
  std::atomic<int> polls{0};
  s.server().Post(R"(/jobs/j1/(savepoints|stop))",
                  [&](const httplib::Request& req, httplib::Response& res) {
                    std::lock_guard<std::mutex> lock(mu);
                    bodies.push_back(req.path + " " + req.body);
                    LiveJson(res, R"({"request-id": "r1"})", 202);
                  });
  s.server().Get("/jobs/j1/savepoints/r1", [&](const httplib::Request&, httplib::Response& res) {
    // In progress twice, then done.
    if (++polls <= 2) return LiveJson(res, R"({"status": {"id": "IN_PROGRESS"}})");
    LiveJson(res, R"({"status": {"id": "COMPLETED"}, "operation": {"location": "/sp/savepoint-1"}})");
  });
  s.Start();
  std::unique_ptr<LiveClient> c = LiveTestClient(s.address());

  LiveSavepointRequest request;
  request.target_dir = "/sp";
  request.format_type = "NATIVE";
  base::Result<std::string> status_path = c->TriggerSavepoint("j1", request);
  ASSERT_TRUE(status_path.ok()) << status_path.status().ToString();
  EXPECT_EQ(*status_path, "/jobs/j1/savepoints/r1");
  base::Result<LiveOperation> op = c->AwaitOperation(*status_path, 60);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  EXPECT_EQ(op->location, "/sp/savepoint-1");
  EXPECT_EQ(polls.load(), 3);

  request.drain = true;
  base::Result<std::string> stop_path = c->TriggerStop("j1", request);
  ASSERT_TRUE(stop_path.ok()) << stop_path.status().ToString();
  EXPECT_EQ(*stop_path, "/jobs/j1/savepoints/r1");  // a stop's status is the savepoints'
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_EQ(bodies[0],
            R"(/jobs/j1/savepoints {"cancel-job":false,"formatType":"NATIVE","target-directory":"/sp"})");
  EXPECT_EQ(bodies[1], R"(/jobs/j1/stop {"drain":true,"formatType":"NATIVE","targetDirectory":"/sp"})");
}

TEST(LiveClientTest, FailedOperationsAndTimeoutsAreErrors) {
  LiveTestServer s;
  s.server().Post("/jobs/j1/checkpoints", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res, R"({"request-id": "c1"})", 202);
  });
  s.server().Get("/jobs/j1/checkpoints/c1", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res,
             R"({"status": {"id": "COMPLETED"}, "operation": {"failure-cause": {"stack-trace": "java.io.IOException: disk full"}}})");
  });
  s.server().Post("/savepoint-disposal", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res, R"({"request-id": "d1"})", 202);
  });
  s.server().Get("/savepoint-disposal/d1", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res, R"({"status": {"id": "IN_PROGRESS"}})");
  });
  s.server().Patch("/jobs/j1", [](const httplib::Request& req, httplib::Response& res) {
    if (req.get_param_value("mode") != "cancel") return LiveJson(res, R"({"errors": ["mode"]})", 400);
    LiveJson(res, "{}", 202);
  });
  s.server().Patch("/jobs/j2", [](const httplib::Request&, httplib::Response& res) {
    LiveJson(res, R"({"errors": ["Job j2 is already finished"]})", 409);
  });
  s.Start();
  std::unique_ptr<LiveClient> c = LiveTestClient(s.address());

  base::Result<std::string> cp = c->TriggerCheckpoint("j1", true);
  ASSERT_TRUE(cp.ok()) << cp.status().ToString();
  base::Result<LiveOperation> failed = c->AwaitOperation(*cp, 60);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), base::StatusCode::kInternal);
  EXPECT_EQ(failed.status().message(), "java.io.IOException: disk full");

  base::Result<std::string> dispose = c->TriggerDisposal("/sp/savepoint-1");
  ASSERT_TRUE(dispose.ok()) << dispose.status().ToString();
  base::Result<LiveOperation> late = c->AwaitOperation(*dispose, 0);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), base::StatusCode::kIOError);
  EXPECT_EQ(late.status().message(),
            "the operation did not complete within 0 s (/savepoint-disposal/d1)");

  EXPECT_TRUE(c->CancelJob("j1").ok());
  base::Status refused = c->CancelJob("j2");
  EXPECT_EQ(refused.code(), base::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), "PATCH /jobs/j2?mode=cancel: HTTP 409: Job j2 is already finished");
}

TEST(LiveClientTest, OneClientServesSeveralThreads) {
  LiveTestServer s;
  std::atomic<int> hits{0};
  s.server().Get("/jobs/overview", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    LiveJson(res, R"({"jobs": [{"jid": "abc", "name": "n", "state": "RUNNING"}]})");
  });
  s.Start();
  std::unique_ptr<LiveClient> c = LiveTestClient(s.address());
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        if (c->JobsOverview().ok()) ++ok;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_EQ(hits.load(), 40);
}

}  // namespace
}  // namespace ckpt::ops
