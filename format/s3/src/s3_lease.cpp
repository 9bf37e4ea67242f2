// S3 leases: see s3_lease.h.
#include "s3_lease.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <random>
#include <thread>

namespace ckpt::s3 {
namespace {

int64_t LeaseNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "2026-12-07T14:20:00Z" for a message.
std::string LeaseUtc(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string LeaseOwnerToken() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device rd;
  std::mt19937_64 rng((uint64_t{rd()} << 32) ^ rd());
  static const char kHex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 16; ++i) token += kHex[rng() & 15];
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + token;
}

class S3LeaseLock : public base::FileLock {
 public:
  S3LeaseLock(S3Client& client, S3Location loc, std::string path, std::string owner,
              int64_t ttl_ms)
      : client_(client), loc_(std::move(loc)), path_(std::move(path)), owner_(std::move(owner)),
        ttl_ms_(ttl_ms) {
    renewer_ = std::thread([this] { Renew(); });
  }

  ~S3LeaseLock() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    renewer_.join();
    // Deletes the lease only while it is still ours (best effort: an expired one is left).
    base::Result<std::string> body = client_.Get(loc_.bucket, loc_.key, 4096);
    if (!body.ok()) return;
    base::Result<S3Lease> lease = ParseS3Lease(*body, path_);
    if (lease.ok() && lease->owner == owner_) client_.Delete(loc_.bucket, loc_.key).IgnoreError();
  }

  const std::string& path() const override { return path_; }

 private:
  // Every third of the time to live: rewrites the expiry while the object still names us. A
  // failed renewal is retried at the next period (the client already retried it); a lease
  // another holder took over is never written again.
  void Renew() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(ttl_ms_ / 3, 1)));
      if (stop_) return;
      lock.unlock();
      base::Result<std::string> body = client_.Get(loc_.bucket, loc_.key, 4096);
      bool lost = false;
      if (body.ok()) {
        base::Result<S3Lease> lease = ParseS3Lease(*body, path_);
        lost = !lease.ok() || lease->owner != owner_;
      } else {
        lost = body.status().IsNotFound();
      }
      if (!lost) {
        client_.Put(loc_.bucket, loc_.key, FormatS3Lease({owner_, LeaseNowMs() + ttl_ms_}))
            .IgnoreError();
      }
      lock.lock();
      if (lost) return;
    }
  }

  S3Client& client_;
  const S3Location loc_;
  const std::string path_;
  const std::string owner_;
  const int64_t ttl_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread renewer_;
};

}  // namespace

std::string FormatS3Lease(const S3Lease& lease) {
  return "owner=" + lease.owner + "\nexpires_ms=" + std::to_string(lease.expires_ms) + "\n";
}

base::Result<S3Lease> ParseS3Lease(std::string_view text, const std::string& where) {
  S3Lease lease;
  bool has_owner = false, has_expiry = false;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.rfind("owner=", 0) == 0 && line.size() > 6) {
      lease.owner = std::string(line.substr(6));
      has_owner = true;
    } else if (line.rfind("expires_ms=", 0) == 0) {
      const std::string digits(line.substr(11));
      if (digits.empty() || digits.size() > 18 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        return base::Status::Corruption(where + ": not a lease: expires_ms '" + digits +
                                        "' is not a number");
      }
      lease.expires_ms = std::stoll(digits);
      has_expiry = true;
    } else if (!line.empty()) {
      return base::Status::Corruption(where + ": not a lease: unexpected line '" +
                                      std::string(line.substr(0, 64)) + "'");
    }
  }
  if (!has_owner || !has_expiry) {
    return base::Status::Corruption(where + ": not a lease: owner= and expires_ms= lines are "
                                    "required");
  }
  return lease;
}

base::Result<std::unique_ptr<base::FileLock>> TryTakeS3Lease(S3Client& client, S3Location loc,
                                                             const std::string& path,
                                                             int64_t ttl_ms) {
  if (loc.key.empty()) return base::Status::InvalidArgument(path + ": cannot lock a bucket");
  base::Result<std::string> current = client.Get(loc.bucket, loc.key, 4096);
  bool free = false;
  if (current.status().IsNotFound()) {
    free = true;
  } else if (!current.ok()) {
    return current.status().WithContext("reading the lease " + path);
  } else if (!current->empty()) {  // empty: a lock file a POSIX engine left (flock, no lease)
    base::Result<S3Lease> held = ParseS3Lease(*current, path);
    if (!held.ok()) {
      return base::Status::FailedPrecondition(held.status().message() +
                                              "; remove it with the store's tools if no "
                                              "process holds it");
    }
    const int64_t now = LeaseNowMs();
    if (held->expires_ms > now) {
      return base::Status::FailedPrecondition(
          path + " is locked by another process: leased by " + held->owner + " until " +
          LeaseUtc(held->expires_ms) + " (renewed while it runs)");
    }
  }
  const std::string owner = LeaseOwnerToken();
  const std::string body = FormatS3Lease({owner, LeaseNowMs() + ttl_ms});
  base::Status put = client.Put(loc.bucket, loc.key, body, /*if_none_match=*/free);
  if (put.code() == base::StatusCode::kUnimplemented) put = client.Put(loc.bucket, loc.key, body);
  if (put.code() == base::StatusCode::kAlreadyExists) {
    return base::Status::FailedPrecondition(path + " is locked by another process (it took the "
                                            "lease first)");
  }
  CKPT_RETURN_IF_ERROR_CTX(put, "writing the lease " + path);
  // On a store that ignores If-None-Match, the last of two racing writers wins: read back.
  base::Result<std::string> back = client.Get(loc.bucket, loc.key, 4096);
  CKPT_RETURN_IF_ERROR_CTX(back.status(), "reading back the lease " + path);
  base::Result<S3Lease> mine = ParseS3Lease(*back, path);
  if (!mine.ok() || mine->owner != owner) {
    return base::Status::FailedPrecondition(path + " is locked by another process (" +
                                            (mine.ok() ? mine->owner : std::string("unknown")) +
                                            " took the lease at the same time)");
  }
  return std::unique_ptr<base::FileLock>(
      std::make_unique<S3LeaseLock>(client, std::move(loc), path, owner, ttl_ms));
}

}  // namespace ckpt::s3
