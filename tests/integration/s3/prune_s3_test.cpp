// Prune on S3: it aborts the multipart uploads an engine killed mid-upload leaves open in its
// job's checkpoint storage (invisible to every reader, billed until aborted), and nothing else:
// not while the job runs (its lease is held), not younger than the age guard, not outside chk-*,
// shared/ and taskowned/ (a sink's output or anything else under the root). And a prune that
// dies before any one of its requests leaves every checkpoint with a `_metadata` valid, the
// retained ones there, and a second prune finishes the job exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/base/checksum.h"
#include "ckpt/base/fault_injection_fs.h"
#include "ckpt/base/fs.h"
#include "ckpt/base/recoverable_writer.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"
#include "s3_itcase_fixture.h"

namespace ckpt::itcase {
namespace {

class PruneS3Test : public S3ITCase {
 protected:
  PruneS3Test() : S3ITCase("prune") {}

  // Starts a multipart upload at `location` with one part written and leaves it open, as an
  // engine killed while uploading a state file does.
  void LeaveOpenUpload(const std::string& location) {
    ASSERT_OK_AND_ASSIGN(base::RecoverableWriter * writer, base::RecoverableWriterFor(location));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<base::RecoverableStream> s, writer->Open(location));
    ASSERT_OK(s->Write("state bytes of a file never finished\n"));
    ASSERT_OK(s->CloseForCommit().status());  // uploaded, never completed
  }

