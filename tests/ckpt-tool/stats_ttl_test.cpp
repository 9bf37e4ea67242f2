// Tests of stats --ttl-expired-at (ops::ComputeStats with StatsOptions::ttl_expired_at_ms; the
// TTL reading in ops/src/formats/flink/dump.cpp): a real Flink 2.0 canonical savepoint (RocksDB,
// full-layout key-group streams) rewritten so that its value state is a TTL state, as Flink
// writes one: the state's VALUE_SERIALIZER snapshot wrapped in TtlStateFactory's
// TtlSerializerSnapshot (nested: the LongSerializer of the last access, then the user value's
// serializer) and each value preceded by its i64 last-access timestamp. Half of the values get
// batch A's timestamp, half batch B's; the expected counts come from what was written.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/key_group_stream.h"
#include "ckpt/flink/key_group_stream_writer.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;

constexpr char kSource[] = "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint";
constexpr int64_t kBatchA = 1796691600000;  // 2026-12-08T01:00:00Z (date -d ... +%s)
constexpr int64_t kBatchB = kBatchA + 7'200'000;  // two hours later
constexpr int64_t kTtl = 3'600'000;               // 1h

// Java DataOutput, big-endian.
std::string BigEndian(uint64_t v, int bytes) {
  std::string s;
  for (int i = bytes - 1; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}
std::string I32(int32_t v) { return BigEndian(static_cast<uint32_t>(v), 4); }
std::string I64(int64_t v) { return BigEndian(static_cast<uint64_t>(v), 8); }
std::string Utf(const std::string& s) { return BigEndian(s.size(), 2) + s; }

// What TtlSerializerSnapshot adds in front of the wrapped value serializer's versioned snapshot:
// class and version 2; CompositeTypeSerializerSnapshot magic and outer version 2; the nested
// snapshots' magic, version 1 and count 2; the LongSerializer snapshot (version 3).
std::string TtlSnapshotHead() {
  return Utf("org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot") + I32(2) +
         I32(0x000DE704) + I32(2) + I32(0x001457FD) + I32(1) + I32(2) +
         Utf("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot") +
         I32(3);
}

struct Truth {
  uint64_t entries[2] = {0, 0};  // batch A, batch B
  uint64_t bytes[2] = {0, 0};
  std::string short_file;  // with short_value: the stream holding the 3-byte value
};

// Copies kSource to `dst` with the values of the value state "state-name" TTL-wrapped (see the file comment).
// With `short_value` the first wrapped value is 3 bytes instead (too short for a timestamp).
void WriteTtlCopy(const std::string& dst, Truth* truth, bool short_value = false) {
  std::filesystem::copy(FixturePath(kSource), dst, std::filesystem::copy_options::recursive);
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(flink::Metadata md, flink::ReadFlinkMetadata(fs, dst + "/_metadata"));
  uint64_t n = 0;
  for (auto& op : md.operators) {
    // The two Flat Maps (the timely operators' "state-name" is declared only in their streams'
    // meta information, so stats does not list it).
    if (op.IdHex() != "d5c8b168c6cbfe8c507a10f88b325243" &&
        op.IdHex() != "dab25811652d3d4983a30c6e4afacb1c") {
      continue;
    }
    for (auto& st : op.subtasks) {
      flink::KeyedHandle& h = st.managed_keyed;
      if (!h.key_groups) continue;
      flink::KeyGroupsHandle kg = *h.key_groups;
      ASSERT_OK_AND_ASSIGN(std::string path, flink::LocalPath(md, kg.delegate));
      const std::string bytes = ::ckpt::testing::ReadBytes(path);
      ASSERT_OK_AND_ASSIGN(flink::KeyedBackendMeta meta,
                           flink::ReadKeyedBackendMeta(flink::StreamMetaBytes(bytes, kg.offsets), path));
      ASSERT_FALSE(meta.compressed);
      std::string head = bytes.substr(0, meta.size_bytes);
      std::vector<bool> wrapped(meta.states.size(), false);
      for (size_t i = 0; i < meta.states.size(); ++i) {
        if (meta.states[i].name != "state-name") continue;
        const size_t name = head.find(Utf(meta.states[i].name));
        const std::string tag = Utf("VALUE_SERIALIZER") + I32(2);
        const size_t at = head.find(tag, name);
        ASSERT_NE(at, std::string::npos);
        head.insert(at + tag.size(), TtlSnapshotHead());
        wrapped[i] = true;
      }
      if (std::find(wrapped.begin(), wrapped.end(), true) == wrapped.end()) continue;
      flink::KeyGroupStreamWriter w(head, /*compressed=*/false);
      const std::vector<int64_t> original = kg.offsets;
      for (size_t g = 0; g < original.size(); ++g) {
        int64_t& off = kg.offsets[g];
        // An empty key group's offset is the next one's (Flink) or 0.
        if (off <= 0 || (g + 1 < original.size() && original[g + 1] == off)) {
          off = 0;
          continue;
        }
        std::vector<flink::KeyGroupWriteEntry> entries;
        ASSERT_OK(flink::ReadKeyGroupSection(bytes, static_cast<uint64_t>(off), path,
                                             [&](const flink::KeyGroupEntry& e) {
          flink::KeyGroupWriteEntry out{e.state_id, e.key, std::string(e.value)};
          if (wrapped[e.state_id]) {
            const int batch = static_cast<int>(n++ % 2);
            if (short_value && truth->short_file.empty()) {
              out.value = "abc";
              truth->short_file = path;
            } else {
              out.value = I64(batch == 0 ? kBatchA : kBatchB) + out.value;
              ++truth->entries[batch];
              truth->bytes[batch] += out.value.size();
            }
          }
          entries.push_back(std::move(out));
          return base::Status::OK();
        }));
        ASSERT_OK(w.AddKeyGroup(std::move(entries), &off));
      }
      kg.delegate.size = static_cast<int64_t>(w.bytes().size());
      ASSERT_OK(base::WriteFileAtomic(fs, path, w.bytes()));
      h.key_groups = std::make_shared<flink::KeyGroupsHandle>(kg);
    }
  }
  ASSERT_OK(flink::WriteFlinkMetadata(fs, md, dst + "/_metadata"));
}

base::Result<StatsReport> Stats(const std::string& dir, int64_t at) {
  CKPT_ASSIGN_OR_RETURN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  StatsOptions options;
  options.ttl_expired_at_ms = at;
  options.ttl_ms = kTtl;
  return ComputeStats(base::Fs::Default(), s, options);
}

// The TTL states' totals over all operators; every other state must say ttl false.
TtlStats Sum(const StatsReport& r, std::vector<std::string>* ttl_states) {
  TtlStats sum;
  bool first = true;
  for (const auto& op : r.operators) {
    EXPECT_EQ(op.ttl_unknown, "") << op.name;
    for (const auto& st : op.states) {
      if (!st.ttl) {
        EXPECT_EQ(st.ttl_stats.entries, 0u) << st.name;
        continue;
      }
      ttl_states->push_back(op.name + "/" + st.name);
      sum.entries += st.ttl_stats.entries;
      sum.expired_entries += st.ttl_stats.expired_entries;
      sum.bytes += st.ttl_stats.bytes;
      sum.expired_bytes += st.ttl_stats.expired_bytes;
      if (st.ttl_stats.entries == 0) continue;
      if (first || st.ttl_stats.min_last_access < sum.min_last_access) {
        sum.min_last_access = st.ttl_stats.min_last_access;
      }
      if (first || st.ttl_stats.max_last_access > sum.max_last_access) {
        sum.max_last_access = st.ttl_stats.max_last_access;
      }
      first = false;
    }
  }
  return sum;
}

TEST(StatsTtlTest, ExpiredSharesOfARewrittenFlinkSavepointAtTimesAroundTheBatches) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("ttl");
  Truth truth;
  ASSERT_NO_FATAL_FAILURE(WriteTtlCopy(dir, &truth));
  ASSERT_GT(truth.entries[0], 0u);
  ASSERT_GT(truth.entries[1], 0u);
  const uint64_t all = truth.entries[0] + truth.entries[1];
  const uint64_t all_bytes = truth.bytes[0] + truth.bytes[1];
  struct Case {
    int64_t at;
    uint64_t expired;
    uint64_t expired_bytes;
  };
  const Case cases[] = {
      {kBatchA, 0, 0},                                   // before anything expires
      {kBatchA + kTtl - 1, 0, 0},                        // 1 ms before batch A expires
      {kBatchA + kTtl, truth.entries[0], truth.bytes[0]},  // last access + ttl <= time
      {kBatchB + kTtl - 1, truth.entries[0], truth.bytes[0]},  // between the batches
      {kBatchB + kTtl, all, all_bytes},                  // after all
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(StatsReport r, Stats(dir, c.at));
    std::vector<std::string> ttl_states;
    const TtlStats sum = Sum(r, &ttl_states);
    // Both "Flat Map" operators hold the value state "state-name"; timers and the source's
    // union state have no TTL.
    EXPECT_EQ(ttl_states, (std::vector<std::string>{"Flat Map/state-name", "Flat Map/state-name"}));
    EXPECT_EQ(sum.entries, all) << c.at;
    EXPECT_EQ(sum.bytes, all_bytes) << c.at;
    EXPECT_EQ(sum.expired_entries, c.expired) << c.at;
    EXPECT_EQ(sum.expired_bytes, c.expired_bytes) << c.at;
    EXPECT_EQ(sum.min_last_access, kBatchA);
    EXPECT_EQ(sum.max_last_access, kBatchB);
  }
}

