// Golden tests of ckpt-tool over real Apache Flink snapshots (fixtures/flink: 13 snapshots from
// Flink's own test resources, Flink 1.9 - 2.1, metadata v2 - v6) and their corrupt counterparts
// (fixtures/flink-corrupt). The fixtures are frozen (SHA256SUMS), so the output is stable.
// CKPT_UPDATE_GOLDEN=1 rewrites tests/ckpt-tool/golden/flink-*.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

// Short golden names: "udf-hashmap-checkpoint" for the long ITCase names.
std::string Short(const std::string& name) {
  const std::string p = "new-stateful-udf-migration-itcase-flink2.0-";
  if (name.rfind(p, 0) == 0) return "udf-" + name.substr(p.size());
  return name;
}

TEST(FlinkGoldenTest, LsShowFilesValidateEveryFixture) {
  for (const std::string& f : FlinkFixtureNames()) {
    const std::string dir = "flink/" + f;
    ExpectToolGolden("flink-ls-" + Short(f) + ".text", {"ls", dir}, 0);
    ExpectToolGolden("flink-show-" + Short(f) + ".text", {"show", dir}, 0);
    ExpectToolGolden("flink-files-" + Short(f) + ".text", {"files", dir}, 0);
    ExpectToolGolden("flink-validate-" + Short(f) + ".text", {"validate", "--deep", dir}, 0);
  }
}

TEST(FlinkGoldenTest, JsonOfASavepointAndACheckpoint) {
  ExpectToolGolden("flink-show-complexKeyed-flink2.0.json",
         {"--format", "json", "show", "flink/complexKeyed-flink2.0"}, 0);
  ExpectToolGolden("flink-ls-udf-rocksdb-checkpoint.json",
         {"--format", "json", "ls", "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint"},
         0);
}

TEST(FlinkGoldenTest, DumpDecodesCanonicalSavepointKeyedAndOperatorState) {
  ExpectToolGolden("flink-dump-udf-hashmap-savepoint.json",
         {"--format", "json", "dump",
          "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint", "--operator",
          "CheckpointingTimelyStatefulOperator1"},
         0);
  ExpectToolGolden("flink-dump-table-state-source.json",
         {"--format", "json", "dump", "flink/table-state", "--operator", "datagen-source-uid"}, 0);
  ExpectToolGolden("flink-dump-complexKeyed-flink1.14.json",
         {"--format", "json", "dump", "flink/complexKeyed-flink1.14", "--operator",
          "01203aa9a12dc1ec725e03853dd7c8f2"},
         0);
}

// Heap checkpoints (keyed tag 12: the heap backend's own key-group layout) and native RocksDB
// state (tags 5/11: SSTs read through librocksdb) decode like canonical savepoints.
TEST(FlinkGoldenTest, DumpDecodesHeapCheckpointsAndRocksDbInstances) {
  const std::string p = "flink/new-stateful-udf-migration-itcase-flink2.0-";
  for (const std::string kind : {"hashmap-checkpoint", "hashmap-savepoint-native", "rocksdb-checkpoint",
                                 "rocksdb-savepoint-native"}) {
    for (const std::string op : {"CheckpointingTimelyStatefulOperator1", "CheckpointingKeyedStateFlatMap1"}) {
      ExpectToolGolden("flink-dump-udf-" + kind + "-" + op + ".json",
             {"--format", "json", "dump", p + kind, "--operator", op}, 0);
    }
  }
}

// A Flink 1.15 RocksDB full checkpoint at max parallelism 4, parallelism 4 (keyed tag 12 in the
// full-snapshot layout, one key group per subtask): key group 0's section starts with bytes a
// heap reader takes for its key-group id 0; dump reads every entry in the full layout.
TEST(FlinkGoldenTest, DumpDecodesRocksDbFullCheckpointAtSmallMaxParallelism) {
  ExpectToolGolden("flink-dump-rocksdb-full-maxp4-flink1.15.json",
                   {"--format", "json", "dump", "flink/rocksdb-full-maxp4-flink1.15"}, 0);
}

