// AppendJsonQuoted: escapes, control bytes, valid UTF-8 kept, every kind of invalid UTF-8
// replaced so that the output is always valid JSON.
#include "ckpt/base/json_quote.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace ckpt::base {
namespace {

std::string QuoteJson(std::string_view s) {
  std::string out;
  AppendJsonQuoted(s, &out);
  return out;
}

TEST(JsonQuoteTest, AppendsToWhatIsThere) {
  std::string out = "[";
  AppendJsonQuoted("a", &out);
  EXPECT_EQ(out, R"(["a")");
  EXPECT_EQ(QuoteJson(""), R"("")");
}

TEST(JsonQuoteTest, EscapesQuoteBackslashAndNamedControls) {
  EXPECT_EQ(QuoteJson("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(QuoteJson("l1\nl2\r\tx"), R"("l1\nl2\r\tx")");
  EXPECT_EQ(QuoteJson("/"), R"("/")");  // a solidus needs no escape
}

TEST(JsonQuoteTest, OtherControlBytesAndDeleteAsUnicodeEscapes) {
  EXPECT_EQ(QuoteJson(std::string_view("\0", 1)), R"("\u0000")");
  EXPECT_EQ(QuoteJson("\x01\x1b[31m\x1f"), R"("\u0001\u001b[31m\u001f")");
  EXPECT_EQ(QuoteJson("\b\f"), R"("\u0008\u000c")");
  EXPECT_EQ(QuoteJson("\x7f"), R"("\u007f")");
  EXPECT_EQ(QuoteJson(" ~"), R"(" ~")");
}

TEST(JsonQuoteTest, KeepsValidUtf8OfEveryLength) {
  // U+00E9, U+20AC, U+1F600, and the edges U+0080, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF.
  for (std::string_view s :
       {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80",
        "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80"}) {
    EXPECT_EQ(QuoteJson(s), "\"" + std::string(s) + "\"") << QuoteJson(s);
  }
}

TEST(JsonQuoteTest, ReplacesStrayAndTruncatedBytesOnePerByte) {
  EXPECT_EQ(QuoteJson("ok \xc3\xa9 bad \xff\xc3 end"), "\"ok \xc3\xa9 bad \\ufffd\\ufffd end\"");
  EXPECT_EQ(QuoteJson("\x80"), R"("\ufffd")");          // a lone continuation byte
  EXPECT_EQ(QuoteJson("\xbf\x80"), R"("\ufffd\ufffd")");
  EXPECT_EQ(QuoteJson("\xe2\x82"), R"("\ufffd\ufffd")");  // truncated at the end
  EXPECT_EQ(QuoteJson("\xe2\x82x"), R"("\ufffd\ufffdx")");  // cut short by an ASCII byte
  EXPECT_EQ(QuoteJson("\xf0\x9f\x98"), R"("\ufffd\ufffd\ufffd")");
  // After a bad lead byte, a valid sequence that follows is kept.
  EXPECT_EQ(QuoteJson("\xff\xc3\xa9"), "\"\\ufffd\xc3\xa9\"");
  for (char c : {'\xf5', '\xf8', '\xfe', '\xff'}) {
    EXPECT_EQ(QuoteJson(std::string(1, c)), R"("\ufffd")") << int{static_cast<unsigned char>(c)};
  }
}

TEST(JsonQuoteTest, ReplacesOverlongForms) {
  EXPECT_EQ(QuoteJson("\xc0\xaf"), R"("\ufffd\ufffd")");          // '/' in two bytes
  EXPECT_EQ(QuoteJson("\xc1\xbf"), R"("\ufffd\ufffd")");
  EXPECT_EQ(QuoteJson("\xe0\x80\xaf"), R"("\ufffd\ufffd\ufffd")");  // '/' in three bytes
  EXPECT_EQ(QuoteJson("\xe0\x9f\xbf"), R"("\ufffd\ufffd\ufffd")");  // U+07FF in three bytes
  EXPECT_EQ(QuoteJson("\xf0\x80\x80\xaf"), R"("\ufffd\ufffd\ufffd\ufffd")");
  EXPECT_EQ(QuoteJson("\xf0\x8f\xbf\xbf"), R"("\ufffd\ufffd\ufffd\ufffd")");  // U+FFFF in four
  EXPECT_EQ(QuoteJson("\xc0\x80"), R"("\ufffd\ufffd")");  // modified UTF-8's NUL
}

TEST(JsonQuoteTest, ReplacesSurrogatesAndCodePointsPastTheLast) {
  EXPECT_EQ(QuoteJson("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // U+D800
  EXPECT_EQ(QuoteJson("\xed\xbf\xbf"), R"("\ufffd\ufffd\ufffd")");  // U+DFFF
  // A CESU-8 pair (U+1F600 as two encoded surrogates).
  EXPECT_EQ(QuoteJson("\xed\xa0\xbd\xed\xb8\x80"),
            R"("\ufffd\ufffd\ufffd\ufffd\ufffd\ufffd")");
  EXPECT_EQ(QuoteJson("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")");  // U+110000
}

TEST(JsonQuoteTest, OutputIsAlwaysPrintableAsciiOrValidUtf8) {
  // Every single byte and every pair of a lead byte and a next byte: the output never holds a
  // raw control byte, and any byte >= 0x80 it holds is part of the input's valid UTF-8.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; b += 15) {
      const std::string in{static_cast<char>(a), static_cast<char>(b)};
      const std::string out = QuoteJson(in);
      for (char ch : out) {
        const auto c = static_cast<unsigned char>(ch);
        ASSERT_TRUE(c >= 0x20 && c != 0x7f) << a << "," << b;
      }
      if (a >= 0xc2 && a <= 0xdf && b >= 0x80 && b <= 0xbf) {
        EXPECT_EQ(out, "\"" + in + "\"") << a << "," << b;
      } else if (a >= 0x80) {
        EXPECT_EQ(out.rfind("\"\\ufffd", 0), 0u) << a << "," << b;
      }
    }
  }
}

}  // namespace
}  // namespace ckpt::base
