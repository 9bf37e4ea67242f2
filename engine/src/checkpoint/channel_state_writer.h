// Channel state of unaligned checkpoints: the in-flight buffers a subtask captured (input
// channels and output subpartitions), written in the async phase into CHANNEL_STATE containers
// that up to `max_subtasks_per_file` subtasks of one task share (Flink's
// execution.checkpointing.unaligned.max-subtasks-per-channel-state-file, default 5).
// Subtasks s with s / max = g share file g: `<head operator id>-channel-state-<g>.state`.
// Each member contributes its buffers once; the last member of the group writes the file —
// writes to a file are serialized, one section per subtask in subtask order (section id = the
// subtask index, FORMAT.md §2), one record per buffer, stored verbatim — and every member's
// callback receives its handles (slices with file_index 0 = the shared file) and the file entry.
// Buffers are persisted as captured, never re-cut into frames: a frame that spans network buffers
// may begin in the consumer's input-channel state and end in the producer's output-subpartition
// state of the same logical channel, and readers and restore rejoin the two (FORMAT.md §8), so
// the barrier neither waits for the rest of a frame nor copies its start.
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/format/proto.h"

namespace ckpt::engine {

// Flink's default.
inline constexpr uint32_t kDefaultMaxSubtasksPerChannelStateFile = 5;

struct ChannelStateChannel {
  bool output = false;
  // Input: gate (operator input) and channel; output: partition (edge) and subpartition.
  uint32_t index_a = 0;
  uint32_t index_b = 0;
  std::vector<std::string_view> buffers;
};

struct ChannelStateResult {
  std::vector<pb::InputChannelStateHandle> input;
  std::vector<pb::ResultSubpartitionStateHandle> output;
  // The shared file, when the group wrote one (slices refer to it as file_index 0).
  std::optional<pb::FileEntry> file;
  // In-flight payload bytes of this subtask.
  uint64_t persisted_bytes = 0;
  // Whether this subtask is the group's first member with data (it counts the file's size).
  bool counts_file = false;
};

struct ChannelStateContribution {
  uint32_t subtask = 0;
  std::vector<ChannelStateChannel> channels;
  // Owns the bytes `channels` point into until the file is written.
  std::shared_ptr<void> keep_alive;
  std::function<void(base::Result<ChannelStateResult>)> done;
};

class ChannelStateFileGroup {
 public:
  ChannelStateFileGroup(base::Fs* fs, CheckpointOptions options, std::string file_name,
                        uint32_t num_members);
  // The last contribution writes the file and calls every member's `done` (on this thread).
  void Contribute(ChannelStateContribution contribution);
  const std::string& file_name() const { return file_name_; }

 private:
  void WriteAndComplete(std::vector<ChannelStateContribution> members);

  base::Fs* fs_;
  const CheckpointOptions options_;
  const std::string file_name_;
  const uint32_t num_members_;
  std::mutex mu_;
  std::vector<ChannelStateContribution> members_;
};

// The groups of one job attempt, by checkpoint, task and group.
class ChannelStateFiles {
 public:
  explicit ChannelStateFiles(uint32_t max_subtasks_per_file)
      : max_per_file_(max_subtasks_per_file == 0 ? 1 : max_subtasks_per_file) {}

  // The group subtask `subtask` of `parallelism` of the task whose chain starts with
  // `head_operator_hex` writes into for `options`. Every subtask of that task asks with the
  // same head operator: the operator, not the subtask's runtime index, names the group (keyed
  // by the subtask, each group of N > 1 members waited forever for members that never came).
  std::shared_ptr<ChannelStateFileGroup> GroupFor(base::Fs* fs, const CheckpointOptions& options,
                                                  const std::string& head_operator_hex,
                                                  uint32_t subtask, uint32_t parallelism);
  // Drops the groups of `checkpoint_id` (aborted: their buffers are released with the last
  // reference).
  void Forget(int64_t checkpoint_id);
  uint32_t max_subtasks_per_file() const { return max_per_file_; }

 private:
  const uint32_t max_per_file_;
  std::mutex mu_;
  // By checkpoint, head operator (hex) and group.
  std::map<std::tuple<int64_t, std::string, uint32_t>, std::shared_ptr<ChannelStateFileGroup>>
      groups_;
};

}  // namespace ckpt::engine