// The same job's keyed state read from its heap checkpoint and from its RocksDB checkpoint is
// the same entries (the two backends' layouts share nothing but the serializers).
TEST(FlinkGoldenTest, HeapAndRocksDbCheckpointsOfOneJobDumpTheSameEntries) {
  const std::string p = "flink/new-stateful-udf-migration-itcase-flink2.0-";
  for (const std::string op : {"CheckpointingTimelyStatefulOperator1", "CheckpointingKeyedStateFlatMap1"}) {
    SCOPED_TRACE(op);
    ToolRun heap = RunTool({"--format", "json", "dump", p + "hashmap-checkpoint", "--operator", op}, FixturePath(""));
    ToolRun rocks = RunTool({"--format", "json", "dump", p + "rocksdb-checkpoint", "--operator", op}, FixturePath(""));
    ASSERT_EQ(heap.exit_code, 0) << heap.err;
    ASSERT_EQ(rocks.exit_code, 0) << rocks.err;
    auto lines = [](const std::string& out) {
      std::vector<std::string> v;
      size_t start = 0;
      while (start < out.size()) {
        size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        if (end > start) v.push_back(out.substr(start, end - start));
        start = end + 1;
      }
      // Processing-time timers hold the wall clock of each run: not comparable across runs.
      v.erase(std::remove_if(v.begin(), v.end(),
                             [](const std::string& l) { return l.find("processing_timer") != std::string::npos; }),
              v.end());
      std::sort(v.begin(), v.end());
      return v;
    };
    const auto h = lines(heap.out);
    EXPECT_FALSE(h.empty());
    EXPECT_EQ(h, lines(rocks.out));
  }
}

