// The digests S3 requests and answers carry: MD5 forms and the ETag of a multipart upload.
#include "ckpt/s3/crypto.h"

#include <gtest/gtest.h>

namespace ckpt::s3 {
namespace {

TEST(CryptoTest, Md5FormsOfAKnownInput) {
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Base64("abc"), "kAFQmDzST7DWlj99KOF/cg==");
}

TEST(CryptoTest, MultipartETagIsTheMd5OfThePartMd5sAndTheirCount) {
  // Parts of 5 MiB of 'a' and 1000 'b': the ETag s3proxy and AWS give the completed object.
  EXPECT_EQ(MultipartETag({"\"79b281060d337b9b2b84ccf390adcf74\"",
                           "\"c73c16de8912c313c06ac38b9961e806\""}),
            "8c6f96fe400c627d9394af6161f5921d-2");
  // Unquoted and upper-case part ETags give the same answer.
  EXPECT_EQ(MultipartETag({"79B281060D337B9B2B84CCF390ADCF74", "c73c16de8912c313c06ac38b9961e806"}),
            "8c6f96fe400c627d9394af6161f5921d-2");
  // One part: still the MD5 of its MD5, with "-1".
  EXPECT_EQ(MultipartETag({Md5Hex("abc")}).size(), 32u + 2u);
  EXPECT_TRUE(MultipartETag({Md5Hex("abc")}).ends_with("-1"));
}

TEST(CryptoTest, MultipartETagOfUncheckablePartsIsEmpty) {
  EXPECT_EQ(MultipartETag({}), "");
  EXPECT_EQ(MultipartETag({"\"not-an-md5\""}), "");
  EXPECT_EQ(MultipartETag({Md5Hex("a"), "zz0150983cd24fb0d6963f7d28e17f72"}), "");
  EXPECT_EQ(MultipartETag({Md5Hex("a"), "\"8c6f96fe400c627d9394af6161f5921d-2\""}), "");
}

}  // namespace
}  // namespace ckpt::s3
