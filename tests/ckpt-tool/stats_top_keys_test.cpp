// Tests of stats --top-keys (ops::ComputeStats with StatsOptions::top_keys; ops/src/read/
// key_tally.cpp and the formats' scanners): snapshots with keys made large on purpose, whose
// expected sizes are summed from the very bytes written.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/stats.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"
#include "tools/snapshot_builder.h"

namespace ckpt::ops {
namespace {

namespace sample = format::sample;
namespace types = format::types;
using ::ckpt::testing::FixturePath;

constexpr char kTopKeysJobSpec[] = R"({
  "name": "profiles",
  "jobId": "1a2b3c4d5e6f708192a3b4c5d6e7f801",
  "parallelism": 2,
  "maxParallelism": 128,
  "operators": [
    {"id": "source", "kind": "sequence-source", "uid": "numbers", "name": "Numbers"},
    {"id": "count", "kind": "keyed-sum", "uid": "profiles", "name": "Profiles"}
  ],
  "edges": [{"from": "source", "to": "count", "partitioning": "HASH"}],
  "checkpointing": {"intervalMs": 500}
})";

// What was written for one key: bytes and entries per state (0 "profile", 1 "events").
struct Written {
  uint32_t key_group = 0;
  uint64_t bytes[2] = {0, 0};
  uint64_t entries[2] = {0, 0};
};

// 30 keys "user-0".."user-29": a VALUE state "profile" (string) and a MAP state "events"
// (int64 -> string). user-7's profile is 5000 bytes; user-13 has 40 events of 100 bytes; user-21
// has 4 events of 900 bytes; every other key is small. `written` gets the ground truth.
base::Status WriteProfiles(const std::string& dir, std::map<std::string, Written>* written) {
  base::Fs& fs = base::Fs::Default();
  pb::CheckpointMetadata m;
  CKPT_RETURN_IF_ERROR(sample::StartMetadata(kTopKeysJobSpec, 3, pb::SAVEPOINT, &m));
  m.set_savepoint_format(pb::CANONICAL);
  m.set_checkpoint_type(pb::FULL);
  m.set_post_action(pb::POST_ACTION_NONE);
  m.set_mode(pb::ALIGNED_EXACTLY_ONCE);
  sample::SnapshotBuilder b(fs, dir, &m);
  CKPT_RETURN_IF_ERROR(fs.CreateDirs(dir));
  pb::OperatorState* op = sample::AddOperatorState(&m, "count");
  *op->add_states() = sample::State("profile", pb::STATE_VALUE, types::String(), types::String());
  *op->add_states() = sample::State("events", pb::STATE_MAP, types::String(), types::String(),
                                    types::Int64());
  std::vector<std::vector<sample::KeyedEntry>> per_subtask(op->parallelism());
  for (int k = 0; k < 30; ++k) {
    const std::string name = "user-" + std::to_string(k);
    CKPT_ASSIGN_OR_RETURN(std::string key, sample::Enc(types::String(), format::Value(name)));
    const uint32_t g = format::KeyGroupForKey(key, op->max_parallelism());
    const uint32_t s = format::SubtaskForKeyGroup(op->max_parallelism(), op->parallelism(), g);
    Written& w = (*written)["\"" + name + "\""];
    w.key_group = g;
    const size_t profile_size = k == 7 ? 5000 : 10 + static_cast<size_t>(k);
    CKPT_ASSIGN_OR_RETURN(
        std::string profile,
        sample::Enc(types::String(), format::Value(std::string(profile_size, 'p'))));
    per_subtask[s].push_back({g, key, 0, "", profile});
    w.bytes[0] += key.size() + profile.size();
    w.entries[0] += 1;
    const int events = k == 13 ? 40 : k == 21 ? 4 : k % 3;
    const size_t event_size = k == 13 ? 100 : k == 21 ? 900 : 8;
    for (int e = 0; e < events; ++e) {
      CKPT_ASSIGN_OR_RETURN(std::string user_key,
                            sample::Enc(types::Int64(), format::Value(int64_t{e})));
      CKPT_ASSIGN_OR_RETURN(
          std::string value,
          sample::Enc(types::String(), format::Value(std::string(event_size, 'e'))));
      per_subtask[s].push_back({g, key, 1, user_key, value});
      w.bytes[1] += key.size() + user_key.size() + value.size();
      w.entries[1] += 1;
    }
  }
  for (uint32_t s = 0; s < op->parallelism(); ++s) {
    const format::KeyGroupRange range =
        format::RangeForSubtask(op->max_parallelism(), op->parallelism(), s);
    CKPT_ASSIGN_OR_RETURN(
        pb::KeyedStateHandle h,
        sample::WriteKeyGroups(b, "profiles-" + std::to_string(s) + "-keyed.state", pb::EXCLUSIVE,
                               3, range, std::move(per_subtask[s])));
    pb::SubtaskState* st = op->add_subtasks();
    st->set_subtask_index(s);
    *st->add_keyed_state() = h;
  }
  sample::FillMetrics(&m);
  return b.Publish();
}

