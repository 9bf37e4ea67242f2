// The two-phase-commit file sink writing to S3 (the local s3proxy of tests/format/s3's
// s3proxy_server ctest fixture): part files are multipart uploads completed when their
// checkpoint completes. A keyed-sum job with checkpoints and sink on S3 is cancelled (in process)
// or killed with SIGKILL (ckpt-engine) mid-input and resumed --from-latest: the committed objects
// hold every record exactly once, the same as the job's uninterrupted local run, and no multipart
// upload is left open after the clean finish.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/recoverable_writer.h"
#include "ckpt/engine/operators/multipart_part_files.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/layout.h"
#include "ckpt/ops/pending_files.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/s3/s3_client.h"
#include "ckpt/s3/s3_fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"
#include "s3_itcase_fixture.h"

namespace ckpt::itcase {
namespace {

using engine::JobOutcome;
using engine::JobResult;
using engine::JobRunner;
using engine::JobRunnerOptions;

class FileSinkS3Test : public S3ITCase {
 protected:
  FileSinkS3Test() : S3ITCase("filesink") {}

  // Copies the committed objects ("part-*") under `rel` into the local directory `local`.
  void Download(const std::string& rel, const std::string& local) {
    std::filesystem::create_directories(local);
    ASSERT_OK_AND_ASSIGN(std::vector<base::DirEntry> entries, fs_->ListDir(Uri(rel)));
    for (const base::DirEntry& e : entries) {
      if (e.is_dir || e.name.rfind("part-", 0) != 0) continue;
      ASSERT_OK_AND_ASSIGN(std::string bytes,
                           base::ReadFileToString(*fs_, base::JoinPath(Uri(rel), e.name)));
      std::ofstream(base::JoinPath(local, e.name), std::ios::binary) << bytes;
    }
  }

  // Multipart uploads still open under `rel`.
  size_t OpenUploads(const std::string& rel) {
    base::Result<std::vector<s3::MultipartUploadInfo>> open =
        fs_->client().ListMultipartUploads(bucket_, rel + "/");
    EXPECT_TRUE(open.ok()) << open.status().ToString();
    return open.ok() ? open->size() : 0;
  }

  // A complete checkpoint exists under the job directory `rel` on S3.
  bool HasCompleteCheckpoint(const std::string& rel) {
    size_t complete = 0;
    CheckpointDirs(Uri(rel), &complete);
    return complete > 0;
  }
};

// Per key: the count of committed lines and the largest running sum.
std::map<int64_t, std::pair<int64_t, int64_t>> LinesByKey(const std::string& dir) {
  std::map<int64_t, std::pair<int64_t, int64_t>> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("part-", 0) != 0) continue;
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      int64_t key = 0, input = 0, sum = 0;
      char c1 = 0, c2 = 0;
      std::istringstream ls(line);
      if (!(ls >> key >> c1 >> input >> c2 >> sum)) continue;
      auto& [count, final_sum] = out[key];
      ++count;
      final_sum = std::max(final_sum, sum);
    }
  }
  return out;
}

// The job uninterrupted, checkpoints and sink local: the reference.
std::map<int64_t, std::pair<int64_t, int64_t>> LocalRun(const testing::TempDir& tmp,
                                                        KeyedSumJob job) {
  job.sink_dir = tmp.Sub("out-local");
  job.rate_per_second = 0;
  JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints-local");
  o.interval_ms = 100;
  o.parallelism = 2;
  base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(KeyedSumJobSpec(job), o);
  EXPECT_TRUE(runner.ok()) << runner.status().ToString();
  if (!runner.ok()) return {};
  EXPECT_OK((*runner)->Start());
  JobResult r = (*runner)->Wait();
  EXPECT_EQ(r.outcome, JobOutcome::kFinished) << r.status.ToString();
  return LinesByKey(job.sink_dir);
}

