// Bounds on what a reader allocates from counts it read from a file: the one rule every reader
// applies before sizing a container from such a count (parallelism and key groups have their own,
// stricter rule: format::CheckParallelism), so a hostile value yields a clean error or finding
// instead of std::bad_alloc. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "ckpt/base/status.h"

namespace ckpt::base {

// Most entries a reader allocates for one table sized by counts read from a file (not by bytes
// it holds): a few hundred bytes per entry keeps such a table within a few hundred MiB.
inline constexpr uint64_t kMaxEntriesFromFile = uint64_t{1} << 20;

// OK when `count` <= `limit`. Otherwise Corruption: "<where>: <what> <count> exceeds the
// bound of <limit>".
Status CheckCountFromFile(uint64_t count, uint64_t limit, std::string_view what,
                          std::string_view where);

// Whether `a * b` <= `limit`, computed without overflow.
constexpr bool ProductWithin(uint64_t a, uint64_t b, uint64_t limit) {
  return a == 0 || b <= limit / a;
}

}  // namespace ckpt::base
