// rescale-max-parallelism on Apache Flink savepoints (issue 11): a canonical savepoint rewritten to
// a new max parallelism holds every entry it held (same state, key, namespace, user key, value),
// each in the key group murmur(hashCode) % newMaxP gives it and in the subtask whose range holds
// that group; rescaling back restores the original key groups exactly (so the hashCodes are
// Flink's: the first rescale checks each key against the group Flink stored it in). Native
// savepoints, checkpoints and impossible max parallelisms are refused, nothing written, the input
// untouched. Also Flink's key-group arithmetic and the key-group stream writer.
#include "ckpt/ops/rescale.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <map>
#include <tuple>

#include "ckpt/base/fs.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/key_group_assignment.h"
#include "ckpt/flink/key_group_stream.h"
#include "ckpt/flink/key_group_stream_writer.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/flink/snappy_frames.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::FixturePath;
using testing::TempDir;

const char kHeapCanonical[] = "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint";
const char kRocksCanonical[] = "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint";

// (operator, state, key, namespace, user key, value, timestamp) -> count, and the key group
// and subtask of each keyed entry.
using EntryKey = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string>;
struct Dumped {
  std::map<EntryKey, int> entries;
  std::map<EntryKey, uint32_t> key_groups;  // keyed entries only
  std::vector<std::tuple<std::string, uint32_t, uint32_t>> group_and_subtask;  // operator, group, subtask
  size_t keyed = 0;
};

Dumped DumpAll(const std::string& dir) {
  Dumped d;
  auto s = LoadSnapshot(base::Fs::Default(), dir);
  EXPECT_OK(s);
  if (!s.ok()) return d;
  auto n = Dump(base::Fs::Default(), *s, {}, [&](const DumpEntry& e) {
    EntryKey k{e.operator_id, e.state, e.key_json, e.namespace_json, e.user_key_json, e.value_json,
               e.timestamp_json};
    ++d.entries[k];
    if (e.key_group) {
      ++d.keyed;
      d.key_groups[k] = *e.key_group;
      d.group_and_subtask.emplace_back(e.operator_id, *e.key_group, e.subtask.value_or(UINT32_MAX));
    }
    return base::Status::OK();
  });
  EXPECT_OK(n);
  return d;
}

RescaleOptions To(int32_t max) {
  RescaleOptions o;
  o.new_max_parallelism = max;
  return o;
}

void ExpectRescaleKeepsEveryEntry(const char* fixture) {
  SCOPED_TRACE(fixture);
  TempDir tmp;
  const std::string src = FixturePath(fixture);
  const auto before = testing::FileTree(src);
  const Dumped original = DumpAll(src);
  ASSERT_GT(original.keyed, 0u);

  auto r = RescaleMaxParallelism(base::Fs::Default(), src, tmp.Sub("256"), To(256));
  ASSERT_OK(r);
  EXPECT_TRUE(r->written);
  ASSERT_FALSE(r->operators.empty());
  uint64_t entries = 0;
  for (const auto& o : r->operators) {
    EXPECT_EQ(o.new_max_parallelism, 256);
    entries += o.keyed_entries;
  }
  EXPECT_GE(entries, original.keyed);  // a map state's entry is one per user key in dump
  EXPECT_EQ(testing::FileTree(src), before) << "the input changed";

  auto md = flink::ReadFlinkMetadata(base::Fs::Default(), tmp.Sub("256") + "/_metadata");
  ASSERT_OK(md);
  for (const auto& op : md->operators) {
    EXPECT_EQ(op.max_parallelism, 256) << op.IdHex();
    for (const auto& st : op.subtasks) {
      if (st.managed_keyed.is_null()) continue;
      const auto span = flink::KeyGroupSpanOfSubtask(256, op.parallelism, st.index);
      EXPECT_EQ(st.managed_keyed.kg_start, span.start);
      EXPECT_EQ(st.managed_keyed.kg_count, span.count());
    }
  }

  const Dumped rescaled = DumpAll(tmp.Sub("256"));
  EXPECT_EQ(rescaled.entries, original.entries);
  ASSERT_EQ(rescaled.keyed, original.keyed);
  std::map<std::string, int32_t> parallelism;
  for (const auto& op : md->operators) parallelism[op.IdHex()] = op.parallelism;
  for (const auto& [op, group, subtask] : rescaled.group_and_subtask) {
    ASSERT_LT(group, 256u);
    ASSERT_TRUE(parallelism.count(op)) << op;
    const int32_t p = parallelism[op];
    const auto span = flink::KeyGroupSpanOfSubtask(256, p, static_cast<int32_t>(subtask));
    EXPECT_GE(static_cast<int32_t>(group), span.start);
    EXPECT_LE(static_cast<int32_t>(group), span.end);
  }
  // The new key group modulo the old max parallelism (which divides 256) is the original one
  // (murmur % 256 % old == murmur % old), and some keys did move beyond the old range.
  auto before_md = flink::ReadFlinkMetadata(base::Fs::Default(), src + "/_metadata");
  ASSERT_OK(before_md);
  const uint32_t old_max = static_cast<uint32_t>(before_md->operators.front().max_parallelism);
  ASSERT_EQ(256 % old_max, 0u);
  size_t moved = 0;
  for (const auto& [k, g] : rescaled.key_groups) {
    ASSERT_TRUE(original.key_groups.count(k));
    EXPECT_EQ(g % old_max, original.key_groups.at(k));
    moved += g >= old_max;
  }
  EXPECT_GT(moved, 0u);

  // Back to the old max parallelism: every entry in its original key group, as Flink put it.
  auto back = RescaleMaxParallelism(base::Fs::Default(), tmp.Sub("256"), tmp.Sub("128"),
                                    To(static_cast<int32_t>(old_max)));
  ASSERT_OK(back);
  const Dumped again = DumpAll(tmp.Sub("128"));
  EXPECT_EQ(again.entries, original.entries);
  EXPECT_EQ(again.key_groups, original.key_groups);
}

