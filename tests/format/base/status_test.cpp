#include "ckpt/base/status.h"

#include <gtest/gtest.h>

#include "ckpt/base/result.h"

namespace ckpt::base {
namespace {

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ToStringNamesCodeAndMessage) {
  EXPECT_EQ(Status::Corruption("bad magic in /x/_metadata").ToString(),
            "Corruption: bad magic in /x/_metadata");
}

TEST(StatusTest, WithContextPrefixesMessageAndKeepsCode) {
  Status s = Status::NotFound("no such file").WithContext("chk-3");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "chk-3: no such file");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  CKPT_ASSIGN_OR_RETURN(int h, Half(x));
  CKPT_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(ResultTest, AssignOrReturnPropagates) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST(ResultTest, ResultFromOkStatusIsAnInternalError) {
  Result<int> r = Status::OK();
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace ckpt::base
