// The client's transport failures against local sockets that misbehave (no S3 server needed):
// refused connections, connections closed without an answer, and stalled answers are retried for
// idempotent requests only, and the error names bucket, key and the failure; a PUT answered
// with an MD5 ETag that is not the MD5 of the bytes sent is retried, then Corruption; a store
// that refuses batch deletes gets one DELETE per key; a completion answered 200 with an <Error>
// is retried, then named.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/s3/s3_client.h"
#include "s3_transport.h"

namespace ckpt::s3 {
namespace {

// A listening socket on 127.0.0.1 whose connections are closed at once (`hold` false) or held
// open without an answer until the server is destroyed (`hold` true).
class MisbehavingServer {
 public:
  explicit MisbehavingServer(bool hold) : hold_(hold) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        ++accepted_;
        if (hold_) held_.push_back(c);
        else ::close(c);
      }
    });
  }
  ~MisbehavingServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    for (const int c : held_) ::close(c);
    ::close(fd_);
  }
  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  bool hold_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::vector<int> held_;
  std::thread thread_;
};

// A server on 127.0.0.1 that reads each request whole and answers it with `answer`.
class CannedAnswerServer {
 public:
  explicit CannedAnswerServer(std::string answer) : answer_(std::move(answer)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        ++accepted_;
        std::string in;
        char buf[4096];
        size_t head_end = std::string::npos;
        size_t want = 0;
        for (;;) {
          if (head_end == std::string::npos && (head_end = in.find("\r\n\r\n")) != in.npos) {
            const size_t cl = in.find("Content-Length: ");
            want = head_end + 4 + (cl < head_end ? std::stoul(in.substr(cl + 16)) : 0);
          }
          if (head_end != std::string::npos && in.size() >= want) break;
          const ssize_t n = ::recv(c, buf, sizeof buf, 0);
          if (n <= 0) break;
          in.append(buf, static_cast<size_t>(n));
        }
        EXPECT_EQ(::send(c, answer_.data(), answer_.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(answer_.size()));
        ::close(c);
      }
    });
  }
  ~CannedAnswerServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  const std::string answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

// A 200 answer to a PUT carrying `etag` and the extra header lines `extra`.
std::string TransportPutAnswer(const std::string& etag, const std::string& extra = "") {
  return "HTTP/1.1 200 OK\r\nETag: \"" + etag + "\"\r\n" + extra +
         "Content-Length: 0\r\nConnection: close\r\n\r\n";
}

S3Config TransportTestConfig(int port) {
  S3Config c;
  c.endpoint = "http://127.0.0.1:" + std::to_string(port);
  c.path_style = true;
  c.credentials = {"AKIDTRANSPORTTEST000", "transport-secret-value", ""};
  c.credentials_source = "the test";
  c.retry.max_attempts = 3;
  c.retry.base_delay_ms = 1;
  c.retry.max_delay_ms = 2;
  c.stall_timeout_ms = 1000;
  return c;
}

TEST(S3TransportTest, ClosedConnectionsAreRetriedThenNamed) {
  MisbehavingServer server(/*hold=*/false);
  auto client = S3Client::Create(TransportTestConfig(server.port()));
  ASSERT_TRUE(client.ok());
  auto got = (*client)->Get("bucket", "dir/key");
  ASSERT_EQ(got.status().code(), base::StatusCode::kIOError);
  const std::string& m = got.status().message();
  EXPECT_NE(m.find("s3://bucket/dir/key"), std::string::npos) << m;
  EXPECT_NE(m.find("connection reset"), std::string::npos) << m;
  EXPECT_NE(m.find("after 3 attempts"), std::string::npos) << m;
  EXPECT_EQ(m.find("transport-secret-value"), std::string::npos);
  EXPECT_EQ(server.accepted(), 3);
}

TEST(S3TransportTest, NonIdempotentRequestsAreSentOnce) {
  MisbehavingServer server(/*hold=*/false);
  auto client = S3Client::Create(TransportTestConfig(server.port()));
  ASSERT_TRUE(client.ok());
  auto id = (*client)->CreateMultipartUpload("bucket", "k");
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(server.accepted(), 1);
  EXPECT_EQ(id.status().message().find("attempts"), std::string::npos) << id.status().message();
}

TEST(S3TransportTest, StalledAnswersTimeOut) {
  MisbehavingServer server(/*hold=*/true);
  S3Config config = TransportTestConfig(server.port());
  config.retry.max_attempts = 2;
  auto client = S3Client::Create(config);
  ASSERT_TRUE(client.ok());
  auto head = (*client)->Head("bucket", "k");
  ASSERT_EQ(head.status().code(), base::StatusCode::kIOError);
  EXPECT_NE(head.status().message().find("timeout"), std::string::npos)
      << head.status().message();
  EXPECT_EQ(server.accepted(), 2);
}

TEST(S3TransportTest, RefusedConnectionsAreRetried) {
  int port = 0;
  {
    MisbehavingServer closed(/*hold=*/false);
    port = closed.port();
  }  // nothing listens on `port` any more
  auto client = S3Client::Create(TransportTestConfig(port));
  ASSERT_TRUE(client.ok());
  std::atomic<int> attempts{0};
  (*client)->SetFaultInjector([&](const S3RequestView&) -> std::optional<long> {
    ++attempts;
    return std::nullopt;
  });
  const base::Status st = (*client)->Delete("bucket", "k");
  EXPECT_EQ(st.code(), base::StatusCode::kIOError);
  EXPECT_NE(st.message().find("connection failed"), std::string::npos) << st.message();
  EXPECT_EQ(attempts.load(), 3);
}

