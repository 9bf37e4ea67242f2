// Numbers and labels every verb prints: state kept inline in `_metadata` counted once per handle
// (and `_metadata` on its own line), the checkpoint type from what a checkpoint references, uids
// Flink's metadata does not record (and --uids naming them by their hash), and unknown values
// printed as "—" / null instead of zeros.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "ckpt/format/operator_id.h"
#include "ckpt/ops/files.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/stats.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::FixturePath;
using testing::RunTool;
using testing::TempDir;

// Every inline byte-stream handle of the model, summed (each handle once).
uint64_t InlineHandleBytes(const Snapshot& s) {
  uint64_t sum = 0;
  for (const auto& op : s.operators) {
    for (const auto& st : op.subtasks) {
      for (const auto& k : st.keyed) sum += k.inline_bytes;
      for (const auto& h : st.operator_state) sum += h.inline_bytes;
      for (const auto& c : st.channels) sum += c.inline_bytes;
    }
    if (op.coordinator && op.coordinator->is_inline) sum += op.coordinator->size_bytes;
  }
  return sum;
}

// Sizes of every file of a snapshot directory on disk (flat: the fixtures have no subdirectories).
uint64_t BytesOnDisk(const Snapshot& s) {
  uint64_t sum = s.metadata_size_bytes;
  for (const auto& f : s.files) {
    if (!f.is_metadata) sum += f.size_bytes;
  }
  return sum;
}

// The TOTAL BYTES column (the last, "N B" under --bytes) of `ls --bytes SNAPSHOT`'s rows,
// `_metadata` row included.
uint64_t SumOfLsTotals(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  std::getline(in, line);  // header
  uint64_t sum = 0;
  while (std::getline(in, line)) {
    if (line.rfind("uid:", 0) == 0 || line.empty()) continue;
    if (line.size() > 2 && line.compare(line.size() - 2, 2, " B") == 0) {
      line.resize(line.size() - 2);
    }
    const size_t last = line.find_last_of(' ');
    sum += std::stoull(line.substr(last + 1));
  }
  return sum;
}

TEST(NumbersTest, InlineStateCountsEachHandleOnceAndMetadataHasItsOwnLine) {
  // Flink inlines every handle below state.storage.fs.memory-threshold: this savepoint's state
  // is all in its `_metadata`.
  const std::string dir = FixturePath("flink/complexKeyed-flink2.0");
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  ASSERT_EQ(s.files.size(), 1u);
  ASSERT_TRUE(s.files[0].is_metadata);
  const uint64_t on_disk = testing::ReadBytes(dir + "/_metadata").size();
  EXPECT_EQ(s.metadata_size_bytes, on_disk);
  ASSERT_GT(s.inline_state_bytes, 0u);
  EXPECT_LT(s.inline_state_bytes, on_disk);
  EXPECT_EQ(s.inline_state_bytes, InlineHandleBytes(s));  // no handle counted twice
  uint64_t operators = 0;
  size_t stateful = 0;
  for (const auto& op : s.operators) {
    operators += op.total_bytes;
    // Never the whole `_metadata` for each operator.
    EXPECT_LT(op.total_bytes, on_disk) << op.id_hex;
    uint64_t subtasks = 0;
    for (const auto& st : op.subtasks) subtasks += st.state_bytes;
    EXPECT_EQ(subtasks, op.total_bytes) << op.id_hex;  // inline bytes are each subtask's own
    stateful += op.total_bytes > 0 ? 1 : 0;
  }
  EXPECT_EQ(stateful, 3u);
  EXPECT_EQ(operators, s.inline_state_bytes);
  EXPECT_EQ(s.full_size_bytes, s.inline_state_bytes);
  EXPECT_EQ(operators + s.metadata_own_bytes(), on_disk);

  // ls: the operators' rows plus the `_metadata` row are the bytes on disk.
  testing::ToolRun ls = RunTool({"ls", "--bytes", "flink/complexKeyed-flink2.0"}, FixturePath(""));
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("_metadata"), std::string::npos) << ls.out;
  EXPECT_EQ(SumOfLsTotals(ls.out), on_disk) << ls.out;
  // stats agrees with the model and measures no single state: "—", never 0 bytes.
  ASSERT_OK_AND_ASSIGN(StatsReport stats, ComputeStats(base::Fs::Default(), s, StatsOptions{}));
  uint64_t stats_total = 0;
  for (const auto& op : stats.operators) {
    stats_total += op.file_bytes;
    for (const auto& st : op.states) EXPECT_FALSE(st.bytes_known) << st.name;
  }
  EXPECT_EQ(stats_total, operators);
  EXPECT_EQ(stats.total_file_bytes + stats.metadata_own_bytes, on_disk);
  testing::ToolRun st =
      RunTool({"stats", "--bytes", "flink/complexKeyed-flink2.0"}, FixturePath(""));
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_EQ(st.out.find("14598"), std::string::npos) << st.out;  // never the whole file
  EXPECT_NE(st.out.find("—"), std::string::npos) << st.out;
  testing::ToolRun sj = RunTool({"stats", "--format", "json", "flink/complexKeyed-flink2.0"},
                                FixturePath(""));
  EXPECT_NE(sj.out.find("\"bytes\":null,\"file_bytes\":null"), std::string::npos) << sj.out;
}

