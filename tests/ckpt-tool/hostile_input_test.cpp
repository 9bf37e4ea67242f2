// Hostile snapshots: values from disk that would make a reader allocate without bound, divide by
// zero, follow a link out of the snapshot or block on a FIFO; names with control characters;
// ill-formed declared types. Every case must end as a clean finding (validate: exit 1) or a clean
// error naming the file (exit 2), never a crash or a hang, and with memory bounded: the tool runs
// under RLIMIT_AS, so an allocation sized by a hostile value fails the test with SIGABRT
// (std::bad_alloc) instead of swapping the machine. Every read verb runs over every hostile
// snapshot, in text and in JSON (ExpectReadVerbsFinish).
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/ops/files.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::TempDir;
using ::ckpt::testing::ToolRun;

using ::ckpt::testing::RunToolBounded;

std::string Describe(const ToolRun& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

std::string Joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Runs every read verb over `snap` in text and JSON under the address-space limit: each ends with
// exit 0 (clean), 1 (findings or differences) or 2 with a one-line "ckpt-tool: " error, never a
// signal, and prints no raw ESC. `dump_args` select what dump reads (all of it when empty).
void ExpectReadVerbsFinish(const std::string& snap, const std::vector<std::string>& dump_args = {}) {
  std::vector<std::string> dump = {"dump", snap};
  dump.insert(dump.end(), dump_args.begin(), dump_args.end());
  const std::vector<std::vector<std::string>> verbs = {
      {"ls", snap},       {"show", snap},   {"files", snap},           dump,
      {"stats", snap},    {"diff", snap, snap}, {"diff", "--keys", snap, snap},
      {"validate", snap}, {"validate", "--deep", snap}};
  for (const char* format : {"text", "json"}) {
    for (std::vector<std::string> args : verbs) {
      args.insert(args.begin() + 1, {"--format", format});
      const ToolRun r = RunToolBounded(args);
      SCOPED_TRACE(Joined(args));
      EXPECT_GE(r.exit_code, 0) << Describe(r);
      EXPECT_LE(r.exit_code, 2) << Describe(r);
      if (r.exit_code == 2) {
        EXPECT_EQ(r.err.rfind("ckpt-tool: ", 0), 0u) << Describe(r);
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << Describe(r);
      }
      EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "raw ESC: " << Describe(r);
      EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "raw ESC: " << Describe(r);
    }
  }
}

const std::string kAggregateUid = "per-user-aggregate";

// The sample savepoint with the keyed aggregate's max parallelism (state and job graph) set.
void SetAggregateMaxParallelism(const std::string& dir, uint32_t max_p) {
  ASSERT_OK(testing::RewriteMetadata(dir, [max_p](pb::CheckpointMetadata& m) {
    std::string id;
    for (auto& op : *m.mutable_job_graph()->mutable_operators()) {
      if (op.uid() == kAggregateUid) {
        op.set_max_parallelism(max_p);
        id = op.operator_id();
      }
    }
    for (auto& os : *m.mutable_operators()) {
      if (os.operator_id() == id) os.set_max_parallelism(max_p);
    }
  }));
}

// Path of the first keyed-state file of the sample savepoint.
std::string KeyedFile(const std::string& dir) {
  auto s = LoadSnapshot(base::Fs::Default(), dir);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return "";
  for (const auto& f : s->files) {
    if (f.kind == FileKind::kKeyedState) return f.resolved_path;
  }
  ADD_FAILURE() << "no keyed file in " << dir;
  return "";
}

class HostileInputTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_OK(testing::WriteSampleSavepoint(snap_)); }
  TempDir tmp_;
  const std::string snap_ = tmp_.Sub("savepoint");
};

