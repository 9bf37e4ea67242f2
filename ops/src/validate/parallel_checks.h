// Private to ckpt::ops: validate's checks of independent items (files, operators) on several
// threads, with the answer of one thread. Each item is checked into a report of its own; the
// reports are joined in item order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string_view>
#include <vector>

#include "ckpt/base/progress.h"
#include "ckpt/base/status.h"
#include "validate/validate_internal.h"

namespace ckpt::ops::internal {

// Progress of work shared by several threads: the caller's Progress, called one report at a time.
class SharedProgress {
 public:
  // `total`: what Add counts towards (0: unknown).
  SharedProgress(const base::Progress& parent, uint64_t total) : parent_(parent), total_(total) {}
  SharedProgress(const SharedProgress&) = delete;
  SharedProgress& operator=(const SharedProgress&) = delete;

  // Adds `n` to what is done and reports it.
  void Add(uint64_t n, std::string_view what);
  // A Progress for the threads' own reports (each passed on as it is, one at a time) and the
  // caller's cancellation. Valid while this object lives.
  base::Progress ForThreads();

 private:
  const base::Progress& parent_;
  const uint64_t total_;
  std::mutex mu_;
  uint64_t done_ = 0;
};

// Runs check(item_ctx, i) for every i in [0, n) on up to ParallelWorkers(n) threads (the caller's
// among them). item_ctx reads ctx's filesystem and options, reports progress through `progress`
// and has a report of its own; the reports are appended to ctx's in index order (findings,
// checked and unchecked rules, counters), so the answer is that of one thread. After a check
// fails (cancelled, I/O error) no further item is started, and the failure of the lowest index
// is returned. `start_order` (a permutation of [0, n), or empty for index order) is the order in
// which items are started, e.g. largest first so that one big item does not run alone at the end;
// it does not change the answer.
base::Status RunParallelChecks(ValidateContext& ctx, size_t n, const base::Progress& progress,
                               const std::function<base::Status(ValidateContext&, size_t)>& check,
                               const std::vector<size_t>& start_order = {});

// How many items are checked at once: twice the cores (reads from a remote store wait on the
// network more than on the CPU), at most 16, at most one thread an item.
size_t ParallelWorkers(size_t items);

// Appends `from` (findings, checked rules, not-checked notes, counters) to `to`, in order.
void AppendReport(ValidateReport&& from, ValidateReport& to);

}  // namespace ckpt::ops::internal