TEST(FlinkRescaleTest, HeapCanonicalSavepointKeepsEveryEntryInItsNewKeyGroup) {
  ExpectRescaleKeepsEveryEntry(kHeapCanonical);
}

TEST(FlinkRescaleTest, RocksDbCanonicalSavepointKeepsEveryEntryInItsNewKeyGroup) {
  ExpectRescaleKeepsEveryEntry(kRocksCanonical);
}

TEST(FlinkRescaleTest, Flink114And120CanonicalSavepointsKeepEveryEntry) {
  ExpectRescaleKeepsEveryEntry("flink/complexKeyed-flink1.14");  // metadata v3, no properties
  ExpectRescaleKeepsEveryEntry("flink/complexKeyed-flink1.20");  // v4
}

TEST(FlinkRescaleTest, PreFlink113KeyGroupsHandlesAreRefused) {
  TempDir tmp;
  ASSERT_STATUS(
      RescaleMaxParallelism(base::Fs::Default(), FixturePath("flink/complexKeyed-flink1.9"),
                            tmp.Sub("out"), To(256))
          .status(),
      kUnimplemented, "tag 3");
}

TEST(FlinkRescaleTest, DryRunReassignsEveryKeyAndWritesNothing) {
  TempDir tmp;
  RescaleOptions o = To(512);
  o.dry_run = true;
  auto r =
      RescaleMaxParallelism(base::Fs::Default(), FixturePath(kHeapCanonical), tmp.Sub("out"), o);
  ASSERT_OK(r);
  EXPECT_FALSE(r->written);
  ASSERT_FALSE(r->operators.empty());
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out") + ".tmp").ok());
}

TEST(FlinkRescaleTest, NativeSavepointsAndCheckpointsAreRefusedWithTheReason) {
  TempDir tmp;
  for (const char* f : {"flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint-native",
                        "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint-native"}) {
    ASSERT_STATUS(
        RescaleMaxParallelism(base::Fs::Default(), FixturePath(f), tmp.Sub("out"), To(256))
            .status(),
        kUnimplemented, "NATIVE savepoint");
  }
  for (const char* f : {"flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint",
                        "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint"}) {
    ASSERT_STATUS(
        RescaleMaxParallelism(base::Fs::Default(), FixturePath(f), tmp.Sub("out"), To(256))
            .status(),
        kUnimplemented, "checkpoint");
  }
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
}

