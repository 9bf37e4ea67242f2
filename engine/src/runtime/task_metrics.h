// TaskMetrics: one subtask's I/O and time metrics (Flink's task metric group), written by its
// task thread only, with relaxed atomic stores, and read by any thread. The task counts in plain
// members and publishes here where it stops anyway: at its periodic checks (CheckCadence), before
// it waits, at each checkpoint and when it ends. No read-modify-write, no lock and no clock read
// per record; wait time is measured around the waits themselves (TaskInbox::Poll).
// TaskMetricsGroup: the slots of one attempt's tasks, and the samples the rates are computed
// from. Add before the tasks run; Sample from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/record.h"

namespace ckpt::engine::runtime {

// Operator inputs with a watermark of their own (currentInput1Watermark, currentInput2Watermark).
inline constexpr uint32_t kMaxMeteredInputs = 2;

struct TaskMetrics {
  // Set before the task runs.
  std::string vertex_id;
  std::string vertex_name;
  uint32_t subtask = 0;
  uint32_t num_inputs = 0;

  // What changes while records flow: one cache line of its own, written by the task thread.
  struct alignas(64) Hot {
    std::atomic<uint64_t> records_in{0};
    std::atomic<uint64_t> records_out{0};
    std::atomic<uint64_t> bytes_in{0};
    std::atomic<uint64_t> bytes_out{0};
    std::atomic<int64_t> idle_ns{0};
    std::atomic<int64_t> backpressured_ns{0};
    // Steady clock (ns) when the task's loop started and ended (0: not yet).
    std::atomic<int64_t> start_ns{0};
    std::atomic<int64_t> end_ns{0};
  } hot;

  // What changes at watermarks and checkpoints.
  struct alignas(64) Cold {
    std::atomic<int64_t> input_watermark{kNoTimestamp};
    std::atomic<int64_t> input_watermarks[kMaxMeteredInputs] = {kNoTimestamp, kNoTimestamp};
    std::atomic<int64_t> output_watermark{kNoTimestamp};
    std::atomic<int64_t> checkpoint_id{-1};
    std::atomic<int64_t> checkpoint_start_delay_ns{0};
    std::atomic<int64_t> checkpoint_alignment_ns{0};
  } cold;
};

class TaskMetricsGroup {
 public:
  // Rates are taken over the interval back to the newest sample at least this old...
  static constexpr int64_t kRateWindowMinNs = 5'000'000'000;
  // ...and samples older than this are dropped (Flink's MeterView: 60 s).
  static constexpr int64_t kRateWindowMaxNs = 60'000'000'000;
  // A Sample call retains a new sample at most this often.
  static constexpr int64_t kSampleEveryNs = 1'000'000'000;

  explicit TaskMetricsGroup(uint32_t attempt);

  // A slot for a task (before the tasks run; stable address).
  TaskMetrics* Add(std::string vertex_id, std::string vertex_name, uint32_t subtask,
                   uint32_t num_inputs);
  uint32_t attempt() const { return attempt_; }

  // Every slot's values now, with rates against an earlier sample. Thread-safe.
  std::vector<SubtaskTaskMetrics> Sample();

  static int64_t NowNs();

 private:
  struct Counters {
    uint64_t records_in = 0, records_out = 0, bytes_in = 0, bytes_out = 0;
    int64_t idle_ns = 0, backpressured_ns = 0, busy_ns = 0;
  };
  struct Retained {
    int64_t at_ns = 0;
    std::vector<Counters> tasks;
  };

  const uint32_t attempt_;
  std::vector<std::unique_ptr<TaskMetrics>> slots_;
  std::mutex mu_;
  std::deque<Retained> samples_;  // oldest first; the first is all zeros at creation
};

}  // namespace ckpt::engine::runtime
