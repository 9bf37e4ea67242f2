// The bounded XML reader and S3's answers parsed with it, hostile input included.
#include "ckpt/s3/xml.h"

#include <gtest/gtest.h>

#include "ckpt/s3/s3_answers.h"

namespace ckpt::s3 {
namespace {

constexpr std::string_view kListPage = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name><Prefix>p/</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys>
  <Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>
  <Contents><Key>p/a &amp; b</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>
    <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size>
    <StorageClass>STANDARD</StorageClass></Contents>
  <Contents><Key><![CDATA[p/<raw>]]></Key><Size>0</Size></Contents>
  <CommonPrefixes><Prefix>p/sub/</Prefix></CommonPrefixes>
  <!-- a comment -->
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
</ListBucketResult>)";

TEST(S3AnswersTest, ParsesAListObjectsV2Page) {
  auto page = ParseListObjectsV2(kListPage, "test");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].key, "p/a & b");
  EXPECT_EQ(page->objects[0].size_bytes, 434234u);
  EXPECT_EQ(page->objects[0].etag, "fba9dede5f27731c9771645a39863328");
  EXPECT_EQ(page->objects[0].mtime_ms, 1255369830000);
  EXPECT_EQ(page->objects[1].key, "p/<raw>");
  ASSERT_EQ(page->common_prefixes.size(), 1u);
  EXPECT_EQ(page->common_prefixes[0], "p/sub/");
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_continuation_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(S3AnswersTest, ParsesErrorInitiateAndDeleteAnswers) {
  const S3ErrorBody e = ParseErrorBody(
      "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified key does not "
      "exist.</Message><Key>k</Key></Error>");
  EXPECT_EQ(e.code, "NoSuchKey");
  EXPECT_EQ(e.message, "The specified key does not exist.");
  EXPECT_EQ(ParseErrorBody("not xml").code, "");
  const S3ErrorBody multi = ParseErrorBody("<Error><Code>X</Code><Message>\n  two\n lines  "
                                           "</Message></Error>");
  EXPECT_EQ(multi.message, "two lines");
  auto id = ParseInitiateMultipartUpload(
      "<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>VXBsb2FkIElE"
      "</UploadId></InitiateMultipartUploadResult>", "test");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "VXBsb2FkIElE");
  auto failed = ParseDeleteResult(
      "<DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>b</Key><Code>AccessDenied</Code>"
      "<Message>Access Denied</Message></Error></DeleteResult>", "test");
  ASSERT_TRUE(failed.ok());
  ASSERT_EQ(failed->size(), 1u);
  EXPECT_EQ((*failed)[0], "b (AccessDenied: Access Denied)");
}

TEST(S3AnswersTest, ParsesPendingMultipartUploads) {
  auto page = ParseListMultipartUploads(
      "<ListMultipartUploadsResult><Bucket>b</Bucket><IsTruncated>true</IsTruncated>"
      "<NextKeyMarker>k2</NextKeyMarker><NextUploadIdMarker>u2</NextUploadIdMarker>"
      "<Upload><Key>k1</Key><UploadId>u1</UploadId><Initiated>2010-11-10T20:48:33.000Z"
      "</Initiated></Upload></ListMultipartUploadsResult>", "t");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->uploads.size(), 1u);
  EXPECT_EQ(page->uploads[0].key, "k1");
  EXPECT_EQ(page->uploads[0].upload_id, "u1");
  EXPECT_EQ(page->uploads[0].initiated_ms, 1289422113000);
  EXPECT_EQ(page->next_key_marker, "k2");
  EXPECT_TRUE(ParseListMultipartUploads("<ListMultipartUploadsResult><Upload><Key>k</Key>"
                                        "</Upload></ListMultipartUploadsResult>", "t")
                  .status().IsCorruption());
  EXPECT_TRUE(ParseListMultipartUploads("<ListMultipartUploadsResult><IsTruncated>true"
                                        "</IsTruncated></ListMultipartUploadsResult>", "t")
                  .status().IsCorruption());
}

TEST(S3AnswersTest, RejectsListingsThatDoNotAddUp) {
  EXPECT_TRUE(ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated>"
                                 "</ListBucketResult>", "t").status().IsCorruption());
  EXPECT_TRUE(ParseListObjectsV2("<ListBucketResult><Contents><Key>a</Key><Size>-1</Size>"
                                 "</Contents></ListBucketResult>", "t").status().IsCorruption());
  EXPECT_TRUE(ParseListObjectsV2("<ListBucketResult><Contents><Size>1</Size></Contents>"
                                 "</ListBucketResult>", "t").status().IsCorruption());
  EXPECT_TRUE(ParseListObjectsV2("<Error/>", "t").status().IsCorruption());
}

