// SigV4 against the worked examples of AWS's S3 ("Authenticating Requests: Using the
// Authorization Header", examples with AKIAIOSFODNN7EXAMPLE) and general SigV4 (IAM ListUsers)
// documentation: known keys, known canonical requests and known signatures.
#include "ckpt/s3/sigv4.h"

#include <gtest/gtest.h>

#include "ckpt/s3/crypto.h"

namespace ckpt::s3 {
namespace {

const Credentials kS3DocKeys{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
constexpr std::string_view kS3DocDate = "20130524T000000Z";

TEST(SigV4Test, S3GetObjectWithRange) {
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/test.txt";
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"Range", "bytes=0-9"},
               {"x-amz-content-sha256", std::string(kEmptyPayloadSha256)},
               {"x-amz-date", std::string(kS3DocDate)}};
  r.payload_hash = std::string(kEmptyPayloadSha256);
  const Signature s = SignV4(r, kS3DocKeys, "us-east-1", "s3", kS3DocDate);
  EXPECT_EQ(s.canonical_request,
            "GET\n/test.txt\n\n"
            "host:examplebucket.s3.amazonaws.com\n"
            "range:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\n"
            "host;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, S3PutObjectHashesThePayloadAndEncodesTheKey) {
  const std::string body = "Welcome to Amazon S3.";
  EXPECT_EQ(Sha256Hex(body), "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  SigningRequest r;
  r.method = "PUT";
  r.canonical_uri = "/" + UriEncodePath("test$file.text");
  EXPECT_EQ(r.canonical_uri, "/test%24file.text");
  r.headers = {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
               {"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-content-sha256", Sha256Hex(body)},
               {"x-amz-date", std::string(kS3DocDate)},
               {"x-amz-storage-class", "REDUCED_REDUNDANCY"}};
  r.payload_hash = Sha256Hex(body);
  const Signature s = SignV4(r, kS3DocKeys, "us-east-1", "s3", kS3DocDate);
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  EXPECT_EQ(s.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
  EXPECT_EQ(s.signed_headers, "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
}

TEST(SigV4Test, S3GetBucketLifecycleSignsAValuelessQueryParameter) {
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/";
  r.query = {{"lifecycle", ""}};
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-content-sha256", std::string(kEmptyPayloadSha256)},
               {"x-amz-date", std::string(kS3DocDate)}};
  r.payload_hash = std::string(kEmptyPayloadSha256);
  const Signature s = SignV4(r, kS3DocKeys, "us-east-1", "s3", kS3DocDate);
  EXPECT_NE(s.canonical_request.find("\n/\nlifecycle=\n"), std::string::npos);
  EXPECT_EQ(s.string_to_sign.substr(s.string_to_sign.rfind('\n') + 1),
            "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca");
  EXPECT_EQ(s.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4Test, S3ListObjectsSortsTheQuery) {
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/";
  r.query = {{"prefix", "J"}, {"max-keys", "2"}};
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-content-sha256", std::string(kEmptyPayloadSha256)},
               {"x-amz-date", std::string(kS3DocDate)}};
  r.payload_hash = std::string(kEmptyPayloadSha256);
  const Signature s = SignV4(r, kS3DocKeys, "us-east-1", "s3", kS3DocDate);
  EXPECT_NE(s.canonical_request.find("\n/\nmax-keys=2&prefix=J\n"), std::string::npos);
  EXPECT_EQ(s.string_to_sign.substr(s.string_to_sign.rfind('\n') + 1),
            "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7");
  EXPECT_EQ(s.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4Test, IamListUsersGet) {
  const Credentials keys{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/";
  r.query = {{"Action", "ListUsers"}, {"Version", "2010-05-08"}};
  r.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
               {"Host", "iam.amazonaws.com"},
               {"X-Amz-Date", "20150830T123600Z"}};
  r.payload_hash = std::string(kEmptyPayloadSha256);
  const Signature s = SignV4(r, keys, "us-east-1", "iam", "20150830T123600Z");
  EXPECT_EQ(s.canonical_request,
            "GET\n/\nAction=ListUsers&Version=2010-05-08\n"
            "content-type:application/x-www-form-urlencoded; charset=utf-8\n"
            "host:iam.amazonaws.com\n"
            "x-amz-date:20150830T123600Z\n\n"
            "content-type;host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex(s.canonical_request),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(s.signature, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

TEST(SigV4Test, IamListUsersPostHashesTheFormBody) {
  const Credentials keys{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
  SigningRequest r;
  r.method = "POST";
  r.canonical_uri = "/";
  r.headers = {{"host", "iam.amazonaws.com"},
               {"Content-type", "application/x-www-form-urlencoded; charset=utf-8"},
               {"x-amz-date", "20110909T233600Z"}};
  r.payload_hash = Sha256Hex("Action=ListUsers&Version=2010-05-08");
  const Signature s = SignV4(r, keys, "us-east-1", "iam", "20110909T233600Z");
  EXPECT_EQ(s.signature, "ced6826de92d2bdeed8f846f0bf508e8559e98e4b0199114b84c54174deb456c");
}

TEST(SigV4Test, QueryEncodingUsesTheUnreservedSetAndSorts) {
  EXPECT_EQ(UriEncode("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(UriEncode("a b/c+d=e&f*"), "a%20b%2Fc%2Bd%3De%26f%2A");
  EXPECT_EQ(UriEncode("\xC3\xA9"), "%C3%A9");
  EXPECT_EQ(UriEncodePath("dir/a b"), "dir/a%20b");
  EXPECT_EQ(CanonicalQueryString({{"prefix", "a/b c"}, {"delimiter", "/"}, {"list-type", "2"},
                                  {"continuation-token", "x+y="}}),
            "continuation-token=x%2By%3D&delimiter=%2F&list-type=2&prefix=a%2Fb%20c");
  EXPECT_EQ(CanonicalQueryString({{"b", "2"}, {"b", "1"}, {"a", ""}}), "a=&b=1&b=2");
}

TEST(SigV4Test, HeaderValuesAreTrimmedAndRepeatedNamesJoined) {
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/";
  r.headers = {{"Host", "h"}, {"X-Amz-Meta-A", "  one   two  "}, {"x-amz-meta-a", "three"}};
  r.payload_hash = std::string(kUnsignedPayload);
  const Signature s = SignV4(r, kS3DocKeys, "us-east-1", "s3", kS3DocDate);
  EXPECT_NE(s.canonical_request.find("x-amz-meta-a:one two,three\n"), std::string::npos);
  EXPECT_EQ(s.canonical_request.substr(s.canonical_request.rfind('\n') + 1), "UNSIGNED-PAYLOAD");
}

TEST(SigV4Test, SessionTokenHeaderIsSignedAndChangesTheSignature) {
  SigningRequest r;
  r.method = "GET";
  r.canonical_uri = "/k";
  r.headers = {{"host", "b.s3.amazonaws.com"}, {"x-amz-date", std::string(kS3DocDate)}};
  r.payload_hash = std::string(kUnsignedPayload);
  const Signature without = SignV4(r, kS3DocKeys, "us-east-1", "s3", kS3DocDate);
  r.headers.emplace_back("x-amz-security-token", "FQoGZXIvYXdzEXAMPLETOKEN");
  const Signature with = SignV4(r, kS3DocKeys, "us-east-1", "s3", kS3DocDate);
  EXPECT_EQ(with.signed_headers, "host;x-amz-date;x-amz-security-token");
  EXPECT_NE(with.signature, without.signature);
  EXPECT_EQ(with.authorization.find(kS3DocKeys.secret_access_key), std::string::npos);
}

TEST(SigV4Test, AmzDateIsUtcBasicFormat) {
  EXPECT_EQ(AmzDate(std::chrono::system_clock::time_point(std::chrono::seconds(1369353600))),
            "20130524T000000Z");
  EXPECT_EQ(RedactedKeyId("AKIAIOSFODNN7EXAMPLE"), "AKIA…MPLE");
  EXPECT_EQ(RedactedKeyId("short"), "****");
}

}  // namespace
}  // namespace ckpt::s3