TEST(StatsTtlTest, WithoutTheOptionNoStateIsReportedAsTtl) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("ttl");
  Truth truth;
  ASSERT_NO_FATAL_FAILURE(WriteTtlCopy(dir, &truth));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s));
  for (const auto& op : r.operators) {
    for (const auto& st : op.states) EXPECT_FALSE(st.ttl) << st.name;
  }
}

TEST(StatsTtlTest, OwnFormatStatesAreNeverTtl) {
  // Our engine has no state TTL: a real engine checkpoint reports every state as not TTL.
  const std::string dir = FixturePath("engine-v1/savepoint-e0e1e2-30e19071c9cd");
  ASSERT_OK_AND_ASSIGN(StatsReport r, Stats(dir, kBatchB));
  size_t states = 0;
  for (const auto& op : r.operators) {
    EXPECT_EQ(op.ttl_unknown, "");
    for (const auto& st : op.states) {
      EXPECT_FALSE(st.ttl) << st.name;
      ++states;
    }
  }
  EXPECT_GT(states, 0u);
}

TEST(StatsTtlTest, AValueTooShortForItsTimestampIsCorruptionNamingFileAndByte) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("ttl");
  Truth truth;
  ASSERT_NO_FATAL_FAILURE(WriteTtlCopy(dir, &truth, /*short_value=*/true));
  const auto r = Stats(dir, kBatchB);
  ASSERT_STATUS(r, kCorruption, "too short for its 8-byte last-access timestamp");
  const std::string name = std::filesystem::path(truth.short_file).filename().string();
  EXPECT_NE(r.status().message().find(name), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("at byte "), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("state-name"), std::string::npos) << r.status().ToString();
}