// Defect 4: validate allocated vector<int64_t>(maxP) after already reporting T003: 2^31-1 took
// 8.5 GB RSS, 2^32-1 died of std::bad_alloc.
TEST_F(HostileInputTest, HugeMaxParallelismIsAFindingWithBoundedMemory) {
  for (uint32_t max_p : {uint32_t{1} << 31, std::numeric_limits<uint32_t>::max() - 1,
                         std::numeric_limits<uint32_t>::max()}) {
    SCOPED_TRACE("max parallelism " + std::to_string(max_p));
    SetAggregateMaxParallelism(snap_, max_p);
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"validate", snap_}, {"validate", "--deep", snap_}}) {
      const ToolRun r = RunToolBounded(args);
      EXPECT_EQ(r.exit_code, 1) << Describe(r);
      EXPECT_NE(r.out.find("CKPT-T003"), std::string::npos) << Describe(r);
    }
    // The other readers finish (exit 0 or 1 for findings, 2 for a clean error), no signal.
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"stats", snap_},
             {"files", snap_},
             {"dump", snap_, "--operator", kAggregateUid},
             {"dump", snap_, "--operator", kAggregateUid, "--key", "\"user-00\""},
             {"diff", "--keys", snap_, snap_}}) {
      const ToolRun r = RunToolBounded(args);
      EXPECT_LE(r.exit_code, 2) << args[0] << "\n" << Describe(r);
    }
    ExpectReadVerbsFinish(snap_, {"--operator", kAggregateUid, "--key", "\"user-00\""});
  }
}

// Max parallelism 0: the key's group is hash mod maxP (SIGFPE before the fix).
TEST_F(HostileInputTest, ZeroMaxParallelismIsRefusedCleanlyByDumpKey) {
  SetAggregateMaxParallelism(snap_, 0);
  const ToolRun r = RunToolBounded({"dump", snap_, "--operator", kAggregateUid, "--key", "\"user-00\""});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("invalid max parallelism 0"), std::string::npos) << Describe(r);
  const ToolRun v = RunToolBounded({"validate", "--deep", snap_});
  EXPECT_EQ(v.exit_code, 1) << Describe(v);
  EXPECT_NE(v.out.find("CKPT-T003"), std::string::npos) << Describe(v);
  ExpectReadVerbsFinish(snap_, {"--operator", kAggregateUid, "--key", "\"user-00\""});
}

// Huge sizes and indexes recorded in the metadata are compared, never allocated.
TEST_F(HostileInputTest, HugeRecordedSizesAndIndexesAreFindings) {
  const std::string sizes = tmp_.Sub("sizes");
  ASSERT_OK(testing::WriteSampleSavepoint(sizes));
  ASSERT_OK(testing::RewriteMetadata(sizes, [](pb::CheckpointMetadata& m) {
    for (auto& f : *m.mutable_files()) f.set_size_bytes(std::numeric_limits<uint64_t>::max());
  }));
  const std::string indexes = tmp_.Sub("indexes");
  ASSERT_OK(testing::WriteSampleSavepoint(indexes));
  ASSERT_OK(testing::RewriteMetadata(indexes, [](pb::CheckpointMetadata& m) {
    for (auto& os : *m.mutable_operators()) {
      for (auto& st : *os.mutable_subtasks()) {
        st.set_subtask_index(std::numeric_limits<uint32_t>::max() - st.subtask_index());
      }
    }
  }));
  for (const std::string& snap : {sizes, indexes}) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"validate", "--deep", snap}, {"stats", snap}, {"files", snap}}) {
      // validate must find something; stats and files only must not crash or hang.
      const ToolRun r = RunToolBounded(args);
      if (args[0] == "validate") {
        EXPECT_EQ(r.exit_code, 1) << snap << "\n" << Describe(r);
      }
      EXPECT_LE(r.exit_code, 2) << args[0] << " " << snap << "\n" << Describe(r);
    }
  }
  const ToolRun v = RunToolBounded({"validate", "--deep", sizes});
  EXPECT_NE(v.out.find("CKPT-F002"), std::string::npos) << Describe(v);
  // The format reader refuses a subtask index beyond the parallelism as a structure violation.
  const ToolRun w = RunToolBounded({"validate", "--deep", indexes});
  EXPECT_NE(w.out.find("CKPT-M006"), std::string::npos) << Describe(w);
  EXPECT_NE(w.out.find("subtask index 4294967295"), std::string::npos) << Describe(w);
  ExpectReadVerbsFinish(sizes);
  ExpectReadVerbsFinish(indexes);
}