// The expected ranking of `written` for `state` (0, 1, or -1 for both), largest first, ties by
// key, at most `n`.
std::vector<KeySize> Expected(const std::map<std::string, Written>& written, int state, size_t n) {
  std::vector<KeySize> all;
  for (const auto& [key, w] : written) {
    KeySize k{key, w.key_group, 0, 0};
    for (int s = 0; s < 2; ++s) {
      if (state >= 0 && s != state) continue;
      k.bytes += w.bytes[s];
      k.entries += w.entries[s];
    }
    if (k.entries > 0) all.push_back(k);
  }
  std::sort(all.begin(), all.end(), [](const KeySize& a, const KeySize& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.key_json < b.key_json;
  });
  all.resize(std::min(all.size(), n));
  return all;
}

// The stats of the "profiles" operator (the source has no state).
const OperatorStats& Profiles(const StatsReport& r) {
  for (const auto& op : r.operators) {
    if (op.uid == "profiles") return op;
  }
  ADD_FAILURE() << "no operator with uid profiles";
  return r.operators.front();
}

void ExpectKeys(const std::vector<KeySize>& got, const std::vector<KeySize>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key_json, want[i].key_json) << "rank " << i;
    EXPECT_EQ(got[i].key_group, want[i].key_group) << "rank " << i;
    EXPECT_EQ(got[i].bytes, want[i].bytes) << "rank " << i;
    EXPECT_EQ(got[i].entries, want[i].entries) << "rank " << i;
  }
}

TEST(StatsTopKeysTest, LargestKeysPerStateAndOperatorAreExactlyTheWrittenOnes) {
  testing::TempDir tmp;
  std::map<std::string, Written> written;
  ASSERT_OK(WriteProfiles(tmp.Sub("sp"), &written));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), tmp.Sub("sp")));
  StatsOptions o;
  o.top_keys = 3;
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, o));
  const OperatorStats& op = Profiles(r);
  EXPECT_EQ(op.largest_keys_unknown, "");
  ASSERT_EQ(op.states.size(), 2u);
  // The planted keys lead: user-7 (profile), user-21 and user-13 (events).
  ASSERT_EQ(op.states[0].largest_keys.size(), 3u);
  EXPECT_EQ(op.states[0].largest_keys[0].key_json, "\"user-7\"");
  EXPECT_EQ(op.states[1].largest_keys[0].key_json, "\"user-13\"");
  EXPECT_EQ(op.states[1].largest_keys[1].key_json, "\"user-21\"");
  ExpectKeys(op.states[0].largest_keys, Expected(written, 0, 3));
  ExpectKeys(op.states[1].largest_keys, Expected(written, 1, 3));
  ExpectKeys(op.largest_keys, Expected(written, -1, 3));
}

TEST(StatsTopKeysTest, AListLongerThanTheKeysHoldsEveryKeyOnceAndPerStateScanStaysOff) {
  testing::TempDir tmp;
  std::map<std::string, Written> written;
  ASSERT_OK(WriteProfiles(tmp.Sub("sp"), &written));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), tmp.Sub("sp")));
  StatsOptions o;
  o.top_keys = 1000;
  o.per_state = false;
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, o));
  const OperatorStats& op = Profiles(r);
  ASSERT_EQ(op.states.size(), 2u);
  ExpectKeys(op.largest_keys, Expected(written, -1, 1000));
  ExpectKeys(op.states[1].largest_keys, Expected(written, 1, 1000));
  EXPECT_EQ(op.states[0].bytes, 0u);  // per-state sizes were not asked for
}

TEST(StatsTopKeysTest, WithoutTopKeysNoKeyIsRanked) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s));
  for (const auto& op : r.operators) {
    EXPECT_TRUE(op.largest_keys.empty());
    for (const auto& st : op.states) EXPECT_TRUE(st.largest_keys.empty());
  }
}

// The sample savepoint's keyed operator: the ranked keys' entries are dump's entries of them.
TEST(StatsTopKeysTest, EntriesMatchWhatDumpListsForEachKey) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("v1/savepoint")));
  StatsOptions o;
  o.top_keys = 1000;
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, o));
  const OperatorStats& agg = r.operators[1];
  std::map<std::string, uint64_t> dumped;
  DumpOptions d;
  d.operator_ref = agg.id_hex;
  ASSERT_OK(Dump(base::Fs::Default(), s, d, [&](const DumpEntry& e) {
              if (e.key_group && e.source == "state") ++dumped[e.key_json];
              return base::Status::OK();
            }).status());
  ASSERT_EQ(agg.largest_keys.size(), dumped.size());
  for (const auto& k : agg.largest_keys) EXPECT_EQ(k.entries, dumped[k.key_json]) << k.key_json;
}