TEST(FlinkRescaleTest, ImpossibleMaxParallelismOrOperatorIsRefused) {
  TempDir tmp;
  const std::string src = FixturePath(kHeapCanonical);
  ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), src, tmp.Sub("out"), To(0)).status(),
                kInvalidArgument, "1..32768");
  ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), src, tmp.Sub("out"), To(40000)).status(),
                kInvalidArgument, "1..32768");
  auto md = flink::ReadFlinkMetadata(base::Fs::Default(), src + "/_metadata");
  ASSERT_OK(md);
  int32_t p = 0;
  for (const auto& op : md->operators) p = std::max(p, op.parallelism);
  if (p > 1) {
    ASSERT_STATUS(
        RescaleMaxParallelism(base::Fs::Default(), src, tmp.Sub("out"), To(p - 1)).status(),
        kInvalidArgument, "parallelism");
  }
  RescaleOptions o = To(256);
  o.operators = {"no-such-operator"};
  ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), src, tmp.Sub("out"), o).status(),
                kInvalidArgument, "no-such-operator");
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
}

TEST(FlinkRescaleTest, AnExistingOutputIsNeverOverwritten) {
  TempDir tmp;
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("out")));
  testing::WriteTextFile(tmp.Sub("out") + "/keep", "mine");
  ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), FixturePath(kHeapCanonical),
                                      tmp.Sub("out"), To(256))
                    .status(),
                kAlreadyExists, "");
  auto kept = base::ReadFileToString(base::Fs::Default(), tmp.Sub("out") + "/keep");
  ASSERT_OK(kept);
  EXPECT_EQ(*kept, "mine");
}

TEST(FlinkKeyGroupAssignmentTest, SubtaskRangesAreFlinks) {
  auto s = flink::KeyGroupSpanOfSubtask(128, 2, 0);
  EXPECT_EQ(s.start, 0);
  EXPECT_EQ(s.end, 63);
  s = flink::KeyGroupSpanOfSubtask(128, 2, 1);
  EXPECT_EQ(s.start, 64);
  EXPECT_EQ(s.end, 127);
  s = flink::KeyGroupSpanOfSubtask(256, 3, 1);  // ((1*256+2)/3, (2*256-1)/3)
  EXPECT_EQ(s.start, 86);
  EXPECT_EQ(s.end, 170);
  // The ranges of all subtasks tile [0, maxP).
  int32_t next = 0;
  for (int32_t i = 0; i < 7; ++i) {
    s = flink::KeyGroupSpanOfSubtask(1000, 7, i);
    EXPECT_EQ(s.start, next);
    next = s.end + 1;
  }
  EXPECT_EQ(next, 1000);
}

TEST(FlinkKeyGroupAssignmentTest, HashCodesOfSerializedKeysAreJavas) {
  flink::SerializerSnapshot str;
  str.class_name = "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot";
  // "k-07": length+1 = 5, then one byte per ASCII char. "k-07".hashCode() = 3287349.
  const std::string bytes = std::string("\x05", 1) + "k-07";
  flink::DataInput in(bytes, "test");
  auto h = flink::JavaHashCode(str, in);
  ASSERT_OK(h);
  EXPECT_EQ(*h, ((('k' * 31 + '-') * 31 + '0') * 31 + '7'));
  EXPECT_TRUE(in.at_end());

  flink::SerializerSnapshot lng;
  lng.class_name = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
  const std::string big("\x00\x00\x00\x01\x00\x00\x00\x02", 8);  // (1L << 32) + 2: hash 1 ^ 2 = 3
  flink::DataInput in2(big, "test");
  auto h2 = flink::JavaHashCode(lng, in2);
  ASSERT_OK(h2);
  EXPECT_EQ(*h2, 3);

  flink::SerializerSnapshot tuple;
  tuple.class_name = "org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot";
  tuple.outer = "org.apache.flink.api.java.tuple.Tuple2";
  tuple.nested = {lng, str};
  const std::string tb = big + bytes;
  flink::DataInput in3(tb, "test");
  auto h3 = flink::JavaHashCode(tuple, in3);
  ASSERT_OK(h3);
  EXPECT_EQ(*h3, 31 * 3 + *h);

  flink::SerializerSnapshot pojo;
  pojo.class_name = "org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot";
  flink::DataInput in4(bytes, "test");
  ASSERT_STATUS(flink::JavaHashCode(pojo, in4).status(), kInvalidArgument, "PojoSerializerSnapshot");
  tuple.outer = "com.example.MyTuple2";  // a subclass may override hashCode()
  EXPECT_FALSE(flink::UnhashableSerializer(tuple).empty());
}

