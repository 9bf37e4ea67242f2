// The REST API's request checks (engine/src/rest/rest_requests.h): savepoint targets, trigger
// ids and UTF-8, as the endpoint applies them before anything is created or echoed.
#include "rest/rest_requests.h"

#include <string>

#include <gtest/gtest.h>

namespace ckpt::engine::rest {
namespace {

std::string Refusal(std::string_view dir) {
  base::Result<std::string> r = CheckSavepointTarget(dir);
  if (r.ok()) return "accepted as " + *r;
  EXPECT_EQ(r.status().code(), base::StatusCode::kInvalidArgument) << r.status().ToString();
  return r.status().message();
}

TEST(RestRequestsTest, SavepointTargetMustBeAbsoluteNormalisedAndOutsideSystemDirectories) {
  EXPECT_EQ(*CheckSavepointTarget("/data/savepoints"), "/data/savepoints");
  EXPECT_EQ(*CheckSavepointTarget("/data/savepoints/"), "/data/savepoints");
  EXPECT_EQ(*CheckSavepointTarget("/tmp/library/sp"), "/tmp/library/sp");
  EXPECT_EQ(*CheckSavepointTarget("/var/lib/sp"), "/var/lib/sp");  // only top-level /lib*

  EXPECT_NE(Refusal("/").find("filesystem root"), std::string::npos);
  EXPECT_NE(Refusal("//").find("filesystem root"), std::string::npos);
  EXPECT_NE(Refusal("relative/sp").find("not an absolute path"), std::string::npos);
  EXPECT_NE(Refusal("").find("not an absolute path"), std::string::npos);
  for (const char* bad : {"/data/../etc", "/data/./sp", "/data//sp", "/..", "/data/.."}) {
    EXPECT_NE(Refusal(bad).find("not a normalised path"), std::string::npos) << bad;
  }
  const std::string nul = std::string("/data/sp") + '\0' + "x";
  EXPECT_NE(Refusal(nul).find("NUL byte"), std::string::npos);
  for (const char* sys : {"/bin", "/boot/x", "/dev/shm/sp", "/etc", "/lib", "/lib64/sp",
                          "/libx32", "/proc/self", "/sbin", "/sys/fs", "/usr", "/usr/local/sp"}) {
    EXPECT_NE(Refusal(sys).find("system directory"), std::string::npos) << sys;
  }
  // The message names the path as given.
  EXPECT_NE(Refusal("/etc/sp").find("'/etc/sp'"), std::string::npos);
}

TEST(RestRequestsTest, TriggerIdsAre32LowercaseHexDigits) {
  EXPECT_TRUE(IsTriggerId("00112233445566778899aabbccddeeff"));
  EXPECT_FALSE(IsTriggerId("00112233445566778899AABBCCDDEEFF"));
  EXPECT_FALSE(IsTriggerId("00112233445566778899aabbccddeef"));
  EXPECT_FALSE(IsTriggerId("00112233445566778899aabbccddeeff0"));
  EXPECT_FALSE(IsTriggerId("0011223344556677889zaabbccddeeff"));
  EXPECT_FALSE(IsTriggerId(""));

  base::Result<SavepointTriggerRequest> bad =
      ParseSavepointTriggerRequest(R"({"target-directory": "/sp", "triggerId": "../x"})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("triggerId"), std::string::npos);
  EXPECT_FALSE(ParseCheckpointTriggerRequest(R"({"triggerId": "abc"})").ok());
  EXPECT_FALSE(ParseStopRequest(R"({"triggerId": "ABCDEFABCDEFABCDEFABCDEFABCDEFAB"})").ok());
  EXPECT_FALSE(ParseDisposalRequest(R"({"savepoint-path": "/sp", "triggerId": "1"})").ok());
  base::Result<DisposalRequest> ok = ParseDisposalRequest(
      R"({"savepoint-path": "/sp", "triggerId": "00112233445566778899aabbccddeeff"})");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->trigger_id, "00112233445566778899aabbccddeeff");
  // Absent: the server picks one.
  EXPECT_EQ(ParseCheckpointTriggerRequest("{}")->trigger_id, "");
}

TEST(RestRequestsTest, Utf8CheckRefusesMalformedOverlongAndSurrogateSequences) {
  EXPECT_TRUE(IsValidUtf8("/jobs/overview"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("/\xff"));
  EXPECT_FALSE(IsValidUtf8("/overview\xc3"));            // truncated
  EXPECT_FALSE(IsValidUtf8("\xc3\x28"));                 // bad continuation
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));                 // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));             // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));         // past U+10FFFF
}

}  // namespace
}  // namespace ckpt::engine::rest
