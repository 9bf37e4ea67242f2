// NetworkOptions: the reference engine's network stack per job (Flink's taskmanager.network.*
// and execution.checkpointing.unaligned.* options). Plain value type; every field documents its
// default.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ckpt::engine {

struct NetworkOptions {
  // Bytes per network buffer (Flink's memory segment). Default: 32 KiB. Records larger than a
  // buffer span buffers.
  size_t buffer_bytes = 32 * 1024;
  // Credits per input channel: buffers a channel holds before its upstream subpartition waits
  // (Flink's exclusive buffers per channel). Default: 2.
  uint32_t buffers_per_channel = 2;
  // Buffers a task's output pool lends beyond its size when one record needs more than are
  // free (taskmanager.network.memory.max-overdraft-buffers-per-gate). Default: 5.
  uint32_t max_overdraft_buffers_per_gate = 5;
  // A partly filled output buffer goes out at the latest this long after the task's last flush
  // (Flink's execution.buffer-timeout; lower for latency, higher for throughput). 0: after every
  // record. -1: only when full, or when the task waits with it (no input for a poll interval,
  // or no free output buffer: a backpressured task always sends it at once, for it may hold the
  // rest of a record its consumer has begun). Default: 5.
  int64_t buffer_timeout_ms = 5;
  // Subtasks of one task sharing a channel-state file of an unaligned checkpoint
  // (execution.checkpointing.unaligned.max-subtasks-per-channel-state-file). Default: 5.
  uint32_t max_subtasks_per_channel_state_file = 5;
  // Mode ALIGNED_WITH_TIMEOUT: a checkpoint whose alignment (or whose barrier waiting in an
  // output queue) is older than this, measured from its trigger, switches to unaligned
  // (execution.checkpointing.aligned-checkpoint-timeout). Default: 0 (Flink's: every checkpoint
  // switches at its first barrier).
  int64_t aligned_checkpoint_timeout_ms = 0;
  // Buffer debloating (FLIP-183, taskmanager.network.memory.buffer-debloat.*): each task sizes
  // its input channels' buffers to about `debloat_target_ms` of its measured throughput,
  // recomputed every `debloat_period_ms`, between `min_buffer_bytes` and `buffer_bytes`; the
  // upstream fills its buffers only up to the announced size. Default: off.
  bool debloat_enabled = false;
  // Default: 1000 (Flink's 1 s).
  int64_t debloat_target_ms = 1000;
  // Default: 200 (Flink's 200 ms).
  int64_t debloat_period_ms = 200;
  // Default: 256 (Flink's memory-segment minimum for debloating).
  size_t min_buffer_bytes = 256;
  // Throughput samples averaged (exponential moving average over about this many). Default: 20.
  uint32_t debloat_samples = 20;
  // A new size is announced only when it differs by more than this. Default: 25.
  uint32_t debloat_threshold_percent = 25;
};

}  // namespace ckpt::engine
