// ckpt-tool's verbs that write a snapshot (relocate, remap, rescale-max-parallelism), with their
// input and output on the local s3proxy of the s3proxy_server fixture in every combination, for
// our engine's snapshots and Apache Flink's: the output validates deeply on S3, holds the files
// and state the same verb writes locally (the local output is the oracle), and no build
// directory is left behind. An output that exists on S3 is refused and left untouched.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "ckpt_tool_s3_fixture.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

constexpr char kOwnSavepoint[] = "engine-v1/savepoint-e0e1e2-30e19071c9cd";
constexpr char kOwnChk5[] = "engine-v1/checkpoints/e0e1e2e3e4e5e6e7e8e9eaebecedeeef/chk-5";
constexpr char kFlinkRocks[] = "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint";
constexpr char kFlinkHashmap[] =
    "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint";

// Where a location of a write lies.
enum class S3WriteSide { kLocal, kS3 };

// A verb and its arguments other than the snapshot and --to.
struct S3WriteVerb {
  std::string name;
  std::vector<std::string> args;
};

const S3WriteVerb kOwnRemap{"remap", {"--map", "sums=sums-v2"}};
const S3WriteVerb kFlinkRemap{"remap", {"--map", "CheckpointingKeyedStateFlatMap1=flatmap-v2"}};
const S3WriteVerb kOwnRescale{"rescale-max-parallelism", {"--max-parallelism", "256"}};
const S3WriteVerb kFlinkRescale{"rescale-max-parallelism", {"--max-parallelism", "8"}};
const S3WriteVerb kRelocate{"relocate", {}};

