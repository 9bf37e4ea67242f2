// PrefaultForWrite is a hint: whatever the kernel does, the memory keeps its content, and
// ReservePrefaulted reserves like reserve().
#include "ckpt/base/prefault.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace ckpt::base {
namespace {

TEST(PrefaultTest, KeepsTheContentOfLargeAndSmallRanges) {
  std::vector<uint8_t> big(3 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  PrefaultForWrite(big.data() + 1, big.size() - 1);  // unaligned on purpose
  std::vector<uint8_t> small(100, 0xAB);
  PrefaultForWrite(small.data(), small.size());
  PrefaultForWrite(nullptr, 0);
  for (size_t i = 0; i < big.size(); ++i) ASSERT_EQ(big[i], static_cast<uint8_t>(i * 7)) << i;
  for (uint8_t b : small) ASSERT_EQ(b, 0xAB);
}

TEST(PrefaultTest, ReservePrefaultedReservesAndKeepsElements) {
  std::vector<uint64_t> v = {1, 2, 3};
  ReservePrefaulted(&v, 1 << 18);
  EXPECT_GE(v.capacity(), size_t{1} << 18);
  EXPECT_EQ(v, (std::vector<uint64_t>{1, 2, 3}));
  const uint64_t* data = v.data();
  ReservePrefaulted(&v, 10);  // already enough: no reallocation
  EXPECT_EQ(v.data(), data);
}

}  // namespace
}  // namespace ckpt::base
