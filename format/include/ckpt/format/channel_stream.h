// The in-flight byte stream of one logical channel in the reference engine's unaligned
// checkpoints (FORMAT.md §8 "Channel state written by ckpt-engine"): the consumer's
// input-channel state, then the producer's output-subpartition state of the same (edge,
// upstream subtask, downstream subtask). Together they are whole frames; one frame may begin in
// the input part and end in the output part. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "ckpt/base/status.h"

namespace ckpt::format {

// One frame of a stream: where it begins (its header) and its element's bytes.
struct StreamFrameAt {
  size_t offset = 0;
  std::string_view element;
};

// Calls `visit` for every frame of `stream` that begins in [begin, end), in order; frames that
// begin before `begin` are walked over (their headers give their lengths) but not visited.
// A visited frame may extend beyond `end`. Stops at the first non-OK status of `visit` and
// returns it. Corruption when the stream ends inside a frame that begins before `end`; then
// `*failed_at` (if not null) is that frame's offset. Requires begin <= end <= stream.size().
base::Status ForEachStreamFrame(std::string_view stream, size_t begin, size_t end,
                                const std::function<base::Status(const StreamFrameAt&)>& visit,
                                size_t* failed_at = nullptr);

}  // namespace ckpt::format
