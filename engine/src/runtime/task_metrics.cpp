// TaskMetricsGroup: reading the task slots and the rates over retained samples.
#include "task_metrics.h"

#include <algorithm>
#include <chrono>

namespace ckpt::engine::runtime {

TaskMetricsGroup::TaskMetricsGroup(uint32_t attempt) : attempt_(attempt) {
  samples_.push_back({NowNs(), {}});
}

int64_t TaskMetricsGroup::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

TaskMetrics* TaskMetricsGroup::Add(std::string vertex_id, std::string vertex_name,
                                   uint32_t subtask, uint32_t num_inputs) {
  auto m = std::make_unique<TaskMetrics>();
  m->vertex_id = std::move(vertex_id);
  m->vertex_name = std::move(vertex_name);
  m->subtask = subtask;
  m->num_inputs = num_inputs;
  slots_.push_back(std::move(m));
  return slots_.back().get();
}

std::vector<SubtaskTaskMetrics> TaskMetricsGroup::Sample() {
  constexpr auto kRelaxed = std::memory_order_relaxed;
  const int64_t now = NowNs();
  std::vector<SubtaskTaskMetrics> out;
  std::vector<Counters> counters;
  out.reserve(slots_.size());
  counters.reserve(slots_.size());
  for (const auto& slot : slots_) {
    const TaskMetrics& m = *slot;
    SubtaskTaskMetrics s;
    s.vertex_id = m.vertex_id;
    s.vertex_name = m.vertex_name;
    s.subtask = m.subtask;
    s.attempt = attempt_;
    Counters c;
    c.records_in = m.hot.records_in.load(kRelaxed);
    c.records_out = m.hot.records_out.load(kRelaxed);
    c.bytes_in = m.hot.bytes_in.load(kRelaxed);
    c.bytes_out = m.hot.bytes_out.load(kRelaxed);
    c.idle_ns = m.hot.idle_ns.load(kRelaxed);
    c.backpressured_ns = m.hot.backpressured_ns.load(kRelaxed);
    const int64_t start = m.hot.start_ns.load(kRelaxed);
    const int64_t end = m.hot.end_ns.load(kRelaxed);
    s.running = start != 0 && end == 0;
    // Busy: the time the loop ran minus its waits. The wait a task is in now is counted when it
    // returns (waits last at most a few ms: the task wakes for its periodic checks).
    if (start != 0) {
      c.busy_ns = std::max<int64_t>(0, (end != 0 ? end : now) - start - c.idle_ns -
                                           c.backpressured_ns);
    }
    s.records_in = c.records_in;
    s.records_out = c.records_out;
    s.bytes_in = c.bytes_in;
    s.bytes_out = c.bytes_out;
    s.idle_ms = c.idle_ns / 1'000'000;
    s.backpressured_ms = c.backpressured_ns / 1'000'000;
    s.busy_ms = c.busy_ns / 1'000'000;
    s.input_watermark = m.cold.input_watermark.load(kRelaxed);
    for (uint32_t i = 0; i < std::min(m.num_inputs, kMaxMeteredInputs); ++i) {
      s.input_watermarks.push_back(m.cold.input_watermarks[i].load(kRelaxed));
    }
    s.output_watermark = m.cold.output_watermark.load(kRelaxed);
    s.checkpoint_id = m.cold.checkpoint_id.load(kRelaxed);
    s.checkpoint_start_delay_ns = m.cold.checkpoint_start_delay_ns.load(kRelaxed);
    s.checkpoint_alignment_ns = m.cold.checkpoint_alignment_ns.load(kRelaxed);
    out.push_back(std::move(s));
    counters.push_back(c);
  }

  std::lock_guard<std::mutex> lock(mu_);
  // The base of the rates: the newest sample at least kRateWindowMinNs old, else the oldest
  // (the zeros at the attempt's start).
  const Retained* base = &samples_.front();
  for (auto it = samples_.rbegin(); it != samples_.rend(); ++it) {
    if (now - it->at_ns >= kRateWindowMinNs) {
      base = &*it;
      break;
    }
  }
  const double secs = static_cast<double>(now - base->at_ns) / 1e9;
  if (secs > 0) {
    for (size_t i = 0; i < out.size(); ++i) {
      const Counters b = i < base->tasks.size() ? base->tasks[i] : Counters{};
      const Counters& c = counters[i];
      SubtaskTaskMetrics& s = out[i];
      auto rate = [secs](auto now_value, auto base_value) {
        return static_cast<double>(now_value - base_value) / secs;
      };
      s.records_in_per_s = rate(c.records_in, b.records_in);
      s.records_out_per_s = rate(c.records_out, b.records_out);
      s.bytes_in_per_s = rate(c.bytes_in, b.bytes_in);
      s.bytes_out_per_s = rate(c.bytes_out, b.bytes_out);
      s.idle_ms_per_s = std::clamp(rate(c.idle_ns, b.idle_ns) / 1e6, 0.0, 1000.0);
      s.backpressured_ms_per_s =
          std::clamp(rate(c.backpressured_ns, b.backpressured_ns) / 1e6, 0.0, 1000.0);
      s.busy_ms_per_s = std::clamp(rate(c.busy_ns, b.busy_ns) / 1e6, 0.0, 1000.0);
    }
  }
  if (now - samples_.back().at_ns >= kSampleEveryNs) {
    samples_.push_back({now, std::move(counters)});
  }
  while (samples_.size() > 1 && now - samples_[1].at_ns >= kRateWindowMaxNs) samples_.pop_front();
  return out;
}

}  // namespace ckpt::engine::runtime