class CkptToolS3WriteTest : public CkptToolS3Fixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(CkptToolS3Fixture::SetUp());
    if (IsSkipped()) return;
    ASSERT_NO_FATAL_FAILURE(Upload(kFlinkRocks));
    ASSERT_NO_FATAL_FAILURE(Upload(kFlinkHashmap));
  }

  // Every object under the directory `rel` of the bucket: key (relative to it) -> bytes.
  std::map<std::string, std::string> ObjectsUnder(const std::string& rel) {
    std::map<std::string, std::string> out;
    auto page = client_->ListAll(bucket_, rel + "/", "");
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return out;
    for (const auto& o : page->objects) {
      auto body = client_->Get(bucket_, o.key);
      EXPECT_TRUE(body.ok()) << o.key << ": " << body.status().ToString();
      out[o.key.substr(rel.size() + 1)] = body.ok() ? *body : "";
    }
    return out;
  }

  // Every regular file under the local directory `dir`: path relative to it -> bytes.
  static std::map<std::string, std::string> FilesUnder(const std::string& dir) {
    std::map<std::string, std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      out[std::filesystem::relative(e.path(), dir).generic_string()] =
          s3::testing::S3TestReadFile(e.path().string());
    }
    return out;
  }

  // `args` run in fixtures/: the verb, its snapshot, --to and the verb's own arguments.
  static ToolRun RunWrite(const S3WriteVerb& verb, const std::string& input,
                          const std::string& to) {
    std::vector<std::string> args = {verb.name, input, "--to", to};
    args.insert(args.end(), verb.args.begin(), verb.args.end());
    return RunTool(args, FixturePath(""));
  }

  // Runs `verb` on the fixture `input_rel` once locally into a temporary directory (the oracle)
  // and once with the input and the output on the sides given; expects both to succeed, the
  // output to validate deeply as the oracle does, to dump the same state, and to hold the same
  // file names (the same bytes but for _metadata, which records where it came from).
  void ExpectWriteMatchesLocal(const S3WriteVerb& verb, const std::string& input_rel,
                               S3WriteSide input_side, S3WriteSide output_side) {
    const std::string case_name = std::to_string(++cases_);
    const std::string oracle = tmp_.Sub("oracle-" + case_name);
    const std::string input = input_side == S3WriteSide::kS3 ? Uri(input_rel) : input_rel;
    const std::string out_rel = "written/" + case_name;
    const std::string out =
        output_side == S3WriteSide::kS3 ? Uri(out_rel) : tmp_.Sub("out-" + case_name);
    const std::string what = verb.name + " " + input + " --to " + out;

    const ToolRun want = RunWrite(verb, input_rel, oracle);
    ASSERT_EQ(0, want.exit_code) << "local oracle of " << what << "\n" << want.out << want.err;
    const ToolRun got = RunWrite(verb, input, out);
    ASSERT_EQ(0, got.exit_code) << what << "\n" << got.out << got.err;
    EXPECT_NE(std::string::npos, got.out.find("_metadata written last")) << what << got.out;

    for (const std::vector<std::string>& check :
         {std::vector<std::string>{"validate", "--deep"}, std::vector<std::string>{"dump"}}) {
      std::vector<std::string> on_out = check, on_oracle = check;
      on_out.push_back(out);
      on_oracle.push_back(oracle);
      const ToolRun w = RunTool(on_oracle, FixturePath(""));
      const ToolRun g = RunTool(on_out, FixturePath(""));
      EXPECT_EQ(0, g.exit_code) << check[0] << " of " << what << "\n" << g.out << g.err;
      EXPECT_EQ(w.exit_code, g.exit_code) << check[0] << " of " << what;
      EXPECT_FALSE(w.out.empty()) << check[0] << " of " << what;
      EXPECT_EQ(S3ToolReplaceAll(w.out, oracle, "OUT"), S3ToolReplaceAll(g.out, out, "OUT"))
          << check[0] << " of " << what;
    }

    const std::map<std::string, std::string> local = FilesUnder(oracle);
    const std::map<std::string, std::string> written =
        output_side == S3WriteSide::kS3 ? ObjectsUnder(out_rel) : FilesUnder(out);
    std::vector<std::string> local_names, written_names;
    for (const auto& [name, bytes] : local) local_names.push_back(name);
    for (const auto& [name, bytes] : written) written_names.push_back(name);
    EXPECT_EQ(local_names, written_names) << what;
    for (const auto& [name, bytes] : local) {
      if (name == "_metadata" || !written.count(name)) continue;
      EXPECT_EQ(bytes, written.at(name)) << what << ": " << name;
    }
    if (output_side == S3WriteSide::kS3) {
      EXPECT_TRUE(ObjectsUnder(out_rel + ".tmp").empty()) << what << ": build directory left";
    }
  }

  // Runs `verb` on `input` (S3) into the existing `taken_rel` of the bucket and expects a
  // refusal naming it (exit 2, AlreadyExists) that changes no object there and leaves no build
  // directory.
  void ExpectRefusedAndUntouched(const S3WriteVerb& verb, const std::string& input_rel,
                                 const std::string& taken_rel) {
    const std::map<std::string, std::string> before = ObjectsUnder(taken_rel);
    ASSERT_FALSE(before.empty());
    const ToolRun got = RunWrite(verb, Uri(input_rel), Uri(taken_rel));
    const std::string what = verb.name + " " + input_rel + " --to " + Uri(taken_rel);
    EXPECT_EQ(2, got.exit_code) << what << "\n" << got.out << got.err;
    EXPECT_NE(std::string::npos, got.err.find("AlreadyExists")) << what << "\n" << got.err;
    EXPECT_NE(std::string::npos, got.err.find(Uri(taken_rel))) << what << "\n" << got.err;
    EXPECT_EQ(before, ObjectsUnder(taken_rel)) << what;
    EXPECT_TRUE(ObjectsUnder(taken_rel + ".tmp").empty()) << what;
  }

  TempDir tmp_;
  int cases_ = 0;
};

