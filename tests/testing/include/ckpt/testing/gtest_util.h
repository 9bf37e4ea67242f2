// GoogleTest helpers for Status and Result, in the style of Arrow's gtest_util.h.
#pragma once

#include <gtest/gtest.h>

#include "ckpt/base/result.h"
#include "ckpt/base/status.h"

namespace ckpt::testing {
inline const ::ckpt::base::Status& ToStatus(const ::ckpt::base::Status& s) { return s; }
template <typename T>
const ::ckpt::base::Status& ToStatus(const ::ckpt::base::Result<T>& r) {
  return r.status();
}
}  // namespace ckpt::testing

// The Status is copied out while `expr`'s temporaries are alive, so ASSERT_OK(F().status())
// never holds a reference into a destroyed Result.
#define ASSERT_OK(expr)                                                                 \
  do {                                                                                  \
    const ::ckpt::base::Status _ckpt_s = ::ckpt::testing::ToStatus((expr));             \
    ASSERT_TRUE(_ckpt_s.ok()) << #expr << " -> " << _ckpt_s.ToString();                 \
  } while (0)
#define EXPECT_OK(expr)                                                                 \
  do {                                                                                  \
    const ::ckpt::base::Status _ckpt_s = ::ckpt::testing::ToStatus((expr));             \
    EXPECT_TRUE(_ckpt_s.ok()) << #expr << " -> " << _ckpt_s.ToString();                 \
  } while (0)

// ASSERT_OK_AND_ASSIGN(auto x, Foo());
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(CKPT_CONCAT_(_ckpt_t_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)                          \
  auto tmp = (expr);                                                        \
  ASSERT_TRUE(tmp.ok()) << #expr << " -> " << tmp.status().ToString();      \
  lhs = std::move(tmp).value()

// Asserts a Status/Result failed with `code` (a ckpt::base::StatusCode enumerator name, e.g.
// kCorruption) and that its message contains `needle` (for instance the file's path).
#define ASSERT_STATUS(expr, status_code, needle)                                          \
  do {                                                                             \
    const ::ckpt::base::Status _ckpt_s = ::ckpt::testing::ToStatus((expr));        \
    ASSERT_EQ(_ckpt_s.code(), ::ckpt::base::StatusCode::status_code) << _ckpt_s.ToString(); \
    ASSERT_NE(_ckpt_s.message().find(needle), std::string::npos)                  \
        << "message does not mention '" << (needle) << "': " << _ckpt_s.ToString(); \
  } while (0)