TEST(S3TransportTest, PutAnsweredWithAnotherMd5IsRetriedThenCorruption) {
  // md5("abc") is 900150983cd24fb0d6963f7d28e17f72; the server claims another digest.
  CannedAnswerServer server(TransportPutAnswer("00000000000000000000000000000000"));
  auto client = S3Client::Create(TransportTestConfig(server.port()));
  ASSERT_TRUE(client.ok());
  const base::Status st = (*client)->Put("bucket", "dir/key", "abc");
  ASSERT_EQ(st.code(), base::StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("s3://bucket/dir/key"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("900150983cd24fb0d6963f7d28e17f72"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("after 3 attempts"), std::string::npos) << st.message();
  EXPECT_EQ(server.accepted(), 3);
}

TEST(S3TransportTest, PutAnsweredWithItsMd5Succeeds) {
  CannedAnswerServer server(TransportPutAnswer("900150983CD24FB0D6963F7D28E17F72"));
  auto client = S3Client::Create(TransportTestConfig(server.port()));
  ASSERT_TRUE(client.ok());
  const base::Status st = (*client)->Put("bucket", "k", "abc");
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(server.accepted(), 1);
}

TEST(S3TransportTest, EtagsThatAreNoMd5AreNotChecked) {
  // SSE-KMS and SSE-C objects, and multipart-style ETags, carry no MD5 of the body.
  for (const std::string& answer :
       {TransportPutAnswer("00000000000000000000000000000000",
                           "x-amz-server-side-encryption: aws:kms\r\n"),
        TransportPutAnswer("00000000000000000000000000000000",
                           "x-amz-server-side-encryption-customer-algorithm: AES256\r\n"),
        TransportPutAnswer("00000000000000000000000000000000-2")}) {
    CannedAnswerServer server(answer);
    auto client = S3Client::Create(TransportTestConfig(server.port()));
    ASSERT_TRUE(client.ok());
    const base::Status st = (*client)->Put("bucket", "k", "abc");
    EXPECT_TRUE(st.ok()) << st.ToString() << " for " << answer;
    EXPECT_EQ(server.accepted(), 1);
  }
}

TEST(S3TransportTest, PathStyleAndVirtualHostedTargets) {
  S3Target t = S3TargetOf("127.0.0.1:9000", true, "bucket", "dir/a b$.txt");
  EXPECT_EQ(t.host, "127.0.0.1:9000");
  EXPECT_EQ(t.path, "/bucket/dir/a%20b%24.txt");
  t = S3TargetOf("s3.eu-west-1.amazonaws.com", false, "bucket", "dir/k");
  EXPECT_EQ(t.host, "bucket.s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(t.path, "/dir/k");
  t = S3TargetOf("s3.amazonaws.com", false, "bucket", "");
  EXPECT_EQ(t.path, "/");
  t = S3TargetOf("s3.amazonaws.com", true, "bucket", "");
  EXPECT_EQ(t.path, "/bucket");
  t = S3TargetOf("s3.amazonaws.com", false, "my.dotted.bucket", "k");
  EXPECT_EQ(t.host, "s3.amazonaws.com");
  EXPECT_EQ(t.path, "/my.dotted.bucket/k");
}

TEST(S3TransportTest, EndpointMustBeHttpHostPort) {
  S3Config c = TransportTestConfig(1);
  c.endpoint = "ftp://host";
  EXPECT_EQ(S3Client::Create(c).status().code(), base::StatusCode::kInvalidArgument);
  c.endpoint = "http://host/path";
  EXPECT_EQ(S3Client::Create(c).status().code(), base::StatusCode::kInvalidArgument);
}

// An S3 error answer with `status` and S3 error `code`.
std::string TransportErrorAnswer(const std::string& status, const std::string& code) {
  const std::string body = "<Error><Code>" + code + "</Code><Message>canned</Message></Error>";
  return "HTTP/1.1 " + status + "\r\nContent-Type: application/xml\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

TEST(S3TransportTest, BatchDeleteRefusedAsGcsDoesFallsBackToOneDeletePerKeyForGood) {
  // Every request is refused: the batch once, then each key's DELETE once (400 is final).
  CannedAnswerServer server(TransportErrorAnswer("400 Bad Request", "InvalidArgument"));
  auto client = S3Client::Create(TransportTestConfig(server.port()));
  ASSERT_TRUE(client.ok());
  const base::Status st = (*client)->DeleteMany("bucket", {"dir/a", "dir/b"});
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("one DELETE per key"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("2 of 2 keys not deleted: dir/a (HTTP 400 InvalidArgument"),
            std::string::npos)
      << st.message();
  EXPECT_TRUE((*client)->BatchDeleteRefused());
  EXPECT_EQ(server.accepted(), 3);
  EXPECT_FALSE((*client)->DeleteMany("bucket", {"dir/c"}).ok());
  EXPECT_EQ(server.accepted(), 4);  // no second batch request
}

TEST(S3TransportTest, CompleteAnswered200WithAnInternalErrorIsRetriedThenNamed) {
  CannedAnswerServer server(TransportErrorAnswer("200 OK", "InternalError"));
  auto client = S3Client::Create(TransportTestConfig(server.port()));
  ASSERT_TRUE(client.ok());
  const base::Status st = (*client)->CompleteMultipartUpload(
      "bucket", "dir/key", "upload-7", {"\"900150983cd24fb0d6963f7d28e17f72\""});
  ASSERT_EQ(st.code(), base::StatusCode::kIOError) << st.ToString();
  const std::string& m = st.message();
  EXPECT_NE(m.find("s3://bucket/dir/key: HTTP 200 InternalError"), std::string::npos) << m;
  EXPECT_NE(m.find("after 3 attempts"), std::string::npos) << m;
  EXPECT_NE(m.find("upload id upload-7"), std::string::npos) << m;
  EXPECT_EQ(server.accepted(), 3);
}

}  // namespace
}  // namespace ckpt::s3