TEST(StatsTtlTest, ParseTimeMsTakesIsoUtcAndEpochMillis) {
  ASSERT_OK_AND_ASSIGN(int64_t iso, ParseTimeMs("2026-12-08T01:00:00Z"));
  EXPECT_EQ(iso, kBatchA);
  ASSERT_OK_AND_ASSIGN(int64_t frac, ParseTimeMs("2026-12-08T01:00:00.25Z"));
  EXPECT_EQ(frac, kBatchA + 250);
  ASSERT_OK_AND_ASSIGN(int64_t epoch, ParseTimeMs("1796691600000"));
  EXPECT_EQ(epoch, kBatchA);
  ASSERT_OK_AND_ASSIGN(int64_t leap, ParseTimeMs("2024-02-29T00:00:00Z"));
  EXPECT_EQ(leap, 1709164800000);  // date -d 2024-02-29T00:00:00Z +%s
  for (const char* bad : {"", "2026-12-08", "2026-12-08T01:00:00", "2026-12-08T01:00:00+01:00",
                          "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z", "2026-12-08T24:00:00Z",
                          "tomorrow", "-5"}) {
    ASSERT_STATUS(ParseTimeMs(bad), kInvalidArgument, std::string("time '") + bad + "'");
  }
}

// Real Flink TTL snapshots (fixtures/flink-ttl: Flink 1.20 and 2.3, hashmap and RocksDB,
// checkpoint and canonical savepoint) against their truth.json: the TTL of the job, and per key
// its batch and its entries per state; every TTL timestamp of batch A lies at or before batch A's
// max_after_write_ms, every one of batch B at or after batch B's min_before_write_ms.
struct FixtureTruth {
  int64_t ttl_ms = 0;
  int64_t a_min = 0, a_max = 0, b_min = 0, b_max = 0;
  std::string operator_id;
  std::map<std::string, uint64_t> a_entries, all_entries;  // by TTL state
};