// Row keys: the expected values are what Row.hashCode() returns on Flink 1.20.5's and 2.3.0's
// JVMs for the same rows (Row.of(3L, "r3", 21), with f1 null, as DELETE, Row.of(Row.of(1L), 2)).
TEST(FlinkKeyGroupAssignmentTest, RowHashCodeIsFlinks) {
  flink::SerializerSnapshot lng, str, in;
  lng.class_name = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
  str.class_name = "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot";
  in.class_name = "org.apache.flink.api.common.typeutils.base.IntSerializer$IntSerializerSnapshot";
  flink::SerializerSnapshot row;
  row.class_name = "org.apache.flink.api.java.typeutils.runtime.RowSerializer$RowSerializerSnapshot";
  row.outer_version = 3;  // with the 2 row-kind bits in the null mask
  row.nested = {lng, str, in};
  const std::string three("\x00\x00\x00\x00\x00\x00\x00\x03", 8);
  const std::string r3 = std::string("\x03", 1) + "r3";
  const std::string i21("\x00\x00\x00\x15", 4);
  auto hash = [&](const flink::SerializerSnapshot& s, const std::string& bytes) {
    flink::DataInput d(bytes, "test");
    auto h = flink::JavaHashCode(s, d);
    EXPECT_OK(h);
    EXPECT_TRUE(d.at_end());
    return h.ok() ? *h : 0;
  };
  // Mask bits, most significant first: kind bit 0, kind bit 1, then one "is null" bit per field.
  EXPECT_EQ(hash(row, std::string("\x00", 1) + three + r3 + i21), 174613);
  EXPECT_EQ(hash(row, std::string("\x10", 1) + three + i21), 62517);  // f1 null
  EXPECT_EQ(hash(row, std::string("\xC0", 1) + three + r3 + i21), 174706);  // DELETE (kind 3)
  flink::SerializerSnapshot inner = row;
  inner.nested = {lng};
  flink::SerializerSnapshot outer = row;
  outer.nested = {inner, in};
  const std::string one("\x00\x00\x00\x00\x00\x00\x00\x01", 8);
  EXPECT_EQ(hash(outer, std::string("\x00", 1) + std::string("\x00", 1) + one +
                            std::string("\x00\x00\x00\x02", 4)),
            3908);
  EXPECT_TRUE(flink::UnhashableSerializer(outer).empty());
}

TEST(FlinkKeyGroupAssignmentTest, MurmurHashIsNonNegativeAndSpreadsKeys) {
  std::map<int32_t, int> groups;
  for (int32_t i = -1000; i < 1000; ++i) {
    const int32_t h = flink::FlinkMurmurHash(i);
    EXPECT_GE(h, 0);
    ++groups[h % 128];
  }
  EXPECT_EQ(groups.size(), 128u);
}

TEST(FlinkKeyGroupStreamWriterTest, SectionsReadBackThroughTheReaderPlainAndCompressed) {
  for (bool compressed : {false, true}) {
    SCOPED_TRACE(compressed ? "compressed" : "plain");
    flink::KeyGroupStreamWriter w("HEAD", compressed);
    std::vector<flink::KeyGroupWriteEntry> entries;
    for (int i = 0; i < 2000; ++i) {
      flink::KeyGroupWriteEntry e;
      e.state_id = static_cast<uint16_t>(i % 3);
      e.key = std::string("\x05", 1) + "key-" + std::to_string(i);
      e.value = std::string(static_cast<size_t>(i % 50), 'v');
      entries.push_back(std::move(e));
    }
    int64_t empty = -1;
    ASSERT_OK(w.AddKeyGroup({}, &empty));
    EXPECT_EQ(empty, 0);
    int64_t off = 0;
    ASSERT_OK(w.AddKeyGroup(entries, &off));
    EXPECT_EQ(off, 4);
    std::string stream = w.Release();
    std::string plain = stream;
    uint64_t at = static_cast<uint64_t>(off);
    if (compressed) {
      auto d = flink::DecompressSnappyFrames(std::string_view(stream).substr(4), "test", 4);
      ASSERT_OK(d);
      plain = *d;
      at = 0;
    }
    std::map<std::string, std::pair<uint16_t, std::string>> seen;
    int last_state = -1;
    ASSERT_OK(flink::ReadKeyGroupSection(plain, at, "test", [&](const flink::KeyGroupEntry& e) {
      EXPECT_GE(static_cast<int>(e.state_id), last_state);  // grouped by state id
      last_state = e.state_id;
      seen[e.key] = {e.state_id, std::string(e.value)};
      return base::Status::OK();
    }));
    ASSERT_EQ(seen.size(), entries.size());
    for (const auto& e : entries) {
      ASSERT_TRUE(seen.count(e.key));
      EXPECT_EQ(seen[e.key].first, e.state_id);
      EXPECT_EQ(seen[e.key].second, e.value);
    }
  }
}