// Defect 5: a FIFO in place of a referenced file hung validate, dump and stats in open().
TEST_F(HostileInputTest, FifoInPlaceOfAStateFileIsAFindingAndNeverBlocks) {
  const std::string keyed = KeyedFile(snap_);
  ASSERT_FALSE(keyed.empty());
  ASSERT_EQ(unlink(keyed.c_str()), 0);
  ASSERT_EQ(mkfifo(keyed.c_str(), 0644), 0);
  const ToolRun v = RunToolBounded({"validate", "--deep", snap_});
  EXPECT_EQ(v.exit_code, 1) << Describe(v);
  EXPECT_NE(v.out.find("CKPT-F011"), std::string::npos) << Describe(v);
  EXPECT_NE(v.out.find("FIFO"), std::string::npos) << Describe(v);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"dump", snap_, "--operator", kAggregateUid}, {"stats", snap_}}) {
    const ToolRun r = RunToolBounded(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << Describe(r);
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << Describe(r);
  }
  ExpectReadVerbsFinish(snap_);
}

TEST_F(HostileInputTest, SymlinkToAFifoIsAFindingAndNeverBlocks) {
  const std::string keyed = KeyedFile(snap_);
  ASSERT_FALSE(keyed.empty());
  const std::string fifo = tmp_.Sub("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  ASSERT_EQ(unlink(keyed.c_str()), 0);
  ASSERT_EQ(symlink(fifo.c_str(), keyed.c_str()), 0);
  const ToolRun v = RunToolBounded({"validate", "--deep", snap_});
  EXPECT_EQ(v.exit_code, 1) << Describe(v);
  EXPECT_NE(v.out.find("CKPT-F011"), std::string::npos) << Describe(v);
  EXPECT_NE(v.out.find("symbolic link"), std::string::npos) << Describe(v);
  const ToolRun d = RunToolBounded({"dump", snap_, "--operator", kAggregateUid});
  EXPECT_EQ(d.exit_code, 2) << Describe(d);
  EXPECT_NE(d.err.find("symbolic link"), std::string::npos) << Describe(d);
  ExpectReadVerbsFinish(snap_);
}

// A state file symlinked from outside counted as "self-contained", and the link was read.
TEST_F(HostileInputTest, SymlinkToAFileOutsideTheSnapshotIsNotFollowed) {
  const std::string keyed = KeyedFile(snap_);
  ASSERT_FALSE(keyed.empty());
  const std::string outside = tmp_.Sub("outside.state");
  std::filesystem::rename(keyed, outside);
  ASSERT_EQ(symlink(outside.c_str(), keyed.c_str()), 0);
  auto report = Validate(base::Fs::Default(), snap_, ValidateOptions{});
  ASSERT_OK(report);
  bool found = false;
  for (const auto& f : report->findings) {
    if (f.rule_id == "CKPT-F011") {
      found = true;
      EXPECT_NE(f.message.find("symbolic link"), std::string::npos) << f.message;
      EXPECT_NE(f.location.file.find(std::filesystem::path(keyed).filename().string()),
                std::string::npos);
    }
  }
  EXPECT_TRUE(found) << "a symlinked state file must be a finding";
  EXPECT_EQ(report->files_checked + 1, LoadSnapshot(base::Fs::Default(), snap_)->files.size())
      << "the link's target must not be read";
}

// O_NOFOLLOW guards only the last path component: a directory on the way to a state file
// that is a link to somewhere else (a symlinked `shared/`) was followed.
TEST_F(HostileInputTest, SymlinkedDirectoryOnTheWayToAStateFileIsNotFollowed) {
  const std::string keyed = KeyedFile(snap_);
  ASSERT_FALSE(keyed.empty());
  const std::string name = std::filesystem::path(keyed).filename().string();
  const std::string outside = tmp_.Sub("outside-dir");
  std::filesystem::create_directories(outside);
  std::filesystem::rename(keyed, outside + "/" + name);
  ASSERT_EQ(symlink(outside.c_str(), (snap_ + "/sub").c_str()), 0);
  ASSERT_OK(testing::RewriteMetadata(snap_, [&](pb::CheckpointMetadata& m) {
    for (auto& f : *m.mutable_files()) {
      if (f.path() == name) f.set_path("sub/" + name);
    }
  }));
  auto report = Validate(base::Fs::Default(), snap_, ValidateOptions{});
  ASSERT_OK(report);
  bool found = false;
  for (const auto& f : report->findings) {
    if (f.rule_id == "CKPT-F011") {
      found = true;
      EXPECT_NE(f.message.find(snap_ + "/sub is a symbolic link"), std::string::npos)
          << f.message;
    }
    EXPECT_NE(f.rule_id, "CKPT-F004") << "a link is not an escaping reference: " << f.message;
  }
  EXPECT_TRUE(found) << "a symlinked directory in a snapshot must be a finding";
  const ToolRun d = RunToolBounded({"dump", snap_, "--operator", kAggregateUid});
  EXPECT_EQ(d.exit_code, 2) << Describe(d);
  EXPECT_NE(d.err.find("symbolic link"), std::string::npos) << Describe(d);
  ExpectReadVerbsFinish(snap_);
}

TEST_F(HostileInputTest, SymlinkedMetadataIsAFinding) {
  const std::string md = snap_ + "/_metadata";
  const std::string outside = tmp_.Sub("_metadata.real");
  std::filesystem::rename(md, outside);
  ASSERT_EQ(symlink(outside.c_str(), md.c_str()), 0);
  const ToolRun v = RunToolBounded({"validate", snap_});
  EXPECT_EQ(v.exit_code, 1) << Describe(v);
  EXPECT_NE(v.out.find("CKPT-F011"), std::string::npos) << Describe(v);
  ExpectReadVerbsFinish(snap_);
}

const std::string kEvilName = "evil\x1b[2J\nline\\x.state";
const std::string kEvilShown = "evil\\x1b[2J\\x0aline\\\\x.state";

// The sample savepoint with its first keyed file renamed to kEvilName, and the aggregate's uid
// holding an ESC and a newline.
void WriteEvilNames(const std::string& snap) {
  const std::string keyed = KeyedFile(snap);
  ASSERT_FALSE(keyed.empty());
  ASSERT_OK(testing::RewriteMetadata(snap, [&](pb::CheckpointMetadata& m) {
    for (auto& f : *m.mutable_files()) {
      if (snap + "/" + f.path() == keyed) f.set_path(kEvilName);
    }
  }));
  std::filesystem::rename(keyed, snap + "/" + kEvilName);
}

// `files` printed file names with raw control characters; the model keeps the recorded bytes
// and the text renderer escapes them.
TEST_F(HostileInputTest, FilesEscapesControlCharactersInNames) {
  WriteEvilNames(snap_);
  auto snapshot = LoadSnapshot(base::Fs::Default(), snap_);
  ASSERT_OK(snapshot);
  auto rows = ListFiles(base::Fs::Default(), *snapshot);
  ASSERT_OK(rows);
  bool seen = false;
  for (const auto& r : *rows) {
    if (r.path != kEvilName) continue;
    seen = true;
    EXPECT_EQ(r.location, kEvilName);
    EXPECT_TRUE(r.exists);
  }
  EXPECT_TRUE(seen);
  const ToolRun t = RunToolBounded({"files", snap_});
  EXPECT_EQ(t.exit_code, 0) << Describe(t);
  EXPECT_EQ(t.out.find('\x1b'), std::string::npos) << "raw ESC in: " << t.out;
  EXPECT_NE(t.out.find(kEvilShown), std::string::npos) << t.out;
  const ToolRun j = RunToolBounded({"files", "--format", "json", snap_});
  EXPECT_EQ(j.exit_code, 0) << Describe(j);
  EXPECT_NE(j.out.find("evil\\u001b[2J\\nline\\\\x.state"), std::string::npos) << j.out;
}

// `show` printed a file path with a raw ESC and newline (terminal injection, a forged row).
TEST_F(HostileInputTest, ShowEscapesControlCharactersInNames) {
  WriteEvilNames(snap_);
  const ToolRun t = RunToolBounded({"show", snap_});
  EXPECT_EQ(t.exit_code, 0) << Describe(t);
  EXPECT_EQ(t.out.find('\x1b'), std::string::npos) << "raw ESC in: " << t.out;
  EXPECT_EQ(t.out.find("\nline"), std::string::npos) << "raw newline in a name: " << t.out;
  EXPECT_NE(t.out.find(kEvilShown), std::string::npos) << t.out;
  ExpectReadVerbsFinish(snap_);
}

// A name with control characters reaches the error message of a verb that fails on it.
TEST_F(HostileInputTest, ErrorMessagesEscapeControlCharacters) {
  WriteEvilNames(snap_);
  std::filesystem::remove(snap_ + "/" + kEvilName);
  const ToolRun d = RunToolBounded({"dump", snap_, "--operator", kAggregateUid});
  EXPECT_EQ(d.exit_code, 2) << Describe(d);
  EXPECT_EQ(d.err.find('\x1b'), std::string::npos) << "raw ESC in: " << d.err;
  EXPECT_NE(d.err.find(kEvilShown), std::string::npos) << d.err;
  ExpectReadVerbsFinish(snap_);
}

// A parallelism near 2^32 in the job graph and the operator state: show, stats and diff sized the
// channel layout (one entry per upstream x downstream subtask) by it and died of std::bad_alloc.
TEST_F(HostileInputTest, HugeParallelismIsReadWithBoundedMemory) {
  for (uint32_t p : {std::numeric_limits<uint32_t>::max() - 1, std::numeric_limits<uint32_t>::max()}) {
    SCOPED_TRACE("parallelism " + std::to_string(p));
    ASSERT_OK(testing::RewriteMetadata(snap_, [p](pb::CheckpointMetadata& m) {
      for (auto& op : *m.mutable_job_graph()->mutable_operators()) op.set_parallelism(p);
      for (auto& os : *m.mutable_operators()) os.set_parallelism(p);
    }));
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"show", snap_}, {"stats", snap_}, {"diff", snap_, snap_}}) {
      const ToolRun r = RunToolBounded(args);
      EXPECT_EQ(r.exit_code, 0) << args[0] << "\n" << Describe(r);
    }
    const ToolRun v = RunToolBounded({"validate", snap_});
    EXPECT_EQ(v.exit_code, 1) << Describe(v);
    EXPECT_NE(v.out.find("CKPT-T003"), std::string::npos) << Describe(v);
    ExpectReadVerbsFinish(snap_, {"--operator", kAggregateUid});
  }
}