  std::vector<std::string> OpenUploads(const std::string& prefix) {
    std::vector<std::string> out;
    base::Result<base::RecoverableWriter*> writer = base::RecoverableWriterFor(prefix);
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    if (!writer.ok()) return out;
    base::Result<std::vector<base::OpenUpload>> open = (*writer)->ListOpen(prefix);
    EXPECT_TRUE(open.ok()) << open.status().ToString();
    if (!open.ok()) return out;
    for (const base::OpenUpload& u : *open) out.push_back(u.location);
    std::sort(out.begin(), out.end());
    return out;
  }
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<const ops::PruneStep*> Aborts(const ops::PrunePlan& plan) {
  std::vector<const ops::PruneStep*> out;
  for (const ops::PruneStep& s : plan.steps) {
    if (s.action == ops::PruneAction::kAbortUpload) out.push_back(&s);
  }
  return out;
}

std::string KeptReason(const ops::PrunePlan& plan, const std::string& rel) {
  for (const ops::PruneKept& k : plan.kept) {
    if (k.path == rel) return k.reason;
  }
  return "(not kept)";
}

TEST_F(PruneS3Test, AbortsOnlyUploadsAStoppedJobLeftOpenInItsCheckpointStorage) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(tmp.Sub("out"));
  engine::JobRunnerOptions o;
  o.fs = fs_.get();
  o.checkpoint_dir = Uri("checkpoints");
  o.interval_ms = 100;
  o.parallelism = 1;
  o.num_retained = 2;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.registry = HoldingSourcesRegistry();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<engine::JobRunner> runner,
                       engine::JobRunner::Create(KeyedSumJobSpec(job), o));
  ASSERT_OK(runner->Start());
  engine::JobRunner* r = runner.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r->checkpoint_counts().completed >= 2; }));

  const std::string root = Uri("checkpoints");
  const std::string job_rel = job.job_id;
  const std::vector<std::string> storage = {job_rel + "/chk-9999/op-0-state",
                                            job_rel + "/shared/sst-000042.sst",
                                            job_rel + "/taskowned/changelog-7"};
  const std::vector<std::string> elsewhere = {job_rel + "/sink-output/part-0-0",
                                              "stray-upload"};
  for (const std::string& rel : storage) LeaveOpenUpload(root + "/" + rel);
  for (const std::string& rel : elsewhere) LeaveOpenUpload(root + "/" + rel);
  ops::PruneOptions later;
  later.now_ms = NowMs() + 2 * 3600 * 1000;  // every upload is older than the 1 h guard then

  // While the engine runs (its lease is held), nothing of its job is aborted.
  ASSERT_OK_AND_ASSIGN(ops::PrunePlan live, ops::PlanPrune(*fs_, root, later));
  EXPECT_TRUE(Aborts(live).empty());
  for (const std::string& rel : storage) {
    EXPECT_NE(KeptReason(live, rel).find("its job is running"), std::string::npos)
        << rel << ": " << KeptReason(live, rel);
  }
  runner->Cancel();
  runner->Wait();
  runner.reset();

  // Stopped, but the uploads are younger than the age guard: kept, saying so.
  ASSERT_OK_AND_ASSIGN(ops::PrunePlan young, ops::PlanPrune(*fs_, root));
  EXPECT_TRUE(Aborts(young).empty());
  for (const std::string& rel : storage) {
    EXPECT_NE(KeptReason(young, rel).find("age guard"), std::string::npos)
        << rel << ": " << KeptReason(young, rel);
  }

  // Two hours later: the three in checkpoint storage are aborted, last, the others kept.
  ASSERT_OK_AND_ASSIGN(ops::PrunePlan plan, ops::PlanPrune(*fs_, root, later));
  std::vector<std::string> aborted;
  for (const ops::PruneStep* s : Aborts(plan)) {
    aborted.push_back(s->path);
    EXPECT_FALSE(s->upload_id.empty());
  }
  std::sort(aborted.begin(), aborted.end());
  EXPECT_EQ(aborted, storage);
  EXPECT_EQ(plan.uploads_to_abort, storage.size());
  ASSERT_FALSE(plan.steps.empty());
  EXPECT_EQ(plan.steps.back().action, ops::PruneAction::kAbortUpload);
  for (const std::string& rel : elsewhere) {
    EXPECT_NE(KeptReason(plan, rel).find("not prune's"), std::string::npos)
        << rel << ": " << KeptReason(plan, rel);
  }
  ASSERT_OK(ops::ExecutePrune(*fs_, plan));
  std::vector<std::string> left = OpenUploads(root + "/");
  std::vector<std::string> expected;
  for (const std::string& rel : elsewhere) expected.push_back(root + "/" + rel);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(left, expected);

  // The newest checkpoint still restores: prune's aborts never touch a retained snapshot.
  ASSERT_OK_AND_ASSIGN(ops::PrunePlan again, ops::PlanPrune(*fs_, root, later));
  EXPECT_TRUE(Aborts(again).empty());
  size_t retained = 0;
  for (const ops::PruneSnapshot& s : again.snapshots) {
    retained += s.verdict == ops::SnapshotVerdict::kRetained;
  }
  EXPECT_GE(retained, 1u);
}

// Key (relative to `prefix`) -> XXH3 of every object under `prefix` of the bucket.
std::map<std::string, uint64_t> ObjectTree(s3::S3Fs& fs, const std::string& bucket,
                                           const std::string& prefix) {
  std::map<std::string, uint64_t> out;
  auto listed = fs.client().ListAll(bucket, prefix + "/", "");
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  if (!listed.ok()) return out;
  for (const auto& o : listed->objects) {
    auto body = fs.client().Get(bucket, o.key);
    EXPECT_TRUE(body.ok()) << o.key << ": " << body.status().ToString();
    out[o.key.substr(prefix.size() + 1)] = body.ok() ? base::Xxh3(*body) : 0;
  }
  return out;
}

void CopyPrefix(s3::S3Fs& fs, const std::string& bucket, const std::string& from,
                const std::string& to) {
  auto listed = fs.client().ListAll(bucket, from + "/", "");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  for (const auto& o : listed->objects) {
    ASSERT_TRUE(fs.client().Copy(bucket, o.key, bucket, to + o.key.substr(from.size())).ok())
        << o.key;
  }
}

