// A real Flink 1.15 RocksDB full checkpoint (fixtures/flink/rocksdb-full-maxp4-flink1.15) whose
// state "sum" has its value serializer's class renamed to a user class (same length, so every
// length in `_metadata` stays right): dump still prints every other state with its values and
// "sum" with its key decoded and its value as bytes under the user class, exit 0; validate --deep
// reports those values as not checked instead of decoded.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;
using ::ckpt::testing::TempDir;

const char kFixture[] = "rocksdb-full-maxp4-flink1.15";
const char kLongSnapshot[] = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";

// The fixture copied into `tmp` with the serializer snapshot after each "sum" state name renamed.
std::string CopyWithUserSerializer(const TempDir& tmp, std::string* user_class) {
  const std::string dir = tmp.Sub(kFixture);
  testing::CopyTree(FixturePath(std::string("flink/") + kFixture), dir);
  std::string bytes = testing::ReadBytes(dir + "/_metadata");
  *user_class = "com.example.accounting.SumSerializer$Snapshot";
  user_class->resize(std::string(kLongSnapshot).size(), 'X');
  const std::string name("\x00\x03sum", 5);
  int renamed = 0;
  for (size_t at = bytes.find(name); at != std::string::npos; at = bytes.find(name, at + 1)) {
    const size_t cls = bytes.find(kLongSnapshot, at);
    if (cls == std::string::npos) break;
    bytes.replace(cls, user_class->size(), *user_class);
    ++renamed;
  }
  EXPECT_EQ(renamed, 4);  // one keyed backend meta information per subtask
  std::ofstream out(dir + "/_metadata", std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(out.good());
  return dir;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(FlinkUnknownSerializerDumpTest, OtherStatesStillDumpWithTheirValues) {
  TempDir tmp;
  std::string user_class;
  CopyWithUserSerializer(tmp, &user_class);
  const testing::ToolRun run = testing::RunTool({"dump", "--format", "json", kFixture}, tmp.path());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Every state still dumps: 16 entries each of count, sum and the event-time timers, 4 positions.
  EXPECT_EQ(Count(run.out, "\"state\":\"count\""), 16u) << run.out;
  EXPECT_EQ(Count(run.out, "\"state\":\"sum\""), 16u);
  EXPECT_EQ(Count(run.out, "\"state\":\"_timer_state/event_user-timers\""), 16u);
  EXPECT_EQ(Count(run.out, "\"state\":\"positions\""), 4u);
  // "sum": its value is the framed bytes under the user class; "count" still decodes.
  EXPECT_EQ(Count(run.out, "\"serializer\":\"" + user_class + "\""), 16u);
  for (size_t at = run.out.find("\"state\":\"count\""); at != std::string::npos;
       at = run.out.find("\"state\":\"count\"", at + 1)) {
    const std::string line = run.out.substr(at, run.out.find('\n', at) - at);
    EXPECT_EQ(line.find("\"serializer\""), std::string::npos) << line;
    EXPECT_NE(line.find("\"value\":"), std::string::npos) << line;
  }
}

TEST(FlinkUnknownSerializerDumpTest, ValidateDeepReportsTheBytesAsNotChecked) {
  TempDir tmp;
  std::string user_class;
  CopyWithUserSerializer(tmp, &user_class);
  const testing::ToolRun run = testing::RunTool({"validate", "--deep", kFixture}, tmp.path());
  EXPECT_NE(run.out.find("not checked CKPT-D001: 16 record(s) kept as their bytes"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("serializer " + user_class), std::string::npos) << run.out;
}

}  // namespace
}  // namespace ckpt::ops