FixtureTruth ReadTruth(const std::string& dir) {
  FixtureTruth t;
  google::protobuf::Struct root;
  const std::string text = ::ckpt::testing::ReadBytes(dir + "/truth.json");
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &root).ok()) << dir;
  const auto& f = root.fields();
  t.ttl_ms = static_cast<int64_t>(f.at("ttl").struct_value().fields().at("ttl_ms").number_value());
  t.operator_id = f.at("operator").struct_value().fields().at("operator_id").string_value();
  for (const auto& b : f.at("batches").list_value().values()) {
    const auto& bf = b.struct_value().fields();
    const auto lo = static_cast<int64_t>(bf.at("min_before_write_ms").number_value());
    const auto hi = static_cast<int64_t>(bf.at("max_after_write_ms").number_value());
    if (bf.at("batch").string_value() == "A") {
      t.a_min = lo;
      t.a_max = hi;
    } else {
      t.b_min = lo;
      t.b_max = hi;
    }
  }
  for (const auto& k : f.at("keys").list_value().values()) {
    const auto& kf = k.struct_value().fields();
    for (const char* state : {"ttl-value", "ttl-map", "ttl-list"}) {
      const auto n = static_cast<uint64_t>(kf.at(state).number_value());
      t.all_entries[state] += n;
      if (kf.at("batch").string_value() == "A") t.a_entries[state] += n;
    }
  }
  return t;
}

std::string TtlFixtureTestName(const ::testing::TestParamInfo<const char*>& param) {
  std::string n = param.param;
  std::replace_if(n.begin(), n.end(), [](char c) { return !std::isalnum(c); }, '_');
  return n;
}

class StatsTtlFixtureTest : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(
    Fixtures, StatsTtlFixtureTest,
    ::testing::Values("ttl-hashmap-flink1.20-checkpoint", "ttl-hashmap-flink1.20-savepoint",
                      "ttl-hashmap-flink2.3-checkpoint", "ttl-hashmap-flink2.3-savepoint",
                      "ttl-rocksdb-flink1.20-checkpoint", "ttl-rocksdb-flink1.20-savepoint",
                      "ttl-rocksdb-flink2.3-checkpoint", "ttl-rocksdb-flink2.3-savepoint"),
    TtlFixtureTestName);

TEST_P(StatsTtlFixtureTest, ExpiredCountsMatchTheTruthsBatches) {
  const std::string dir = FixturePath(std::string("flink-ttl/") + GetParam());
  const FixtureTruth t = ReadTruth(dir);
  ASSERT_GT(t.ttl_ms, 0);
  // Between the batches: all of A expired, none of B (the gap is 2.5 s).
  ASSERT_LT(t.a_max + t.ttl_ms, t.b_min + t.ttl_ms);
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir + "/snapshot"));
  struct Case {
    int64_t at;
    const std::map<std::string, uint64_t>* expired;  // nullptr: none
  };
  const Case cases[] = {{t.a_min + t.ttl_ms - 1, nullptr},  // before anything expires
                        {t.a_max + t.ttl_ms, &t.a_entries},   // between the batches
                        {t.b_min + t.ttl_ms - 1, &t.a_entries},
                        {t.b_max + t.ttl_ms, &t.all_entries}};  // after all
  for (const Case& c : cases) {
    StatsOptions options;
    options.ttl_expired_at_ms = c.at;
    options.ttl_ms = t.ttl_ms;
    ASSERT_OK_AND_ASSIGN(StatsReport r, ComputeStats(base::Fs::Default(), s, options));
    std::map<std::string, TtlStats> seen;
    for (const auto& op : r.operators) {
      EXPECT_EQ(op.ttl_unknown, "") << op.id_hex;
      for (const auto& st : op.states) {
        if (op.id_hex != t.operator_id) {
          EXPECT_FALSE(st.ttl) << op.id_hex << " " << st.name;
          continue;
        }
        EXPECT_EQ(st.ttl, t.all_entries.count(st.name) > 0) << st.name;
        if (st.ttl) seen[st.name] = st.ttl_stats;
      }
    }
    ASSERT_EQ(seen.size(), 3u) << c.at;
    for (const auto& [state, ts] : seen) {
      const uint64_t expired = c.expired == nullptr ? 0 : c.expired->at(state);
      EXPECT_EQ(ts.entries, t.all_entries.at(state)) << state;
      EXPECT_EQ(ts.expired_entries, expired) << state << " at " << c.at;
      // Each TTL entry: the 8-byte timestamp and a Long.
      EXPECT_EQ(ts.bytes, 16 * ts.entries) << state;
      EXPECT_EQ(ts.expired_bytes, 16 * expired) << state;
      EXPECT_GE(ts.min_last_access, t.a_min) << state;
      EXPECT_LE(ts.min_last_access, t.a_max) << state;
      EXPECT_GE(ts.max_last_access, t.b_min) << state;
      EXPECT_LE(ts.max_last_access, t.b_max) << state;
    }
  }
}

