// IsFullLayoutSection over hand-built key-group sections: the full-snapshot layout of key group
// 0 (whose first bytes read as the heap layout's key-group id 0) is recognised, the heap layout
// and damaged sections are not.
#include <gtest/gtest.h>

#include <string>

#include "ckpt/flink/key_group_stream.h"

namespace ckpt::flink {
namespace {

class SectionBytes {
 public:
  SectionBytes& I8(int v) { s_.push_back(static_cast<char>(v)); return *this; }
  SectionBytes& I16(int v) { I8(v >> 8); return I8(v & 0xff); }
  SectionBytes& I32(int v) { I16(v >> 16); return I16(v & 0xffff); }
  SectionBytes& Bytes(const std::string& b) { I32(static_cast<int>(b.size())); s_ += b; return *this; }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

// One key group of FullSnapshotAsyncWriter's layout: state 0 with two keys, state 1 with one, the
// last key of each state flagged (0x80 on the prefix byte), then the end mark.
std::string FullSection(int group) {
  const std::string g(1, static_cast<char>(group));
  const std::string flagged(1, static_cast<char>(group | 0x80));
  SectionBytes o;
  o.I16(0).Bytes(g + "k-01").Bytes("\x01").Bytes(flagged + "k-02").Bytes("\x02");
  o.I16(1).Bytes(flagged + "k-01").Bytes("\x03");
  o.I16(0xFFFF);
  return o.str();
}

TEST(FlinkKeyGroupLayoutTest, KeyGroupZeroOfTheFullLayoutIsRecognised) {
  const std::string s = FullSection(0);
  // What made a heap reader take it: the first four bytes are the i32 key-group id 0.
  ASSERT_EQ(s.substr(0, 4), std::string(4, '\0'));
  EXPECT_TRUE(IsFullLayoutSection(s, 0, 1, 2));
  EXPECT_TRUE(IsFullLayoutSection(FullSection(3), 3, 1, 2));
}

TEST(FlinkKeyGroupLayoutTest, WrongGroupStateOrEndIsNotTheFullLayout) {
  EXPECT_FALSE(IsFullLayoutSection(FullSection(1), 0, 1, 2));   // keys of another key group
  EXPECT_FALSE(IsFullLayoutSection(FullSection(0), 0, 2, 2));   // two-byte prefixes expected
  EXPECT_FALSE(IsFullLayoutSection(FullSection(0), 0, 1, 1));   // state id 1 not declared
  EXPECT_FALSE(IsFullLayoutSection(FullSection(0) + "xx", 0, 1, 2));  // bytes after the end mark
  const std::string s = FullSection(0);
  EXPECT_FALSE(IsFullLayoutSection(s.substr(0, s.size() - 2), 0, 1, 2));  // no end mark
  EXPECT_FALSE(IsFullLayoutSection("", 0, 1, 2));
}

TEST(FlinkKeyGroupLayoutTest, HeapLayoutIsNotTheFullLayout) {
  // HeapSnapshotStrategy: i32 key group, then per state i16 state id, i32 entry count, entries.
  for (int group : {0, 1, 5}) {
    SCOPED_TRACE(group);
    SectionBytes o;
    o.I32(group).I16(0).I32(1).I32(7).I32(9).I16(1).I32(0);
    EXPECT_FALSE(IsFullLayoutSection(o.str(), static_cast<uint32_t>(group), 1, 2));
  }
}

}  // namespace
}  // namespace ckpt::flink
