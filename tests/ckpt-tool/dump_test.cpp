// Tests of ops::Dump (ops/src/read/dump.cpp): decoding through type descriptors, filters,
// key-group seeking, changelog handles, errors.
#include "ckpt/ops/dump.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;

std::vector<DumpEntry> Collect(const Snapshot& s, DumpOptions o, uint64_t* count = nullptr) {
  std::vector<DumpEntry> out;
  auto n = Dump(base::Fs::Default(), s, o, [&out](const DumpEntry& e) {
    out.push_back(e);
    return base::Status::OK();
  });
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  if (n.ok()) {
    EXPECT_EQ(*n, out.size());
  }
  if (count != nullptr && n.ok()) *count = *n;
  return out;
}

Snapshot Load(const std::string& rel) {
  auto s = LoadSnapshot(base::Fs::Default(), FixturePath(rel));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : Snapshot();
}

TEST(DumpTest, DecodesEveryKeyedStateKind) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "per-user-aggregate";
  auto entries = Collect(s, o);
  // 24 users x (value + list + 2 map entries + timer).
  ASSERT_EQ(entries.size(), 24u * 5);
  std::map<std::string, int> per_state;
  for (const auto& e : entries) {
    ++per_state[e.state];
    ASSERT_TRUE(e.key_group.has_value());
    EXPECT_EQ(e.key_json.front(), '"');
    EXPECT_EQ(e.namespace_json, "null");
  }
  EXPECT_EQ(per_state["order-count"], 24);
  EXPECT_EQ(per_state["spend-by-category"], 48);
  // Entries come out by subtask, then key group (file order).
  for (size_t i = 1; i < entries.size(); ++i) {
    EXPECT_LE(std::make_pair(*entries[i - 1].subtask, *entries[i - 1].key_group),
              std::make_pair(*entries[i].subtask, *entries[i].key_group));
  }
}

TEST(DumpTest, KeyFilterSeeksTheKeysGroupAndDecodesValues) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "per-user-aggregate";
  o.key_json = "\"user-07\"";  // JSON form; bare user-07 works too
  auto entries = Collect(s, o);
  ASSERT_EQ(entries.size(), 5u);
  for (const auto& e : entries) EXPECT_EQ(e.key_json, "\"user-07\"");
  EXPECT_EQ(entries[0].state, "order-count");
  EXPECT_EQ(entries[0].value_json, "22");  // 7 * 3 + 1
  EXPECT_EQ(entries[1].value_json, "[\"item-70\",\"item-71\"]");
  o.key_json = "user-07";
  EXPECT_EQ(Collect(s, o).size(), 5u);
  o.state = "order-count";
  auto one = Collect(s, o);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].kind, StateKind::kValue);
}

TEST(DumpTest, KeyGroupFilterReturnsOnlyThatGroup) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "a2469328b540934507249cbf9b294c51";  // uid hash
  o.key_group = 74;
  auto entries = Collect(s, o);
  ASSERT_FALSE(entries.empty());
  for (const auto& e : entries) EXPECT_EQ(e.key_group, 74u);
  o.key_group = 0;  // an empty group
  EXPECT_TRUE(Collect(s, o).empty());
}

TEST(DumpTest, OperatorStateUnionAndListByName) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "Watermark tracker";  // display name
  auto entries = Collect(s, o);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].kind, StateKind::kOperatorUnion);
  EXPECT_EQ(entries[0].value_json, "{\"subtask\":0,\"watermark\":1767225630000}");
  EXPECT_FALSE(entries[0].key_group.has_value());
  o.operator_ref = "orders-source";
  o.state = "offsets";  // the state only, not the coordinator state
  entries = Collect(s, o);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].value_json, "1250");
}

TEST(DumpTest, ChangelogHandleShowsTheReplayedValueByDefault) {
  Snapshot s = Load("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-2");
  DumpOptions o;
  o.operator_ref = "count-per-key";
  o.key_json = "0";
  auto entries = Collect(s, o);
  // Materialized 1, then put 11 and put 111 in the log tail: a restore sees 111.
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].source, "state");
  EXPECT_EQ(entries[0].value_json, "111");
  EXPECT_EQ(entries[0].key_group, 53u);
  // Every key of the replayed state, each once.
  o.key_json.clear();
  std::set<std::string> keys;
  for (const auto& e : Collect(s, o)) {
    EXPECT_EQ(e.source, "state");
    EXPECT_TRUE(keys.insert(e.key_json).second) << e.key_json;
  }
  EXPECT_FALSE(keys.empty());
}

TEST(DumpTest, HistoryEmitsMaterializedStateThenLogTail) {
  Snapshot s = Load("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-2");
  DumpOptions o;
  o.operator_ref = "count-per-key";
  o.history = true;
  o.key_json = "0";
  auto entries = Collect(s, o);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].source, "state");
  EXPECT_EQ(entries[1].source, "changelog");
  EXPECT_EQ(entries[1].change_op, "put");
  EXPECT_LT(entries[1].sequence, entries[2].sequence);
  EXPECT_EQ(entries[2].value_json, "111");
}