TEST_F(CkptToolS3WriteTest, RelocateOwnSnapshotsUploadAndCopyAcrossBuckets) {
  // An upload of a local savepoint, and a checkpoint on S3 made a savepoint on S3.
  ExpectWriteMatchesLocal(kRelocate, kOwnSavepoint, S3WriteSide::kLocal, S3WriteSide::kS3);
  ExpectWriteMatchesLocal(kRelocate, kOwnChk5, S3WriteSide::kS3, S3WriteSide::kS3);
  // Across buckets: the input in one bucket, the output under a prefix of another.
  const std::string other = s3::testing::S3TestBucket("ckpt-tool-to");
  ASSERT_TRUE(client_->CreateBucket(other).ok());
  const std::string to = "s3://" + other + "/savepoints/copied";
  const ToolRun got = RunWrite(kRelocate, Uri(kOwnSavepoint), to);
  ASSERT_EQ(0, got.exit_code) << got.out << got.err;
  const ToolRun check = RunTool({"validate", "--deep", to}, FixturePath(""));
  EXPECT_EQ(0, check.exit_code) << check.out << check.err;
  EXPECT_EQ(RunTool({"dump", kOwnSavepoint}, FixturePath("")).out,
            RunTool({"dump", to}, FixturePath("")).out);
}

TEST_F(CkptToolS3WriteTest, RelocateFlinkSavepointsUploadAndCopy) {
  for (const char* rel : {kFlinkRocks, kFlinkHashmap}) {
    ExpectWriteMatchesLocal(kRelocate, rel, S3WriteSide::kLocal, S3WriteSide::kS3);
    ExpectWriteMatchesLocal(kRelocate, rel, S3WriteSide::kS3, S3WriteSide::kS3);
    ExpectWriteMatchesLocal(kRelocate, rel, S3WriteSide::kS3, S3WriteSide::kLocal);
  }
}

TEST_F(CkptToolS3WriteTest, RemapOwnSavepointOnEverySide) {
  ExpectWriteMatchesLocal(kOwnRemap, kOwnSavepoint, S3WriteSide::kS3, S3WriteSide::kS3);
  ExpectWriteMatchesLocal(kOwnRemap, kOwnSavepoint, S3WriteSide::kS3, S3WriteSide::kLocal);
  ExpectWriteMatchesLocal(kOwnRemap, kOwnSavepoint, S3WriteSide::kLocal, S3WriteSide::kS3);
}

TEST_F(CkptToolS3WriteTest, RemapFlinkSavepointsOnEverySide) {
  for (const char* rel : {kFlinkRocks, kFlinkHashmap}) {
    ExpectWriteMatchesLocal(kFlinkRemap, rel, S3WriteSide::kS3, S3WriteSide::kS3);
    ExpectWriteMatchesLocal(kFlinkRemap, rel, S3WriteSide::kS3, S3WriteSide::kLocal);
    ExpectWriteMatchesLocal(kFlinkRemap, rel, S3WriteSide::kLocal, S3WriteSide::kS3);
  }
}

TEST_F(CkptToolS3WriteTest, RescaleOwnSavepointOnEverySide) {
  ExpectWriteMatchesLocal(kOwnRescale, kOwnSavepoint, S3WriteSide::kS3, S3WriteSide::kS3);
  ExpectWriteMatchesLocal(kOwnRescale, kOwnSavepoint, S3WriteSide::kS3, S3WriteSide::kLocal);
  ExpectWriteMatchesLocal(kOwnRescale, kOwnSavepoint, S3WriteSide::kLocal, S3WriteSide::kS3);
}

TEST_F(CkptToolS3WriteTest, RescaleFlinkSavepointsOnEverySide) {
  for (const char* rel : {kFlinkRocks, kFlinkHashmap}) {
    ExpectWriteMatchesLocal(kFlinkRescale, rel, S3WriteSide::kS3, S3WriteSide::kS3);
    ExpectWriteMatchesLocal(kFlinkRescale, rel, S3WriteSide::kS3, S3WriteSide::kLocal);
    ExpectWriteMatchesLocal(kFlinkRescale, rel, S3WriteSide::kLocal, S3WriteSide::kS3);
  }
}