// ls reads `_metadata` only: with every state file of a snapshot gone it lists the same table,
// and LoadSnapshot without state meta information never looks for them (no keyed-meta error).
TEST(FlinkGoldenTest, LsReadsOnlyTheMetadataFile) {
  TempDir tmp;
  const std::string src = "new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint";
  const std::string dir = tmp.Sub("sp");
  CopyTree(FixturePath("flink/" + src), dir);
  auto& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(auto entries, fs.ListDir(dir));
  for (const auto& e : entries) {
    if (e.name != "_metadata" && !e.is_dir) ASSERT_OK(fs.RemoveFile(dir + "/" + e.name));
  }
  ToolRun run = RunTool({"ls", "sp"}, tmp.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ExpectGolden("flink-ls-udf-hashmap-checkpoint.text", run.out);
  ASSERT_OK_AND_ASSIGN(ops::Snapshot lean, ops::LoadSnapshot(fs, dir, ops::LoadOptions{.state_meta = false, .uids = {}}));
  ASSERT_OK_AND_ASSIGN(ops::Snapshot full, ops::LoadSnapshot(fs, dir));
  auto meta_errors = [](const ops::Snapshot& s) {
    int n = 0;
    for (const auto& [k, v] : s.properties) n += k.rfind("flink.keyed_meta_error.", 0) == 0 ? 1 : 0;
    return n;
  };
  EXPECT_EQ(meta_errors(lean), 0);
  EXPECT_GT(meta_errors(full), 0);  // the default load does look, and says what is missing
  EXPECT_EQ(lean.operators.size(), full.operators.size());
  EXPECT_EQ(lean.full_size_bytes, full.full_size_bytes);
}

// A damaged SST fails dump and validate --deep (CKPT-D001) naming the file and its table format
// version; an SST of a format Debian's RocksDB does not know is named the same way and reported
// as not checked (never as passed). The snapshot itself is only read.
TEST(FlinkGoldenTest, UnreadableSstIsNamedWithItsFormatVersion) {
  for (const bool newer_format : {false, true}) {
    SCOPED_TRACE(newer_format ? "format version 99" : "damaged data block");
    TempDir tmp;
    const std::string dir = tmp.Sub("chk");
    CopyTree(FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint"), dir);
    auto& fs = base::Fs::Default();
    ASSERT_OK_AND_ASSIGN(auto entries, fs.ListDir(dir));
    std::string changed;
    for (const auto& e : entries) {
      if (e.is_dir) continue;
      ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(fs, dir + "/" + e.name));
      // The block-based table footer ends in the magic 0x88e241b785f4cff7 (little-endian),
      // preceded by the u32 format version.
      static const std::string kMagic("\xf7\xcf\xf4\x85\xb7\x41\xe2\x88", 8);
      if (bytes.size() < 64 || bytes.compare(bytes.size() - 8, 8, kMagic) != 0) continue;
      if (newer_format) {
        bytes[bytes.size() - 12] = 99;
      } else {
        bytes[10] = static_cast<char>(bytes[10] ^ 0x5a);  // inside the first data block
      }
      ASSERT_OK(base::WriteFileAtomic(fs, dir + "/" + e.name, bytes));
      changed = e.name;
      break;
    }
    ASSERT_FALSE(changed.empty()) << "no SST in the fixture";
    const std::string version = newer_format ? "table format version 99" : "table format version 5";
    ToolRun d = RunTool({"dump", "chk"}, tmp.path());
    EXPECT_EQ(d.exit_code, 2) << d.out;
    EXPECT_NE(d.err.find(changed), std::string::npos) << d.err;
    EXPECT_NE(d.err.find(version), std::string::npos) << d.err;
    EXPECT_NE(d.err.find(newer_format ? "cannot read this SST" : "damaged SST"), std::string::npos) << d.err;
    ToolRun v = RunTool({"validate", "--deep", "chk"}, tmp.path());
    EXPECT_NE(v.out.find(changed), std::string::npos) << v.out;
    if (newer_format) {
      EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
      EXPECT_NE(v.out.find("not checked CKPT-D001"), std::string::npos) << v.out;
    } else {
      EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
      EXPECT_NE(v.out.find("CKPT-D001"), std::string::npos) << v.out;
    }
  }
}

TEST(FlinkGoldenTest, ValidateAgainstAppliesFlinkRestoreRules) {
  ExpectToolGolden("flink-validate-against-same.text",
         {"validate", "flink/complexKeyed-flink2.0", "--against",
          "flink-jobs/complexKeyed-flink2.0.job.json"},
         0);
  ExpectToolGolden("flink-validate-against-changed.text",
         {"validate", "flink/complexKeyed-flink2.0", "--against",
          "flink-jobs/complexKeyed-flink2.0-changed.job.json"},
         1);
  ExpectToolGolden("flink-validate-against-changed-n.text",
         {"validate", "-n", "flink/complexKeyed-flink2.0", "--against",
          "flink-jobs/complexKeyed-flink2.0-changed.job.json"},
         1);
}

// A Flink checkpoint root (<root>/<job id>/chk-<n>/_metadata) lists every retained checkpoint,
// with the job id taken from the path.
TEST(FlinkGoldenTest, ListsAFlinkCheckpointRoot) {
  TempDir tmp;
  const std::string job = "root/0123456789abcdef0123456789abcdef";
  CopyTree(FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint"),
           tmp.Sub(job + "/chk-2"));
  CopyTree(FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint"),
           tmp.Sub("root/fedcba9876543210fedcba9876543210/chk-2"));
  ToolRun run = RunTool({"ls", "root"}, tmp.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ExpectGolden("flink-ls-root.text", run.out);
  ToolRun show = RunTool({"show", job + "/chk-2"}, tmp.path());
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("0123456789abcdef0123456789abcdef"), std::string::npos) << show.out;
}

// Each corrupt case: ls fails (exit 2) or validate reports it (exit 1), naming the file.
TEST(FlinkGoldenTest, CorruptSnapshotsFailNamingTheFile) {
  struct Case {
    std::string dir;
    int ls_exit;
    int validate_exit;
    std::string needle;  // in ls's stderr (exit 2) or validate's stdout
  };
  const Case cases[] = {
      {"truncated-metadata", 2, 1, "truncated"},
      {"bad-magic", 2, 1, "not a checkpoint metadata file"},
      {"version-1", 2, 1, "Flink 1.1/1.2 savepoint, not supported"},
      {"flipped-length", 2, 1, "operator state count 2130706440 cannot fit"},
      {"missing-relative-file", 0, 1, "dc312a0b-d261-4aad-9e72-eeb0adc8f700 does not exist"},
      {"escaping-path", 2, 1, "may not escape"},
      {"truncated-key-group-stream", 0, 1, "82c5b6d4-4e5a-42c3-8fe0-070dcc8a702c"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dir);
    const std::string dir = "flink-corrupt/" + c.dir;
    ToolRun ls = RunTool({"ls", dir}, FixturePath(""));
    EXPECT_EQ(ls.exit_code, c.ls_exit) << ls.err;
    if (c.ls_exit == 2) {
      EXPECT_NE(ls.err.find(dir), std::string::npos) << ls.err;
      EXPECT_NE(ls.err.find(c.needle), std::string::npos) << ls.err;
    }
    ToolRun v = RunTool({"validate", dir}, FixturePath(""));
    EXPECT_EQ(v.exit_code, c.validate_exit) << v.out << v.err;
    EXPECT_NE(v.out.find(c.needle), std::string::npos) << v.out;
    ExpectGolden("flink-corrupt-validate-" + c.dir + ".text", v.out);
  }
  // The truncated key-group stream also fails dump, naming the file.
  ToolRun d = RunTool({"dump", "flink-corrupt/truncated-key-group-stream", "--operator",
                       "CheckpointingKeyedStateFlatMap1"},
                      FixturePath(""));
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_NE(d.err.find("82c5b6d4-4e5a-42c3-8fe0-070dcc8a702c"), std::string::npos) << d.err;
}

}  // namespace
}  // namespace ckpt::testing