TEST_F(PruneS3Test, ACrashBeforeAnyRequestLeavesEveryCheckpointValidAndAnotherPruneFinishes) {
  testing::TempDir tmp;
  KeyedSumJob job = BackendITCaseJob(tmp.Sub("out"));
  engine::JobRunnerOptions o;
  o.fs = fs_.get();
  o.checkpoint_dir = Uri("template");
  o.interval_ms = 100;
  o.parallelism = 2;
  o.num_retained = 5;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.state_backend = "rocksdb";
  o.incremental = true;  // shared/ files referenced by several checkpoints
  o.state_local_dir = tmp.Sub("local");
  o.registry = HoldingSourcesRegistry();
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<engine::JobRunner> runner,
                         engine::JobRunner::Create(KeyedSumJobSpec(job), o));
    ASSERT_OK(runner->Start());
    engine::JobRunner* r = runner.get();
    ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r->checkpoint_counts().completed >= 5; }));
    runner->Cancel();
    runner->Wait();
  }
  // What failed checkpoints leave: an unreferenced shared object and a chk without _metadata.
  ASSERT_OK(fs_->client().Put(bucket_, "template/" + job.job_id + "/shared/leaked", "leak"));
  ASSERT_OK(fs_->client().Put(bucket_, "template/" + job.job_id + "/chk-999999/partial", "p"));

  ops::PruneOptions options;
  options.keep_last = 2;
  options.min_orphan_age_ms = 0;
  options.now_ms = int64_t{1} << 50;  // every object is old enough
  // The reference run: how many mutating requests, and what is left.
  CopyPrefix(*fs_, bucket_, "template", "reference");
  int64_t ops = 0;
  {
    ASSERT_OK_AND_ASSIGN(ops::PrunePlan plan, ops::PlanPrune(*fs_, Uri("reference"), options));
    base::FaultInjectionFs counting(*fs_);
    ASSERT_OK(ops::ExecutePrune(counting, plan));
    ops = counting.operations();
  }
  ASSERT_GE(ops, 5);
  const std::map<std::string, uint64_t> want = ObjectTree(*fs_, bucket_, "reference");
  ASSERT_FALSE(want.count(job.job_id + "/shared/leaked"));

  for (int64_t n = 0; n < ops; ++n) {
    SCOPED_TRACE("crash before request " + std::to_string(n) + " of " + std::to_string(ops));
    const std::string prefix = "run-" + std::to_string(n);
    CopyPrefix(*fs_, bucket_, "template", prefix);
    ASSERT_OK_AND_ASSIGN(ops::PrunePlan plan, ops::PlanPrune(*fs_, Uri(prefix), options));
    {
      base::FaultInjectionFs faulty(*fs_);
      faulty.CrashAfter(n);
      EXPECT_FALSE(ops::ExecutePrune(faulty, plan).ok());
    }
    size_t complete = 0;
    std::vector<std::string> dirs = CheckpointDirs(Uri(prefix + "/" + job.job_id), &complete);
    size_t with_metadata = 0;
    for (const std::string& d : dirs) {
      const std::string dir = Uri(prefix + "/" + job.job_id + "/" + d);
      if (!fs_->Stat(dir + "/_metadata").ok()) continue;
      ++with_metadata;
      ops::ValidateOptions deep;
      deep.deep = true;
      ASSERT_OK_AND_ASSIGN(ops::ValidateReport report, ops::Validate(*fs_, dir, deep));
      for (const auto& f : report.findings) {
        EXPECT_NE(f.severity, ops::Severity::kError) << d << ": " << f.rule_id << " " << f.message;
      }
    }
    EXPECT_GE(with_metadata, 2u) << "a retained checkpoint lost its _metadata";
    ASSERT_OK_AND_ASSIGN(ops::PrunePlan again, ops::PlanPrune(*fs_, Uri(prefix), options));
    ASSERT_OK(ops::ExecutePrune(*fs_, again));
    EXPECT_EQ(ObjectTree(*fs_, bucket_, prefix), want);
  }
}

}  // namespace
}  // namespace ckpt::itcase
