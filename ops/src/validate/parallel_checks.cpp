// validate's checks of independent items on several threads (parallel_checks.h).
#include "validate/parallel_checks.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ckpt::ops::internal {

void SharedProgress::Add(uint64_t n, std::string_view what) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ += n;
  parent_.Report(done_, total_, what);
}

base::Progress SharedProgress::ForThreads() {
  return {[this](uint64_t done, uint64_t total, std::string_view what) {
            std::lock_guard<std::mutex> lock(mu_);
            parent_.Report(done, total, what);
          },
          parent_.cancel};
}

size_t ParallelWorkers(size_t items) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min({items, 2 * cores, size_t{16}}));
}

base::Status RunParallelChecks(ValidateContext& ctx, size_t n, const base::Progress& progress,
                               const std::function<base::Status(ValidateContext&, size_t)>& check,
                               const std::vector<size_t>& start_order) {
  std::vector<ValidateReport> reports(n);
  std::vector<base::Status> statuses(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  const auto work = [&] {
    for (size_t k = next++; k < n && !stop.load(); k = next++) {
      const size_t i = start_order.empty() ? k : start_order[k];
      ValidateContext item_ctx(ctx.fs(), ctx.options(), progress, &reports[i]);
      statuses[i] = check(item_ctx, i);
      if (!statuses[i].ok()) stop = true;
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < ParallelWorkers(n); ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  ValidateReport& to = ctx.report();
  for (size_t i = 0; i < n; ++i) {
    if (!statuses[i].ok()) return statuses[i];
    AppendReport(std::move(reports[i]), to);
  }
  return base::Status::OK();
}

void AppendReport(ValidateReport&& from, ValidateReport& to) {
  std::move(from.findings.begin(), from.findings.end(), std::back_inserter(to.findings));
  std::move(from.checked_rules.begin(), from.checked_rules.end(),
            std::back_inserter(to.checked_rules));
  std::move(from.not_checked.begin(), from.not_checked.end(), std::back_inserter(to.not_checked));
  to.files_checked += from.files_checked;
  to.bytes_checked += from.bytes_checked;
  to.records_checked += from.records_checked;
}

}  // namespace ckpt::ops::internal
