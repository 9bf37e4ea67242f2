#include "ckpt/format/key_groups.h"

#include <algorithm>
#include <string>

#include "ckpt/base/murmur3.h"

namespace ckpt::format {

uint32_t KeyGroupForKey(std::string_view encoded_key, uint32_t max_parallelism) {
  return static_cast<uint32_t>(base::Murmur3X64_64(encoded_key, 0) % max_parallelism);
}

KeyGroupRange RangeForSubtask(uint32_t max_parallelism, uint32_t parallelism, uint32_t subtask) {
  // 64-bit products: maxP and p are at most 32768, the index below p.
  const uint64_t maxp = max_parallelism;
  const uint64_t p = parallelism;
  const uint64_t i = subtask;
  KeyGroupRange r;
  r.start = static_cast<uint32_t>((i * maxp + p - 1) / p);
  r.end = static_cast<uint32_t>(((i + 1) * maxp - 1) / p);
  return r;
}

uint32_t SubtaskForKeyGroup(uint32_t max_parallelism, uint32_t parallelism, uint32_t key_group) {
  return static_cast<uint32_t>(uint64_t{key_group} * parallelism / max_parallelism);
}

uint32_t DefaultMaxParallelism(uint32_t parallelism) {
  uint64_t want = uint64_t{parallelism} + parallelism / 2;  // p * 1.5, rounded down as Flink
  uint64_t pow2 = 1;
  while (pow2 < want) pow2 <<= 1;
  return static_cast<uint32_t>(
      std::clamp<uint64_t>(pow2, kDefaultLowerBoundMaxParallelism, kUpperBoundMaxParallelism));
}

base::Status CheckParallelism(uint32_t parallelism, uint32_t max_parallelism) {
  if (max_parallelism == 0 || max_parallelism > kUpperBoundMaxParallelism) {
    return base::Status::InvalidArgument("max parallelism " + std::to_string(max_parallelism) +
                                         " is outside [1, 32768]");
  }
  if (parallelism == 0 || parallelism > max_parallelism) {
    return base::Status::InvalidArgument("parallelism " + std::to_string(parallelism) +
                                         " is outside [1, max parallelism " +
                                         std::to_string(max_parallelism) + "]");
  }
  return base::Status::OK();
}

}  // namespace ckpt::format