TEST(NumbersTest, FileStateAndMetadataAddUpToTheBytesOnDisk) {
  const std::string dir =
      FixturePath("flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint");
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  uint64_t operators = 0;
  for (const auto& op : s.operators) operators += op.total_bytes;
  EXPECT_EQ(operators + s.metadata_own_bytes(), BytesOnDisk(s));
  EXPECT_EQ(s.full_size_bytes + s.metadata_own_bytes(), BytesOnDisk(s));
  testing::ToolRun ls = RunTool(
      {"ls", "--bytes", "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-checkpoint"},
      FixturePath(""));
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_EQ(SumOfLsTotals(ls.out), BytesOnDisk(s)) << ls.out;
}

TEST(NumbersTest, ACheckpointReferencingEarlierSharedFilesIsIncremental) {
  // A checkpoint that re-uses shared files of chk-1, recorded as FULL (what the engine wrote
  // before it derived the type): the references decide.
  TempDir tmp;
  const std::string root = tmp.Sub("root");
  ASSERT_OK(testing::WriteSampleCheckpointRoot(root));
  const std::string chk2 = root + "/" + testing::SampleJobIdHex() + "/chk-2";
  ASSERT_OK(testing::RewriteMetadata(chk2, [](pb::CheckpointMetadata& m) {
    m.set_checkpoint_type(pb::FULL);
  }));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), chk2));
  EXPECT_EQ(s.checkpoint_type, CheckpointType::kIncremental);
  testing::ToolRun show = RunTool({"show", chk2}, ".");
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("checkpoint type     incremental"), std::string::npos) << show.out;
  testing::ToolRun json = RunTool({"show", "--format", "json", chk2}, ".");
  EXPECT_NE(json.out.find("\"type\":\"incremental\""), std::string::npos) << json.out;
  // chk-1 uploaded every file it references: full.
  ASSERT_OK_AND_ASSIGN(Snapshot first, LoadSnapshot(base::Fs::Default(),
                                                    root + "/" + testing::SampleJobIdHex() + "/chk-1"));
  EXPECT_EQ(first.checkpoint_type, CheckpointType::kFull);
}

TEST(NumbersTest, FlinkOperatorsNeverHaveNoUid) {
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       LoadSnapshot(base::Fs::Default(), FixturePath("flink/complexKeyed-flink2.0")));
  size_t not_recorded = 0;
  for (const auto& op : s.operators) {
    if (op.uid.empty()) {
      EXPECT_EQ(op.uid_origin, UidOrigin::kNotRecorded);
      ++not_recorded;
    } else {
      EXPECT_EQ(op.uid_origin, UidOrigin::kRecorded);
    }
  }
  EXPECT_EQ(not_recorded, 1u);  // the source
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"ls", "flink/complexKeyed-flink2.0"},
        std::vector<std::string>{"show", "flink/complexKeyed-flink2.0"}}) {
    testing::ToolRun run = RunTool(args, FixturePath(""));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out.find("no uid"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("uid: not recorded in Flink's metadata"), std::string::npos) << run.out;
  }
  testing::ToolRun json = RunTool({"ls", "--format", "json", "flink/complexKeyed-flink2.0"},
                                  FixturePath(""));
  EXPECT_NE(json.out.find("\"operator_uid\":null,\"operator_uid_origin\":\"not-recorded\""),
            std::string::npos)
      << json.out;
  EXPECT_EQ(json.out.find("false"), std::string::npos) << json.out;
}