// The same on an unaligned checkpoint, whose channel state show and stats attribute to edges:
// with an invalid parallelism no edge explains it, and it is reported as unattributed.
TEST_F(HostileInputTest, HugeParallelismLeavesChannelStateUnattributed) {
  const std::string snap = tmp_.Sub("unaligned");
  ASSERT_OK(testing::WriteUnalignedCheckpoint(snap));
  ASSERT_OK(testing::RewriteMetadata(snap, [](pb::CheckpointMetadata& m) {
    for (auto& op : *m.mutable_job_graph()->mutable_operators()) {
      op.set_parallelism(std::numeric_limits<uint32_t>::max());
    }
  }));
  const ToolRun r = RunToolBounded({"stats", snap});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find(" of in-flight data are on channels no edge of the job graph explains"),
            std::string::npos)
      << Describe(r);
  ExpectReadVerbsFinish(snap);
}

// Apache Flink's `_metadata` (int32 parallelism): a negative one (2^32 - 1 as unsigned) is refused
// by the reader naming the file, the largest one is read without sizing anything by it.
TEST_F(HostileInputTest, HugeFlinkParallelismIsReadWithBoundedMemory) {
  const std::vector<std::pair<int32_t, int32_t>> cases = {
      {-1, 128},
      {-2, -2},
      {std::numeric_limits<int32_t>::max(), 128},
      {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::max()}};
  for (const char* fixture :
       {"complexKeyed-flink2.0", "new-stateful-udf-migration-itcase-flink2.0-rocksdb-checkpoint"}) {
    for (const auto& [p, max_p] : cases) {
      SCOPED_TRACE(std::string(fixture) + " parallelism " + std::to_string(p) + "/" +
                   std::to_string(max_p));
      const std::string dir = tmp_.Sub(std::string(fixture) + "-" + std::to_string(p) + "-" +
                                       std::to_string(max_p));
      testing::CopyTree(testing::FixturePath(std::string("flink/") + fixture), dir);
      auto md = flink::ReadFlinkMetadata(base::Fs::Default(), dir + "/_metadata");
      ASSERT_OK(md);
      for (auto& op : md->operators) {
        op.parallelism = p;
        op.max_parallelism = max_p;
      }
      ASSERT_OK(flink::WriteFlinkMetadata(base::Fs::Default(), *md, dir + "/_metadata"));
      const ToolRun v = RunToolBounded({"validate", dir});
      EXPECT_EQ(v.exit_code, 1) << Describe(v);
      const ToolRun s = RunToolBounded({"show", dir});
      if (p < 0) {
        EXPECT_EQ(s.exit_code, 2) << Describe(s);
        EXPECT_NE(s.err.find(dir + "/_metadata"), std::string::npos) << Describe(s);
      } else {
        EXPECT_EQ(s.exit_code, 0) << Describe(s);
      }
      ExpectReadVerbsFinish(dir);
    }
  }
}

