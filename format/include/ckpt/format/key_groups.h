// Key groups: how keyed state is partitioned and assigned to subtasks (FORMAT.md "Key groups").
// Key → group by murmur3 of the key's encoded bytes; subtask i of p owns a contiguous range, as in
// Flink's KeyGroupRangeAssignment. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "ckpt/base/status.h"

namespace ckpt::format {

// Largest max parallelism (number of key groups), as in Flink.
inline constexpr uint32_t kUpperBoundMaxParallelism = 32768;
inline constexpr uint32_t kDefaultLowerBoundMaxParallelism = 128;

// Inclusive range [start, end]; empty when start > end.
struct KeyGroupRange {
  uint32_t start = 0;
  uint32_t end = 0;
  bool empty() const { return start > end; }
  uint32_t size() const { return empty() ? 0 : end - start + 1; }
  bool Contains(uint32_t g) const { return g >= start && g <= end; }
  bool operator==(const KeyGroupRange&) const = default;
};

// The key group of a key: (first 8 bytes, little-endian, of murmur3_x64_128(encoded key, seed 0))
// mod max_parallelism. Requires max_parallelism > 0.
uint32_t KeyGroupForKey(std::string_view encoded_key, uint32_t max_parallelism);

// Key groups owned by `subtask` of `parallelism`:
// [ceil(i*maxP/p), ceil((i+1)*maxP/p) - 1]. Requires 0 < parallelism <= max_parallelism.
KeyGroupRange RangeForSubtask(uint32_t max_parallelism, uint32_t parallelism, uint32_t subtask);

// The subtask that owns `key_group`: key_group * p / maxP.
uint32_t SubtaskForKeyGroup(uint32_t max_parallelism, uint32_t parallelism, uint32_t key_group);

// Flink's default: round_up_to_power_of_two(p * 1.5), clamped to [128, 32768].
uint32_t DefaultMaxParallelism(uint32_t parallelism);

// InvalidArgument unless 0 < max_parallelism <= 32768 and 0 < parallelism <= max_parallelism.
base::Status CheckParallelism(uint32_t parallelism, uint32_t max_parallelism);

}  // namespace ckpt::format
