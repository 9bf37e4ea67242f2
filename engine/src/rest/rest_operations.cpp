// Asynchronous operations of the REST API.
#include "rest/rest_operations.h"

#include <chrono>
#include <cstdio>
#include <random>

namespace ckpt::engine::rest {

std::string NewTriggerId() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng()));
  return buf;
}

Operations::~Operations() { JoinAll(); }

base::Result<std::string> Operations::Start(const std::string& kind, std::string trigger_id,
                                            std::function<base::Result<nlohmann::json>()> work) {
  if (trigger_id.empty()) trigger_id = NewTriggerId();
  std::vector<std::thread> ended;
  std::unique_lock<std::mutex> lock(mu_);
  // A client triggering operations in a loop must not pile up finished threads.
  ended = TakeEndedThreads();
  if (ops_.count(trigger_id) != 0) {
    lock.unlock();
    for (std::thread& t : ended) t.join();
    return base::Status::AlreadyExists("an operation with trigger id " + trigger_id +
                                       " already exists");
  }
  ops_[trigger_id].kind = kind;
  threads_.emplace_back(trigger_id, std::thread([this, trigger_id, work = std::move(work)] {
    base::Result<nlohmann::json> r = work();
    std::lock_guard<std::mutex> l(mu_);
    Op& op = ops_[trigger_id];
    op.done = true;
    if (r.ok()) {
      op.result = std::move(*r);
    } else {
      op.failure = r.status();
    }
    cv_.notify_all();
  }));
  lock.unlock();
  for (std::thread& t : ended) t.join();
  return trigger_id;
}

std::vector<std::thread> Operations::TakeEndedThreads() {
  std::vector<std::thread> ended;
  auto keep = threads_.begin();
  for (auto it = threads_.begin(); it != threads_.end(); ++it) {
    if (ops_[it->first].done) {
      ended.push_back(std::move(it->second));
    } else {
      if (keep != it) *keep = std::move(*it);  // a running thread never moves onto itself
      ++keep;
    }
  }
  threads_.erase(keep, threads_.end());
  return ended;
}

std::optional<nlohmann::json> Operations::Status(const std::string& kind,
                                                 const std::string& trigger_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(trigger_id);
  if (it == ops_.end() || it->second.kind != kind) return std::nullopt;
  Op& op = it->second;
  if (op.done && !op.collected) {
    op.collected = true;
    cv_.notify_all();
  }
  if (!op.done) return nlohmann::json{{"status", {{"id", "IN_PROGRESS"}}}, {"operation", nullptr}};
  nlohmann::json operation = op.result;
  if (!op.failure.ok()) {
    // Flink's SerializedThrowable without the Java-serialized bytes, which only a JVM could
    // produce: the class and the message.
    operation = {{"failure-cause",
                  {{"class", "ckpt.engine." + std::string(base::StatusCodeName(op.failure.code()))},
                   {"stack-trace", op.failure.ToString()}}}};
  }
  return nlohmann::json{{"status", {{"id", "COMPLETED"}}}, {"operation", operation}};
}

bool Operations::WaitCollected(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    for (const auto& [id, op] : ops_) {
      if (!op.done || !op.collected) return false;
    }
    return true;
  });
}

void Operations::JoinAll() {
  std::vector<std::pair<std::string, std::thread>> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
  }
  for (auto& [id, t] : threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace ckpt::engine::rest