// Defect 10: an empty _metadata was M002 ("not CKPTMETA") where a 10-byte one was M004.
TEST_F(HostileInputTest, EmptyAndShortMetadataAreBothTruncated) {
  for (uint64_t size : {uint64_t{0}, uint64_t{3}, uint64_t{10}}) {
    SCOPED_TRACE(size);
    ASSERT_OK(testing::WriteSampleSavepoint(tmp_.Sub("s" + std::to_string(size))));
    const std::string m = tmp_.Sub("s" + std::to_string(size)) + "/_metadata";
    testing::TruncateFile(m, size);
    auto report = Validate(base::Fs::Default(), m, ValidateOptions{});
    ASSERT_OK(report);
    ASSERT_EQ(report->findings.size(), 1u);
    EXPECT_EQ(report->findings[0].rule_id, "CKPT-M004") << report->findings[0].message;
    EXPECT_NE(report->findings[0].message.find("truncated"), std::string::npos);
    ExpectReadVerbsFinish(tmp_.Sub("s" + std::to_string(size)));
  }
}

// Defect 10: a checkpoint id of -2^63 passed.
TEST_F(HostileInputTest, NegativeCheckpointIdIsAFinding) {
  for (int64_t id : {std::numeric_limits<int64_t>::min(), int64_t{-1}}) {
    SCOPED_TRACE(id);
    const std::string snap = tmp_.Sub("id" + std::to_string(id));
    ASSERT_OK(testing::WriteSampleSavepoint(snap));
    ASSERT_OK(testing::RewriteMetadata(snap, [id](pb::CheckpointMetadata& m) {
      m.set_checkpoint_id(id);
    }));
    auto report = Validate(base::Fs::Default(), snap, ValidateOptions{});
    ASSERT_OK(report);
    ASSERT_FALSE(report->findings.empty());
    EXPECT_EQ(report->findings[0].rule_id, "CKPT-M006");
    EXPECT_NE(report->findings[0].message.find("negative"), std::string::npos)
        << report->findings[0].message;
    ExpectReadVerbsFinish(snap);
  }
}