TEST(S3AnswersTest, ParsesTimesAndEscapes) {
  EXPECT_EQ(ParseIso8601Ms("2009-10-12T17:50:30.5Z"), 1255369830500);
  EXPECT_EQ(ParseIso8601Ms("2009-10-12T17:50:30Z"), 1255369830000);
  EXPECT_EQ(ParseIso8601Ms("yesterday"), -1);
  EXPECT_EQ(ParseHttpDateMs("Mon, 12 Oct 2009 17:50:30 GMT"), 1255369830000);
  EXPECT_EQ(ParseHttpDateMs("garbage"), -1);
  EXPECT_EQ(XmlEscape("a<&>\"'"), "a&lt;&amp;&gt;&quot;&apos;");
}

TEST(XmlTest, DecodesCharacterReferencesAndDropsPrefixes) {
  auto root = ParseXml("<s3:R xmlns:s3='x'><s3:K a=\"1\">&#72;&#x49;&#x20AC;</s3:K><E/></R>", "t");
  // Mismatched prefixes are compared by local name.
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->name, "R");
  EXPECT_EQ(root->ChildText("K"), "HI\xE2\x82\xAC");
  EXPECT_NE(root->Child("E"), nullptr);
  EXPECT_EQ(root->Child("missing"), nullptr);
}

void ExpectXmlCorruption(std::string_view xml, std::string_view why) {
  auto r = ParseXml(xml, "hostile answer");
  ASSERT_FALSE(r.ok()) << "accepted: " << xml;
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("hostile answer"), std::string::npos);
  EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
}

TEST(XmlTest, HostileInputGivesErrorsNotCrashes) {
  ExpectXmlCorruption("", "no root element");
  ExpectXmlCorruption("<a>", "unterminated element");
  ExpectXmlCorruption("<a></b>", "closes <a>");
  ExpectXmlCorruption("<a/><b/>", "content after the root");
  ExpectXmlCorruption("<a>&bogus;</a>", "unknown entity");
  ExpectXmlCorruption("<a>&#0;</a>", "invalid character reference");
  ExpectXmlCorruption("<a>&#xD800;</a>", "invalid character reference");
  ExpectXmlCorruption("<a>&#x110000;</a>", "out of range");
  ExpectXmlCorruption("<a>&amp</a>", "unterminated reference");
  ExpectXmlCorruption("<a b=1/>", "unquoted attribute");
  ExpectXmlCorruption("<a b=\"1/>", "unterminated attribute");
  ExpectXmlCorruption("<a><!-- never closed</a>", "unterminated comment");
  ExpectXmlCorruption("<a><![CDATA[never closed</a>", "unterminated CDATA");
  ExpectXmlCorruption("<?xml version='1.0'", "unterminated processing instruction");
  ExpectXmlCorruption(
      "<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;\">]><a>&lol2;</a>",
      "DOCTYPE");
  ExpectXmlCorruption("<a><!ENTITY x \"y\"></a>", "declarations");
  ExpectXmlCorruption(std::string(1, '\0'), "no root element");
  ExpectXmlCorruption("< a/>", "expected a name");
}

TEST(XmlTest, LimitsBoundDepthElementsAndSize) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  ExpectXmlCorruption(deep, "nesting deeper than 32");
  std::string wide = "<r>";
  for (int i = 0; i < 20; ++i) wide += "<e/>";
  wide += "</r>";
  XmlLimits limits;
  limits.max_elements = 10;
  auto r = ParseXml(wide, "wide", limits);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 10 elements"), std::string::npos);
  limits = XmlLimits();
  limits.max_input_bytes = 8;
  r = ParseXml("<abcdefgh/>", "big", limits);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("exceeds the limit"), std::string::npos);
}

TEST(XmlTest, EveryTruncationOfAValidAnswerIsAnErrorOrAValidTree) {
  for (size_t n = 0; n < kListPage.size(); ++n) {
    auto r = ParseListObjectsV2(kListPage.substr(0, n), "truncated");
    EXPECT_FALSE(r.ok()) << "prefix of " << n << " bytes accepted";
  }
  std::string flipped(kListPage);
  for (size_t i = 0; i < flipped.size(); i += 7) {
    std::string mutated = flipped;
    mutated[i] = static_cast<char>(mutated[i] ^ 0x5A);
    (void)ParseListObjectsV2(mutated, "flipped").ok();  // must not crash or hang
  }
}

}  // namespace
}  // namespace ckpt::s3