// v1/checkpoints chk-2: changelog handles (materialized base plus log tail). Keys are ranked by
// the replayed values, as dump shows them: count(k) = k+1, +10 if k mod 3 = 0, +100 if k mod 4 = 0
// for keys 0..15 (fixtures/README.md), one VALUE entry each.
TEST(StatsTopKeysTest, ChangelogHandlesRankTheReplayedValues) {
  ASSERT_OK_AND_ASSIGN(
      Snapshot s,
      LoadSnapshot(base::Fs::Default(),
                   FixturePath("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-2")));
  StatsOptions o;
  o.top_keys = 100;
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, o));
  const OperatorStats* op = nullptr;
  for (const auto& candidate : r.operators) {
    if (!candidate.largest_keys.empty()) op = &candidate;
  }
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->largest_keys_unknown, "");
  std::map<std::string, uint64_t> want;  // key JSON -> bytes
  for (int64_t k = 0; k < 16; ++k) {
    const int64_t count = k + 1 + (k % 3 == 0 ? 10 : 0) + (k % 4 == 0 ? 100 : 0);
    ASSERT_OK_AND_ASSIGN(std::string key, sample::Enc(types::Int64(), format::Value(k)));
    ASSERT_OK_AND_ASSIGN(std::string value, sample::Enc(types::Int64(), format::Value(count)));
    want[std::to_string(k)] = key.size() + value.size();
  }
  ASSERT_EQ(op->largest_keys.size(), want.size());
  for (size_t i = 0; i < op->largest_keys.size(); ++i) {
    const KeySize& k = op->largest_keys[i];
    EXPECT_EQ(k.entries, 1u) << k.key_json;
    EXPECT_EQ(k.bytes, want[k.key_json]) << k.key_json;
    if (i > 0) {
      EXPECT_GE(op->largest_keys[i - 1].bytes, k.bytes);
    }
  }
}

TEST(StatsTopKeysTest, CorruptKeyedFileIsAnErrorNamingFileAndOffset) {
  testing::TempDir tmp;
  std::map<std::string, Written> written;
  ASSERT_OK(WriteProfiles(tmp.Sub("sp"), &written));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), tmp.Sub("sp")));
  std::string keyed;
  for (const auto& f : s.files) {
    if (f.path.find("profiles-0") != std::string::npos) keyed = f.resolved_path;
  }
  ASSERT_FALSE(keyed.empty());
  testing::FlipByte(keyed, 40);
  StatsOptions o;
  o.top_keys = 3;
  auto r = ComputeStats(base::Fs::Default(), s, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("profiles-0-keyed.state"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("offset"), std::string::npos) << r.status().message();
}

// A Flink heap key-group stream whose string length was overwritten (0xffffff7f, 12 bytes before
// its end): the error names the stream file and the byte.
TEST(StatsTopKeysTest, CorruptFlinkStreamIsAnErrorNamingFileAndByte) {
  testing::TempDir tmp;
  testing::CopyTree(
      FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint"),
      tmp.Sub("sp"));
  const std::string stream = tmp.Sub("sp/111f37ec-9b7a-461f-9767-8a97880efe04");
  {
    std::fstream f(stream, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good()) << stream;
    f.seekp(0, std::ios::end);
    const auto size = static_cast<std::streamoff>(f.tellp());
    f.seekp(size - 12);
    f.write("\xff\xff\xff\x7f", 4);
  }
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), tmp.Sub("sp")));
  StatsOptions o;
  o.top_keys = 3;
  auto r = ComputeStats(base::Fs::Default(), s, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), base::StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("111f37ec-9b7a-461f-9767-8a97880efe04: at byte 521"),
            std::string::npos)
      << r.status().message();
}

// Apache Flink snapshots (heap and full-layout key-group streams, a native RocksDB checkpoint):
// each key's entries are dump's entries of it, and its bytes add up to no more than the keyed
// state holds where the offsets measure it.
class StatsTopKeysFlinkTest : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(
    Fixtures, StatsTopKeysFlinkTest,
    ::testing::Values("flink/complexKeyed-flink1.20", "flink/rocksdb-full-maxp4-flink1.15",
                      "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint",
                      "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint"));

TEST_P(StatsTopKeysFlinkTest, RanksEveryKeyOnceWithDumpsEntries) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath(GetParam())));
  StatsOptions o;
  o.top_keys = 1000000;
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, o));
  bool any = false;
  for (const auto& op : r.operators) {
    std::map<std::string, uint64_t> dumped;
    DumpOptions d;
    d.operator_ref = op.id_hex;
    ASSERT_OK(Dump(base::Fs::Default(), s, d, [&](const DumpEntry& e) {
                if (e.key_group && e.source == "state") ++dumped[e.key_json];
                return base::Status::OK();
              }).status());
    if (!op.largest_keys_unknown.empty()) continue;
    EXPECT_EQ(op.largest_keys.size(), dumped.size()) << op.name;
    uint64_t bytes = 0;
    for (const auto& k : op.largest_keys) {
      EXPECT_EQ(k.entries, dumped[k.key_json]) << op.name << " " << k.key_json;
      EXPECT_GT(k.bytes, 0u);
      bytes += k.bytes;
      any = true;
    }
    if (!op.key_groups.empty()) {
      EXPECT_LE(bytes, op.keyed_logical_bytes) << op.name;
    }
  }
  EXPECT_TRUE(any);
}

}  // namespace
}  // namespace ckpt::ops