// The S3 RecoverableWriter alone: a file of two parts is invisible until committed, its commit
// is idempotent and recorded in the pending path, a commit with other parts is refused, and an
// abandoned upload is listed until aborted.
TEST_F(FileSinkS3Test, RecoverableWriterCommitsIdempotentlyAndAbortsAbandonedUploads) {
  ASSERT_OK_AND_ASSIGN(base::RecoverableWriter * writer, base::RecoverableWriterFor(Uri("rw")));
  const std::string location = Uri("rw/part-w-0-0");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<base::RecoverableStream> stream, writer->Open(location));
  // More than one part (config().part_size_bytes, 8 MiB by default), then a small last part.
  const std::string chunk(1 << 20, 'x');
  std::string expected;
  for (int i = 0; i < 9; ++i) {
    ASSERT_OK(stream->Write(chunk));
    expected += chunk;
  }
  ASSERT_OK(stream->Write("tail\n"));
  expected += "tail\n";
  ASSERT_OK_AND_ASSIGN(base::RecoverableCommit commit, stream->CloseForCommit());
  EXPECT_EQ(commit.location, location);
  EXPECT_EQ(commit.size_bytes, expected.size());
  EXPECT_EQ(commit.part_etags.size(), 2u);
  EXPECT_TRUE(fs_->Stat(location).status().IsNotFound()) << "visible before its commit";
  ASSERT_OK_AND_ASSIGN(std::vector<base::OpenUpload> open, writer->ListOpen(Uri("rw/")));
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].upload_id, commit.upload_id);

  // Through the sink's pending record, twice: the second finds the object completed.
  engine::operators::PendingPartFile pending;
  pending.final_path = commit.location;
  pending.upload_id = commit.upload_id;
  pending.part_etags = commit.part_etags;
  pending.size_bytes = commit.size_bytes;
  ASSERT_OK_AND_ASSIGN(base::RecoverableCommit decoded,
                       engine::operators::MultipartCommitOf(pending));
  EXPECT_EQ(decoded, commit);
  ASSERT_OK(engine::operators::CommitMultipartPartFile(*writer, pending));
  ASSERT_OK(engine::operators::CommitMultipartPartFile(*writer, pending));
  ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(*fs_, location));
  EXPECT_EQ(bytes, expected);
  ASSERT_OK_AND_ASSIGN(open, writer->ListOpen(Uri("rw/")));
  EXPECT_TRUE(open.empty());

  // Other parts than those completed: not this commit.
  base::RecoverableCommit other = commit;
  std::swap(other.part_etags[0], other.part_etags[1]);
  EXPECT_FALSE(writer->Commit(other).ok());
  // A pending record that is not an upload's is refused, naming it.
  engine::operators::PendingPartFile garbled = pending;
  garbled.upload_id.clear();
  base::Result<base::RecoverableCommit> bad = engine::operators::MultipartCommitOf(garbled);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), base::StatusCode::kCorruption);
  EXPECT_NE(bad.status().message().find(location), std::string::npos);
  garbled = pending;
  garbled.part_etags.clear();
  EXPECT_EQ(engine::operators::MultipartCommitOf(garbled).status().code(),
            base::StatusCode::kCorruption);

  // Abandoned (never closed): open until aborted, and never visible.
  const std::string abandoned = Uri("rw/part-w-0-1");
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<base::RecoverableStream> s2, writer->Open(abandoned));
    ASSERT_OK(s2->Write("lost\n"));
  }
  ASSERT_OK_AND_ASSIGN(open, writer->ListOpen(Uri("rw/")));
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].location, abandoned);
  ASSERT_OK(writer->Abort(open[0]));
  ASSERT_OK_AND_ASSIGN(open, writer->ListOpen(Uri("rw/")));
  EXPECT_TRUE(open.empty());
  EXPECT_TRUE(fs_->Stat(abandoned).status().IsNotFound());
}

// Cancelled mid-input (its open uploads abandoned, as a failure leaves them), then resumed
// --from-latest: exactly-once output on S3 and no upload left open.
TEST_F(FileSinkS3Test, CancelledAndResumedJobCommitsEveryRecordOnceToS3) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(Uri("out"));
  JobRunnerOptions o;
  o.fs = fs_.get();
  o.checkpoint_dir = Uri("checkpoints");
  o.interval_ms = 100;
  o.parallelism = 2;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.registry = HoldingSourcesRegistry();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> runner, JobRunner::Create(KeyedSumJobSpec(job), o));
  ASSERT_OK(runner->Start());
  JobRunner* r0 = runner.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r0->checkpoint_counts().completed >= 3; }));
  runner->Cancel();
  JobResult r = runner->Wait();
  ASSERT_EQ(r.outcome, JobOutcome::kCancelled) << r.status.ToString();
  runner.reset();
  // Part files were committed to S3 before the cancel.
  ASSERT_OK_AND_ASSIGN(std::vector<base::DirEntry> first, fs_->ListDir(Uri("out")));
  EXPECT_FALSE(first.empty());

  JobRunnerOptions resume = o;
  resume.registry = nullptr;
  resume.job_id_hex = job.job_id;
  resume.restore_from_latest = true;
  KeyedSumJob second = job;
  second.rate_per_second = 0;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> resumed,
                       JobRunner::Create(KeyedSumJobSpec(second), resume));
  ASSERT_OK(resumed->Start());
  JobResult r2 = resumed->Wait();
  ASSERT_EQ(r2.outcome, JobOutcome::kFinished) << r2.status.ToString();

  EXPECT_EQ(OpenUploads("out"), 0u) << "a multipart upload outlived the finished job";
  const std::string local = tmp.Sub("out-downloaded");
  Download("out", local);
  KeyedSumJob check = job;
  check.sink_dir = local;
  ExpectExact(VerifyCommitted({local}, check, /*check_sums=*/true));
  EXPECT_EQ(LinesByKey(local), LocalRun(tmp, job));
}

