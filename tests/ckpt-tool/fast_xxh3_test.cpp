// Tests of FastXxh3 (ckpt-tool/src/ops/fast_xxh3.cpp): the dispatching hash equals base::Xxh3.
#include "ops/fast_xxh3.h"

#include <gtest/gtest.h>

#include <string>

#include "ckpt/base/checksum.h"

namespace ckpt::ops::internal {
namespace {

TEST(FastXxh3Test, MatchesBaseXxh3ForAnySplit) {
  std::string data;
  for (int i = 0; i < 300000; ++i) data.push_back(static_cast<char>((i * 131) ^ (i >> 7)));
  for (size_t len : {size_t{0}, size_t{1}, size_t{17}, size_t{240}, size_t{241}, size_t{4096},
                     data.size()}) {
    const std::string_view part(data.data(), len);
    for (size_t step : {size_t{1} << 20, size_t{1000}, size_t{64}}) {
      FastXxh3 h;
      for (size_t at = 0; at < len; at += step) h.Update(part.substr(at, step));
      EXPECT_EQ(h.Digest(), base::Xxh3(part)) << "len " << len << " step " << step;
    }
  }
}

}  // namespace
}  // namespace ckpt::ops::internal