pb::TypeDescriptor Nested(int depth) {
  pb::TypeDescriptor t = format::types::Int64();
  for (int i = 1; i < depth; ++i) t = format::types::List(t);
  return t;
}

// Defect 10: validate --deep ignored coordinator state; values.md refuses these types.
TEST_F(HostileInputTest, DeepRefusesIllFormedCoordinatorTypesAndUndecodableValues) {
  struct Case {
    std::string name;
    pb::TypeDescriptor type;
    std::string inline_data;
    std::string rule;
  };
  std::string five_empty_tuples;
  five_empty_tuples.push_back('\x05');
  const std::vector<Case> cases = {
      {"list<tuple<>>", format::types::List(format::types::Tuple({})), five_empty_tuples,
       "CKPT-D004"},
      {"61 levels", Nested(61), std::string(60, '\x01') + "\x02", "CKPT-D004"},
      {"bytes that are not an int64", format::types::Int64(), "\xff\xff", "CKPT-D001"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    const std::string snap = dir.Sub("sp");
    ASSERT_OK(testing::WriteSampleSavepoint(snap));
    ASSERT_OK(testing::RewriteMetadata(snap, [&](pb::CheckpointMetadata& m) {
      for (auto& os : *m.mutable_operators()) {
        if (!os.has_coordinator_state()) continue;
        *os.mutable_coordinator_state()->mutable_type() = c.type;
        os.mutable_coordinator_state()->set_inline_data(c.inline_data);
      }
    }));
    ValidateOptions deep;
    deep.deep = true;
    auto report = Validate(base::Fs::Default(), snap, deep);
    ASSERT_OK(report);
    bool found = false;
    for (const auto& f : report->findings) found |= f.rule_id == c.rule;
    EXPECT_TRUE(found) << "expected " << c.rule;
  }
  // The intact coordinator state decodes: no finding on the clean savepoint.
  ValidateOptions deep;
  deep.deep = true;
  auto clean = Validate(base::Fs::Default(), snap_, deep);
  ASSERT_OK(clean);
  EXPECT_TRUE(clean->findings.empty());
}

// Defect 10: parallelism 0 in a job spec was accepted silently as "default".
TEST(HostileJobSpecTest, ExplicitZeroParallelismIsRefused) {
  const std::string op = R"({"id": "src", "kind": "sequence-source", "uid": "s")";
  auto top = format::ParseJobSpec(R"({"name": "j", "parallelism": 0, "operators": [)" + op + "}]}",
                                  "job.json");
  ASSERT_STATUS(top, kInvalidArgument, "parallelism: 0 is not a parallelism");
  auto inner = format::ParseJobSpec(
      R"({"name": "j", "operators": [)" + op + R"(, "parallelism": 0}]})", "job.json");
  ASSERT_STATUS(inner, kInvalidArgument, "operators[0] ('src').parallelism: 0");
  auto absent = format::ParseJobSpec(R"({"name": "j", "operators": [)" + op + "}]}", "job.json");
  ASSERT_OK(absent);
  EXPECT_EQ(absent->operators(0).parallelism(), 1u);
}

}  // namespace
}  // namespace ckpt::ops