// The input is never modified: an output at or inside the Flink savepoint is refused.
TEST(FlinkRescaleTest, RefusesAnOutputInsideItsInput) {
  TempDir tmp;
  const std::string sp = tmp.Sub("sp");
  testing::CopyTree(FixturePath(kHeapCanonical), sp);
  const auto before = testing::FileTree(sp);
  for (const std::string& out : {sp, sp + "/rescaled"}) {
    SCOPED_TRACE(out);
    ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), sp, out, To(256)).status(),
                  kInvalidArgument, "refusing to write the output " + out);
  }
  auto cli = testing::RunTool(
      {"rescale-max-parallelism", "sp", "--max-parallelism", "256", "--to", "sp/out"}, tmp.path());
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("inside the input"), std::string::npos) << cli.err;
  EXPECT_EQ(testing::FileTree(sp), before);
}

// A key's group is murmur(hashCode) % max parallelism: metadata recording max parallelism 0
// and a key-group range near 2^31 died of SIGFPE (exit 136). Both are corruption naming the
// metadata, and nothing is written.
TEST(FlinkRescaleTest, ImpossibleRecordedMaxParallelismOrKeyGroupRangeIsCorruption) {
  struct Case {
    std::string name;
    int32_t max_parallelism;  // 0: keep the fixture's
    int32_t key_group_start;  // -1: keep the fixture's
    std::string needle;
  };
  const int32_t int_max = std::numeric_limits<int32_t>::max();
  for (const Case& c : std::vector<Case>{
           {"no max parallelism, huge range", -2, int_max - 1, "max parallelism 0"},
           {"negative max parallelism", -1, -1, "max parallelism -1"},
           {"range near 2^31", 0, int_max - 1, "not a range of [0, max parallelism"}}) {
    SCOPED_TRACE(c.name);
    TempDir tmp;
    const std::string sp = tmp.Sub("sp");
    testing::CopyTree(FixturePath(kHeapCanonical), sp);
    ASSERT_OK_AND_ASSIGN(flink::Metadata md,
                         flink::ReadFlinkMetadata(base::Fs::Default(), sp + "/_metadata"));
    for (auto& op : md.operators) {
      bool keyed = false;
      for (auto& st : op.subtasks) {
        if (st.managed_keyed.is_null() || st.managed_keyed.key_groups == nullptr) continue;
        keyed = true;
        if (c.key_group_start < 0) continue;
        auto kg = std::make_shared<flink::KeyGroupsHandle>(*st.managed_keyed.key_groups);
        kg->start = c.key_group_start;
        st.managed_keyed.kg_start = kg->start;
        st.managed_keyed.key_groups = std::move(kg);
      }
      if (keyed && c.max_parallelism != 0) op.max_parallelism = c.max_parallelism == -2 ? 0 : -1;
    }
    ASSERT_OK(flink::WriteFlinkMetadata(base::Fs::Default(), md, sp + "/_metadata"));
    ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), sp, tmp.Sub("out"), To(256)).status(),
                  kCorruption, c.needle);
    auto cli = testing::RunTool(
        {"rescale-max-parallelism", "sp", "--max-parallelism", "256", "--to", "out"}, tmp.path());
    EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
    EXPECT_NE(cli.err.find("_metadata"), std::string::npos) << cli.err;
    EXPECT_FALSE(testing::Exists(tmp.Sub("out")));
  }
}

}  // namespace
}  // namespace ckpt::ops