TEST(NumbersTest, UidsNameFlinkOperatorsByFlinksUidHash) {
  // Flink 2.0 records the uids of this job: its IDs are murmur3_x64_128 (seed 0) of them.
  ASSERT_OK_AND_ASSIGN(Snapshot v5,
                       LoadSnapshot(base::Fs::Default(), FixturePath("flink/complexKeyed-flink2.0")));
  size_t checked = 0;
  for (const auto& op : v5.operators) {
    if (op.uid.empty()) continue;
    EXPECT_EQ(format::OperatorId::FromUid(op.uid).ToHex(), op.id_hex) << op.uid;
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
  // Flink 1.20 (metadata v4) of the same job stores no uid: --uids names them.
  const std::string v4 = FixturePath("flink/complexKeyed-flink1.20");
  ASSERT_OK_AND_ASSIGN(Snapshot bare, LoadSnapshot(base::Fs::Default(), v4));
  for (const auto& op : bare.operators) EXPECT_EQ(op.uid_origin, UidOrigin::kNotRecorded);
  ASSERT_OK_AND_ASSIGN(
      Snapshot named,
      LoadSnapshot(base::Fs::Default(), v4, LoadOptions{.state_meta = true, .uids = {"first", "second", "window", "x"}}));
  size_t by_uid = 0;
  for (const auto& op : named.operators) {
    if (op.uid_origin != UidOrigin::kUserUids) continue;
    EXPECT_EQ(format::OperatorId::FromUid(op.uid).ToHex(), op.id_hex);
    ++by_uid;
  }
  EXPECT_EQ(by_uid, 3u);

  TempDir tmp;
  const std::string list = tmp.Sub("uids.txt");
  testing::WriteTextFile(list, "# the job's uids\nfirst\n  second \n\nwindow\n");
  for (const std::string verb : {"ls", "show", "stats", "validate"}) {
    testing::ToolRun run = RunTool({verb, "flink/complexKeyed-flink1.20", "--uids", list},
                                   FixturePath(""));
    EXPECT_EQ(run.exit_code, 0) << verb << ": " << run.err;
    if (verb != "validate") {
      EXPECT_NE(run.out.find("window"), std::string::npos) << verb << ": " << run.out;
    }
  }
  testing::ToolRun diff =
      RunTool({"diff", "--format", "json", "flink/complexKeyed-flink1.20",
               "flink/complexKeyed-flink2.0", "--uids", list, "--no-state-sizes"},
              FixturePath(""));
  EXPECT_NE(diff.out.find("\"uid_a\":\"window\""), std::string::npos) << diff.out;
  // The job spec names the same uids.
  testing::ToolRun spec = RunTool({"ls", "--format", "json", "flink/complexKeyed-flink1.20",
                                   "--uids", "flink-jobs/complexKeyed-flink2.0.job.json"},
                                  FixturePath(""));
  ASSERT_EQ(spec.exit_code, 0) << spec.err;
  EXPECT_NE(spec.out.find("\"operator_uid\":\"window\",\"operator_uid_origin\":\"user-uids\""),
            std::string::npos)
      << spec.out;
  // A list with no uid is an error naming the file.
  testing::WriteTextFile(tmp.Sub("empty.txt"), "\n# nothing\n");
  testing::ToolRun empty = RunTool({"ls", "flink/complexKeyed-flink1.20", "--uids",
                                    tmp.Sub("empty.txt")},
                                   FixturePath(""));
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty.txt"), std::string::npos) << empty.err;
}

TEST(NumbersTest, UnknownValuesPrintAsDashOrNullNeverZero) {
  // Flink records no checksum, creator, metrics or job id in `_metadata`.
  testing::ToolRun show = RunTool({"show", "flink/complexKeyed-flink2.0"}, FixturePath(""));
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out.find("0000000000000000"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find(" 0 ms"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("job id              —"), std::string::npos) << show.out;
  testing::ToolRun files = RunTool({"files", "flink/complexKeyed-flink2.0"}, FixturePath(""));
  EXPECT_EQ(files.out.find("0000000000000000"), std::string::npos) << files.out;
  testing::ToolRun files_json =
      RunTool({"files", "--format", "json", "flink/complexKeyed-flink2.0"}, FixturePath(""));
  EXPECT_NE(files_json.out.find("\"checksum_xxh3\":null"), std::string::npos) << files_json.out;
  EXPECT_EQ(files_json.out.find("0000000000000000"), std::string::npos) << files_json.out;
  testing::ToolRun show_json =
      RunTool({"show", "--format", "json", "flink/complexKeyed-flink2.0"}, FixturePath(""));
  EXPECT_NE(show_json.out.find("\"job_id\":null"), std::string::npos) << show_json.out;
  EXPECT_EQ(show_json.out.find("\"checksum_xxh3\":\"0000000000000000\""), std::string::npos);
  // A snapshot that could not be read has no sizes: null, not 0.
  testing::ToolRun ls = RunTool({"ls", "--format", "json", "corrupt"}, FixturePath(""));
  EXPECT_EQ(ls.exit_code, 1) << ls.err;
  size_t corrupt_lines = 0;
  std::istringstream in(ls.out);
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"status\":\"corrupt\"") == std::string::npos) continue;
    ++corrupt_lines;
    EXPECT_NE(line.find("\"state_size\":null,\"checkpointed_size\":null"), std::string::npos) << line;
  }
  EXPECT_GT(corrupt_lines, 0u);
}

}  // namespace
}  // namespace ckpt::ops