// A published snapshot (and a directory holding only a stray object) on S3 is never
// overwritten: every verb, for either format, refuses it before writing anything.
TEST_F(CkptToolS3WriteTest, ExistingOutputOnS3IsRefusedAndLeftUntouched) {
  const std::string taken = "taken/savepoint";
  ASSERT_EQ(0, RunWrite(kRelocate, Uri(kOwnSavepoint), Uri(taken)).exit_code);
  ASSERT_TRUE(client_->Put(bucket_, "taken/stray/notes.txt", "not a snapshot").ok());
  for (const std::string& target : {taken, std::string("taken/stray")}) {
    ExpectRefusedAndUntouched(kRelocate, kOwnSavepoint, target);
    ExpectRefusedAndUntouched(kOwnRemap, kOwnSavepoint, target);
    ExpectRefusedAndUntouched(kOwnRescale, kOwnSavepoint, target);
    ExpectRefusedAndUntouched(kRelocate, kFlinkRocks, target);
    ExpectRefusedAndUntouched(kFlinkRemap, kFlinkRocks, target);
    ExpectRefusedAndUntouched(kFlinkRescale, kFlinkRocks, target);
  }
}

// An output inside a snapshot on S3, inside the input, or inside a checkpoint directory of a
// job on S3 is refused naming the s3:// location, as its local counterpart is.
TEST_F(CkptToolS3WriteTest, OutputInsideASnapshotOrCheckpointStorageOnS3IsRefused) {
  const struct {
    std::string input, to, says;
  } cases[] = {
      {kOwnSavepoint, Uri(std::string(kFlinkRocks) + "/nested"),
       "inside the snapshot " + Uri(kFlinkRocks)},
      {kOwnSavepoint, Uri(std::string(kOwnSavepoint) + "/nested"),
       "inside the input " + Uri(kOwnSavepoint)},
      {kOwnSavepoint, Uri(std::string(kOwnChk5) + "/nested"),
       "inside the checkpoint directory " + Uri(kOwnChk5)},
  };
  for (const auto& c : cases) {
    const ToolRun got = RunWrite(kRelocate, Uri(c.input), c.to);
    EXPECT_EQ(2, got.exit_code) << c.to << "\n" << got.out << got.err;
    EXPECT_NE(std::string::npos, got.err.find(c.says)) << c.to << "\n" << got.err;
  }
  EXPECT_TRUE(ObjectsUnder(std::string(kFlinkRocks) + "/nested").empty());
  EXPECT_TRUE(ObjectsUnder(std::string(kOwnChk5) + "/nested").empty());
}

// A dry run with its output on S3 plans and writes nothing there.
TEST_F(CkptToolS3WriteTest, DryRunToS3WritesNothing) {
  for (const S3WriteVerb& verb : {kRelocate, kOwnRemap, kOwnRescale}) {
    S3WriteVerb dry = verb;
    dry.args.push_back("--dry-run");
    const ToolRun got = RunWrite(dry, kOwnSavepoint, Uri("dry/out"));
    EXPECT_EQ(0, got.exit_code) << verb.name << "\n" << got.out << got.err;
    EXPECT_NE(std::string::npos, got.out.find(Uri("dry/out"))) << verb.name << "\n" << got.out;
  }
  EXPECT_TRUE(ObjectsUnder("dry").empty());
}

// A failing write names the bucket and key it failed on and leaves nothing behind.
TEST_F(CkptToolS3WriteTest, WriteToAMissingBucketNamesItAndWritesNothing) {
  const std::string missing = s3::testing::S3TestBucket("ckpt-tool-missing");
  const ToolRun got = RunWrite(kRelocate, kOwnSavepoint, "s3://" + missing + "/sp");
  EXPECT_EQ(2, got.exit_code) << got.out << got.err;
  EXPECT_NE(std::string::npos, got.err.find("s3://" + missing + "/sp")) << got.err;
  EXPECT_NE(std::string::npos, got.err.find("NoSuchBucket")) << got.err;
  EXPECT_EQ(1, std::count(got.err.begin(), got.err.end(), '\n')) << got.err;
}

}  // namespace
}  // namespace ckpt::testing