TEST(DumpTest, SinkCommittablesAreDumped) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "file-sink";
  auto entries = Collect(s, o);
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.source, "committable");
    EXPECT_EQ(e.operator_name, "File sink");
    EXPECT_NE(e.value_json.find("\"pending_path\":"), std::string::npos) << e.value_json;
    EXPECT_NE(e.value_json.find("\"checksum_xxh3\":\""), std::string::npos) << e.value_json;
  }
}

TEST(DumpTest, CoordinatorStateIsDecodedWithItsType) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "orders-source";
  auto entries = Collect(s, o);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].source, "coordinator");
  EXPECT_FALSE(entries[0].value_type.empty());
  EXPECT_NE(entries[0].value_json.find("\"assigned_splits\":"), std::string::npos)
      << entries[0].value_json;
}

TEST(DumpTest, TimersAreLabelledAsTimestamps) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "per-user-aggregate";
  int timers = 0;
  for (const auto& e : Collect(s, o)) {
    if (e.kind != StateKind::kTimers) continue;
    ++timers;
    EXPECT_FALSE(e.timestamp_json.empty());
    EXPECT_TRUE(e.user_key_json.empty());
  }
  EXPECT_EQ(timers, 24);
}

TEST(DumpTest, ChannelStateBuffersAreDumped) {
  Snapshot s = Load("v1/unaligned/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-5");
  uint64_t buffers = 0, expected = 0;
  for (const auto& op : s.operators) {
    for (const auto& st : op.subtasks) {
      for (const auto& c : st.channels) expected += c.buffer_count;
    }
  }
  ASSERT_GT(expected, 0u);
  for (const auto& e : Collect(s, DumpOptions{})) {
    if (e.source != "channel") continue;
    ++buffers;
    EXPECT_FALSE(e.channel.empty());
    ASSERT_TRUE(e.buffer.has_value());
    EXPECT_EQ(e.value_json.front(), '"');
  }
  EXPECT_EQ(buffers, expected);
}

TEST(DumpTest, FiltersThatMatchNothingEmitNothing) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "per-user-aggregate";
  o.key_group = 1;  // an empty key group
  uint64_t n = 99;
  EXPECT_TRUE(Collect(s, o, &n).empty());
  EXPECT_EQ(n, 0u);
  o.key_group.reset();
  o.key_json = "42";  // a number for STRING keys: the string "42", which no user has
  EXPECT_TRUE(Collect(s, o).empty());
  DumpOptions no_operator;
  no_operator.state = "order-count";
  ASSERT_STATUS(Dump(base::Fs::Default(), s, no_operator,
                     [](const DumpEntry&) { return base::Status::OK(); }),
                kInvalidArgument, "--operator");
}

TEST(DumpTest, ErrorsNameTheProblem) {
  Snapshot s = Load("v1/savepoint");
  auto sink = [](const DumpEntry&) { return base::Status::OK(); };
  DumpOptions o;
  o.operator_ref = "no-such-operator";
  ASSERT_STATUS(Dump(base::Fs::Default(), s, o, sink), kNotFound, "per-user-aggregate");
  o.operator_ref = "per-user-aggregate";
  o.state = "nope";
  ASSERT_STATUS(Dump(base::Fs::Default(), s, o, sink), kNotFound, "order-count");
  o.state.clear();
  o.key_group = 128;
  ASSERT_STATUS(Dump(base::Fs::Default(), s, o, sink), kInvalidArgument, "128");
  o.key_group.reset();
  o.operator_ref = "orders-source";
  o.key_json = "1";
  ASSERT_STATUS(Dump(base::Fs::Default(), s, o, sink), kInvalidArgument, "no keyed state");
  o.operator_ref = "count-per-key";
  Snapshot chk = Load("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-2");
  o.key_json = "\"not-a-number\"";
  ASSERT_STATUS(Dump(base::Fs::Default(), chk, o, sink), kInvalidArgument, "integer");
}

TEST(DumpTest, SinkErrorStopsTheStream) {
  Snapshot s = Load("v1/savepoint");
  DumpOptions o;
  o.operator_ref = "per-user-aggregate";
  int calls = 0;
  auto r = Dump(base::Fs::Default(), s, o, [&calls](const DumpEntry&) {
    return ++calls == 3 ? base::Status::IOError("pipe closed") : base::Status::OK();
  });
  ASSERT_STATUS(r, kIOError, "pipe closed");
  EXPECT_EQ(calls, 3);
}

TEST(DumpTest, CorruptBlockIsCorruptionNamingTheFile) {
  testing::TempDir tmp;
  testing::CopyTree(FixturePath("corrupt/block-checksum-mismatch"), tmp.Sub("c"));
  auto s = LoadSnapshot(base::Fs::Default(), tmp.Sub("c"));
  ASSERT_OK(s);
  DumpOptions o;
  o.operator_ref = "tiny-count";
  auto r = Dump(base::Fs::Default(), *s, o, [](const DumpEntry&) { return base::Status::OK(); });
  ASSERT_STATUS(r, kCorruption, "tiny-count-0-keyed.state");
}

}  // namespace
}  // namespace ckpt::ops
