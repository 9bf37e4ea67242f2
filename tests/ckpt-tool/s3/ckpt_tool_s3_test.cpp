// ckpt-tool's verbs on snapshots stored on S3 (the local s3proxy of the s3proxy_server fixture)
// print what they print on the local copy, with s3://<bucket>/ where the local run has a
// relative path; a missing key and refused credentials are one clear line each.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/testing/temp_dir.h"
#include "ckpt_tool_s3_fixture.h"
#include "golden_util.h"

namespace ckpt::testing {
namespace {

constexpr char kSavepoint[] = "engine-v1/savepoint-e0e1e2-30e19071c9cd";
constexpr char kJobRoot[] = "engine-v1/checkpoints/e0e1e2e3e4e5e6e7e8e9eaebecedeeef";
constexpr char kChk4[] = "engine-v1/checkpoints/e0e1e2e3e4e5e6e7e8e9eaebecedeeef/chk-4";
constexpr char kChk5[] = "engine-v1/checkpoints/e0e1e2e3e4e5e6e7e8e9eaebecedeeef/chk-5";

// `text` with every run of spaces made one: a table sized to its widest path is padded wider
// when the paths are URIs.
std::string CollapseSpaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

class CkptToolS3Test : public CkptToolS3Fixture {
 protected:
  // ExpectSameOnS3 with the output compared as printed, or with `collapse_spaces` the padding of
  // columns that hold paths (sized to the widest, wider for URIs) ignored.
  void ExpectSameOnS3(const std::vector<std::string>& verb_args,
                      const std::vector<std::string>& rels, bool collapse_spaces = false) {
    CkptToolS3Fixture::ExpectSameOnS3(verb_args, rels, [collapse_spaces](const std::string& t) {
      return collapse_spaces ? CollapseSpaces(t) : t;
    });
  }
};

TEST_F(CkptToolS3Test, LsMatchesLocalCopy) {
  ExpectSameOnS3({"ls"}, {kSavepoint});
  ExpectSameOnS3({"ls"}, {kChk5});
  ExpectSameOnS3({"ls"}, {kJobRoot});
  ExpectSameOnS3({"ls"}, {"engine-v1/checkpoints"});
}

TEST_F(CkptToolS3Test, ShowMatchesLocalCopy) {
  ExpectSameOnS3({"show"}, {kSavepoint});
  ExpectSameOnS3({"show"}, {kChk4});
  ExpectSameOnS3({"--format", "json", "show"}, {kSavepoint});
}

TEST_F(CkptToolS3Test, FilesMatchesLocalCopy) {
  ExpectSameOnS3({"files"}, {kSavepoint});
  ExpectSameOnS3({"files"}, {kChk5});
}

TEST_F(CkptToolS3Test, DumpMatchesLocalCopy) {
  ExpectSameOnS3({"dump"}, {kSavepoint});
  ExpectSameOnS3({"dump"}, {kChk4});
}

TEST_F(CkptToolS3Test, DeepValidateMatchesLocalCopy) {
  ExpectSameOnS3({"validate", "--deep"}, {kSavepoint});
  ExpectSameOnS3({"validate", "--deep"}, {kChk5});
  ExpectSameOnS3({"--format", "json", "validate", "--deep"}, {kSavepoint});
}

TEST_F(CkptToolS3Test, StatsMatchesLocalCopy) {
  ExpectSameOnS3({"stats"}, {kSavepoint});
  ExpectSameOnS3({"stats"}, {kChk4});
}

TEST_F(CkptToolS3Test, DiffMatchesLocalCopy) {
  ExpectSameOnS3({"diff"}, {kChk4, kChk5}, /*collapse_spaces=*/true);
  ExpectSameOnS3({"diff"}, {kSavepoint, kChk5}, /*collapse_spaces=*/true);
  ExpectSameOnS3({"--format", "json", "diff"}, {kChk4, kChk5});
}

// Flink savepoints name their state files relative to the savepoint directory: on S3 they
// resolve against the s3:// directory the same way.
TEST_F(CkptToolS3Test, FlinkSavepointWithRelativeHandlesMatchesLocalCopy) {
  for (const char* rel :
       {"flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint",
        "flink/new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint"}) {
    ASSERT_NO_FATAL_FAILURE(Upload(rel));
    ExpectSameOnS3({"ls"}, {rel});
    ExpectSameOnS3({"show"}, {rel});
    ExpectSameOnS3({"files"}, {rel});
    ExpectSameOnS3({"dump"}, {rel});
    ExpectSameOnS3({"validate", "--deep"}, {rel});
    ExpectSameOnS3({"stats"}, {rel});
  }
}

// growth through the Fs seam: the same numbers as on the local copy (sizes on storage, the
// same orphans), with no S3-specific code.
TEST_F(CkptToolS3Test, GrowthMatchesLocalCopy) {
  ExpectSameOnS3({"--format", "json", "growth"}, {kJobRoot});
  ExpectSameOnS3({"growth"}, {"engine-v1/checkpoints"}, /*collapse_spaces=*/true);
}

// The plan is the local one: S3 locks are leases, and no engine holds this job's.
TEST_F(CkptToolS3Test, PruneDryRunMatchesLocalCopy) {
  for (const std::string& rel : {std::string("engine-v1/checkpoints"), std::string(kJobRoot)}) {
    const ToolRun want = RunTool({"prune", "--dry-run", rel}, FixturePath(""));
    const ToolRun got = RunTool({"prune", "--dry-run", Uri(rel)}, FixturePath(""));
    EXPECT_EQ(0, want.exit_code) << want.err;
    EXPECT_EQ(want.exit_code, got.exit_code) << got.err;
    EXPECT_EQ(std::string::npos, got.out.find("cannot tell whether job")) << got.out;
    EXPECT_EQ(CollapseSpaces(want.out),
              CollapseSpaces(S3ToolReplaceAll(got.out, "s3://" + bucket_ + "/", "")));
  }
}

// An unexpired lease on the job's _job.lock (a running engine's) makes prune --yes treat the job
// as running, as a held flock does locally: nothing in it is deleted and the lease is left
// alone. Once the lease expired the job is not running: the prune takes the lease while it
// works and drops it after.
TEST_F(CkptToolS3Test, PruneYesHonoursAnUnexpiredLease) {
  const std::string lock_key = std::string(kJobRoot) + "/_job.lock";
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const std::string live = "owner=engine-host:42:00000000000000aa\nexpires_ms=" +
                           std::to_string(now_ms + 600'000) + "\n";
  ASSERT_TRUE(client_->Put(bucket_, lock_key, live).ok());
  const ToolRun held = RunTool({"prune", "--yes", Uri(kJobRoot)}, FixturePath(""));
  EXPECT_EQ(0, held.exit_code) << held.out << held.err;
  EXPECT_NE(std::string::npos, held.out.find("kept: its job is running")) << held.out;
  EXPECT_NE(std::string::npos, held.out.find("_job.lock is held): nothing in it is deleted"))
      << held.out;
  EXPECT_TRUE(client_->Head(bucket_, std::string(kChk4) + "/_metadata").ok());
  base::Result<std::string> still = client_->Get(bucket_, lock_key);
  ASSERT_TRUE(still.ok()) << still.status().ToString();
  EXPECT_EQ(*still, live);  // the holder's lease is left alone

  ASSERT_TRUE(client_->Put(bucket_, lock_key,
                           "owner=engine-host:42:00000000000000aa\nexpires_ms=" +
                               std::to_string(now_ms - 600'000) + "\n")
                  .ok());
  const ToolRun ran = RunTool({"prune", "--yes", Uri(kJobRoot)}, FixturePath(""));
  EXPECT_EQ(0, ran.exit_code) << ran.out << ran.err;
  EXPECT_EQ(std::string::npos, ran.out.find("is running")) << ran.out;
  EXPECT_TRUE(client_->Head(bucket_, std::string(kChk5) + "/_metadata").ok());  // the newest
  EXPECT_TRUE(client_->Head(bucket_, lock_key).status().IsNotFound());
}

// relocate reads on S3 and writes the copy to a local directory: a savepoint that shows and
// validates as the original does.
TEST_F(CkptToolS3Test, RelocateDownloadsASavepointToALocalDirectory) {
  TempDir tmp;
  const std::string to = tmp.Sub("savepoint-copy");
  const ToolRun got = RunTool({"relocate", Uri(kSavepoint), "--to", to}, FixturePath(""));
  ASSERT_EQ(0, got.exit_code) << got.out << got.err;
  const ToolRun want = RunTool({"dump", kSavepoint}, FixturePath(""));
  const ToolRun copy = RunTool({"dump", to}, FixturePath(""));
  EXPECT_EQ(0, copy.exit_code) << copy.err;
  EXPECT_EQ(want.out, copy.out);
  const ToolRun check = RunTool({"validate", "--deep", to}, FixturePath(""));
  EXPECT_EQ(0, check.exit_code) << check.out << check.err;
  // A checkpoint becomes a self-contained savepoint the same way.
  const std::string from_chk = tmp.Sub("from-chk-5");
  const ToolRun chk = RunTool({"relocate", Uri(kChk5), "--to", from_chk}, FixturePath(""));
  ASSERT_EQ(0, chk.exit_code) << chk.out << chk.err;
  EXPECT_EQ(0, RunTool({"validate", "--deep", from_chk}, FixturePath("")).exit_code);
}

// diff reads one side on S3 and the other locally: the upload of a snapshot has its state.
TEST_F(CkptToolS3Test, DiffOfAnUploadAndItsLocalCopyFindsTheSameState) {
  const ToolRun got = RunTool({"diff", Uri(kSavepoint), kSavepoint}, FixturePath(""));
  const ToolRun same = RunTool({"diff", kSavepoint, kSavepoint}, FixturePath(""));
  EXPECT_EQ(same.exit_code, got.exit_code) << got.out << got.err;
  EXPECT_NE(std::string::npos, got.out.find("sum")) << got.out << got.err;
  const auto operators = [](const std::string& out) { return out.substr(0, out.find("\nfiles:")); };
  EXPECT_EQ(CollapseSpaces(operators(same.out)),
            CollapseSpaces(S3ToolReplaceAll(operators(got.out), "s3://" + bucket_ + "/", "")));
}

TEST_F(CkptToolS3Test, RelocateDryRunWritesNothing) {
  TempDir tmp;
  const std::string to = tmp.Sub("never");
  const ToolRun got =
      RunTool({"relocate", "--dry-run", Uri(kSavepoint), "--to", to}, FixturePath(""));
  EXPECT_EQ(0, got.exit_code) << got.out << got.err;
  EXPECT_FALSE(got.out.empty());
  EXPECT_FALSE(std::filesystem::exists(to));
}

TEST_F(CkptToolS3Test, MissingKeyIsOneNotFoundLine) {
  const std::string rel = "engine-v1/no-such-savepoint";
  const ToolRun local = RunTool({"show", rel}, FixturePath(""));
  const ToolRun got = RunTool({"show", Uri(rel)}, FixturePath(""));
  EXPECT_EQ(local.exit_code, got.exit_code) << got.err;
  EXPECT_EQ(2, got.exit_code);
  EXPECT_NE(std::string::npos, got.err.find("NotFound")) << got.err;
  EXPECT_NE(std::string::npos, got.err.find(Uri(rel))) << got.err;
  EXPECT_EQ(1, std::count(got.err.begin(), got.err.end(), '\n')) << got.err;
}

// The first request is a HEAD, whose 403 carries no error code: the line says so, names the
// object and the (redacted) key id, and the request was sent once, not retried.
TEST_F(CkptToolS3Test, RefusedCredentialsAreOneLineWithoutTheSecret) {
  const std::string wrong = "wrong/secret/key0000000000000000000000";
  setenv("AWS_SECRET_ACCESS_KEY", wrong.c_str(), 1);
  const ToolRun got = RunTool({"show", Uri(kSavepoint)}, FixturePath(""));
  EXPECT_EQ(2, got.exit_code) << got.err;
  EXPECT_EQ(1, std::count(got.err.begin(), got.err.end(), '\n')) << got.err;
  EXPECT_NE(std::string::npos, got.err.find(Uri(kSavepoint))) << got.err;
  EXPECT_NE(std::string::npos, got.err.find("HTTP 403")) << got.err;
  EXPECT_NE(std::string::npos, got.err.find("credentials of key AKID")) << got.err;
  EXPECT_EQ(std::string::npos, got.err.find("attempts")) << got.err;
  EXPECT_EQ(std::string::npos, got.err.find(wrong)) << got.err;
  EXPECT_EQ(std::string::npos, got.err.find(config_.credentials.secret_access_key)) << got.err;
}

}  // namespace
}  // namespace ckpt::testing
