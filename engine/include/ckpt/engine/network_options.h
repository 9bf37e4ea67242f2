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
  // Subtasks of one task sharing a channel-state file of an unaligned checkpoint
  // (execution.checkpointing.unaligned.max-subtasks-per-channel-state-file). Default: 5.
  uint32_t max_subtasks_per_channel_state_file = 5;
};

}  // namespace ckpt::engine
