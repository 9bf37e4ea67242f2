// Bounds on what a reader allocates for a table sized by a product of counts read from a file
// (the channels between two operators' subtasks), so a hostile value yields a clean answer
// instead of std::bad_alloc. A single parallelism or key-group count has its own, stricter
// rule: format::CheckParallelism. Pure; thread-safe.
#pragma once

#include <cstdint>

namespace ckpt::base {

// Most entries a reader allocates for one table sized by counts read from a file (not by bytes
// it holds): a few hundred bytes per entry keeps such a table within a few hundred MiB.
inline constexpr uint64_t kMaxEntriesFromFile = uint64_t{1} << 20;

// Whether `a * b` <= `limit`, computed without overflow.
constexpr bool ProductWithin(uint64_t a, uint64_t b, uint64_t limit) {
  return a == 0 || b <= limit / a;
}

}  // namespace ckpt::base