// ckpt-engine with checkpoints and sink on S3 killed with SIGKILL after its first completed
// checkpoint (uploads open, maybe a completed checkpoint not yet committed), resumed with
// --from-latest: exactly-once output on S3, no upload left open.
TEST_F(FileSinkS3Test, KilledEngineResumesWithExactlyOnceOutputOnS3) {
  ASSERT_NE(std::string(kEngine), "") << "ckpt-engine was not built";
  testing::TempDir tmp;
  KeyedSumJob job = PacedJob(Uri("cli-out"), 100000, 16);
  job.rate_per_second = 25000;
  job.job_id = JobIdFor("FileSinkS3Test.Kill");
  const std::string spec = tmp.Sub("job.json");
  std::ofstream(spec) << KeyedSumJobJson(job);
  const std::string job_rel = "cli/checkpoints/" + job.job_id;
  const pid_t pid = Spawn({kEngine, "run", spec, "--checkpoint-dir", Uri("cli/checkpoints"),
                           "--interval", "100", "--parallelism", "2"},
                          tmp.Sub("run1.log"));
  ASSERT_GT(pid, 0);
  const bool checkpointed = ckpt::testing::WaitUntil([&] { return HasCompleteCheckpoint(job_rel); });
  ::kill(pid, SIGKILL);
  const int code = WaitExit(pid);
  ASSERT_TRUE(checkpointed) << ReadFile(tmp.Sub("run1.log"));
  ASSERT_EQ(code, 128 + SIGKILL) << "the engine finished before it was killed:\n"
                                 << ReadFile(tmp.Sub("run1.log"));

  // What the checkpoints record for the sink: uploads (id and parts, no pending path), each still
  // open or already completed by the killed engine; none lost.
  size_t uploads = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<base::DirEntry> chks, fs_->ListDir(Uri(job_rel)));
  for (const base::DirEntry& e : chks) {
    const std::string chk = base::JoinPath(Uri(job_rel), e.name);
    if (!format::ParseCheckpointDirName(e.name) ||
        !fs_->Stat(base::JoinPath(chk, format::kMetadataFileName)).ok()) {
      continue;
    }
    ASSERT_OK_AND_ASSIGN(ops::Snapshot snapshot, ops::LoadSnapshot(*fs_, chk));
    ASSERT_OK_AND_ASSIGN(std::vector<ops::PendingFile> pending,
                         ops::ListPendingFiles(*fs_, snapshot));
    for (const ops::PendingFile& f : pending) {
      ++uploads;
      EXPECT_TRUE(f.committable.is_upload()) << chk << ": " << f.committable.final_path;
      EXPECT_TRUE(f.committable.pending_path.empty()) << f.committable.pending_path;
      EXPECT_FALSE(f.committable.part_etags.empty()) << f.committable.final_path;
      EXPECT_TRUE(f.state == ops::PendingFileState::kPending ||
                  f.state == ops::PendingFileState::kCommitted)
          << chk << ": " << f.committable.PendingName() << " is "
          << ops::PendingFileStateName(f.state);
    }
  }
  EXPECT_GT(uploads, 0u) << "no checkpoint recorded a pending part file";

  // The killed engine's lease on the job directory would refuse a restart for its 30 s time to
  // live; the holder is known dead, so it is removed (as an operator does after checking).
  ASSERT_OK(fs_->RemoveFile(base::JoinPath(Uri(job_rel), format::kJobLockFileName)));
  // Uploads of the killed attempt are open now; the restore aborts them.
  KeyedSumJob rest = job;
  rest.rate_per_second = 0;
  const std::string rest_spec = tmp.Sub("job-unpaced.json");
  std::ofstream(rest_spec) << KeyedSumJobJson(rest);
  const int resumed = WaitExit(Spawn({kEngine, "run", rest_spec, "--from-latest", Uri(job_rel),
                                      "--interval", "100", "--parallelism", "2"},
                                     tmp.Sub("run2.log")));
  ASSERT_EQ(resumed, 0) << ReadFile(tmp.Sub("run2.log"));

  EXPECT_EQ(OpenUploads("cli-out"), 0u) << "a multipart upload outlived the finished job";
  const std::string local = tmp.Sub("cli-out-downloaded");
  Download("cli-out", local);
  KeyedSumJob check = job;
  check.sink_dir = local;
  ExpectExact(VerifyCommitted({local}, check, /*check_sums=*/true));
  EXPECT_EQ(LinesByKey(local), LocalRun(tmp, job));
}

}  // namespace
}  // namespace ckpt::itcase