// The TTL report rides on the per-state scan: with --top-keys too, the largest keys and entry
// counts are those of --top-keys alone.
TEST_P(StatsTtlFixtureTest, TopKeysAndEntryCountsAreUnchangedByTheTtlReport) {
  const std::string dir = FixturePath(std::string("flink-ttl/") + GetParam());
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir + "/snapshot"));
  StatsOptions plain;
  plain.top_keys = 5;
  StatsOptions ttl = plain;
  ttl.ttl_expired_at_ms = kBatchB;
  ttl.ttl_ms = kTtl;
  ASSERT_OK_AND_ASSIGN(StatsReport a, ComputeStats(base::Fs::Default(), s, plain));
  ASSERT_OK_AND_ASSIGN(StatsReport b, ComputeStats(base::Fs::Default(), s, ttl));
  ASSERT_EQ(a.operators.size(), b.operators.size());
  size_t keys = 0;
  for (size_t i = 0; i < a.operators.size(); ++i) {
    const auto& x = a.operators[i].largest_keys;
    const auto& y = b.operators[i].largest_keys;
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k].key_json, y[k].key_json);
      EXPECT_EQ(x[k].bytes, y[k].bytes);
      EXPECT_EQ(x[k].entries, y[k].entries);
    }
    keys += x.size();
    for (size_t j = 0; j < a.operators[i].states.size(); ++j) {
      EXPECT_EQ(a.operators[i].states[j].entries, b.operators[i].states[j].entries);
    }
  }
  EXPECT_EQ(keys, 5u);  // one keyed operator
}

// The CLI: JSON and text for the rewritten savepoint; malformed TIME or DURATION are usage errors
// naming the option.
TEST(StatsTtlTest, CliReportsAndRefusesMalformedOptions) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("ttl");
  Truth truth;
  ASSERT_NO_FATAL_FAILURE(WriteTtlCopy(dir, &truth));
  // Between the batches: batch A expired, batch B not.
  const auto json = testing::RunTool({"stats", "ttl", "--ttl-expired-at", "2026-12-08T02:30:00Z",
                                      "--ttl", "1h", "--format", "json"},
                                     tmp.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  uint64_t expired = 0;
  size_t pos = 0;
  const std::string key = "\"expired_entries\":";
  while ((pos = json.out.find(key, pos)) != std::string::npos) {
    pos += key.size();
    expired += std::stoull(json.out.substr(pos));
  }
  EXPECT_EQ(expired, truth.entries[0]) << json.out;
  EXPECT_NE(json.out.find("\"ttl\":false"), std::string::npos);
  EXPECT_NE(json.out.find("\"ttl\":true"), std::string::npos);
  const auto text = testing::RunTool(
      {"stats", "ttl", "--ttl-expired-at", "1796697000000", "--ttl", "3600000ms"}, tmp.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("TTL state expired at 2026-12-08T02:30:00.000Z with a TTL of 1h"),
            std::string::npos)
      << text.out;
  struct Bad {
    std::vector<std::string> args;
    std::string says;
  };
  const Bad bad[] = {
      {{"--ttl-expired-at", "yesterday", "--ttl", "1h"}, "--ttl-expired-at: time 'yesterday'"},
      {{"--ttl-expired-at", "2026-12-08T02:30:00Z", "--ttl", "1 hour"}, "--ttl: duration '1 hour'"},
      {{"--ttl-expired-at", "2026-12-08T02:30:00Z", "--ttl", "0s"}, "--ttl: duration '0s'"},
      {{"--ttl-expired-at", "2026-12-08T02:30:00Z"}, "--ttl-expired-at needs --ttl"},
      {{"--ttl", "1h"}, "--ttl is the TTL for --ttl-expired-at"},
  };
  for (const Bad& b : bad) {
    std::vector<std::string> args = {"stats", "ttl"};
    args.insert(args.end(), b.args.begin(), b.args.end());
    const auto r = testing::RunTool(args, tmp.path());
    EXPECT_EQ(r.exit_code, 2) << b.says;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace ckpt::ops
