// Restoring a damaged checkpoint fails with an error naming the damaged file, never a crash. A
// keyed job (sequence-source -> keyed-sum -> discard, the sum and the sink chained) writes real
// checkpoints on each backend (heap, RocksDB full and incremental, changelog on heap and RocksDB,
// unaligned); then every file the newest checkpoint references, `_metadata` included, is damaged
// one way at a time (removed, truncated at three offsets, one bit flipped at two offsets)
// and restored. A task whose restore failed before its operators existed used to crash the
// engine when it published its metrics on the way out (SIGSEGV in the prune campaign).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

constexpr const char* kDamagedJobId = "64616d616765642d726573746f726501";

// Rate-limited while it writes the checkpoints, unlimited when a restore succeeds (it then
// finishes at once).
pb::JobSpec DamagedRestoreSpec(double rate) {
  std::string json = std::string(R"({"name": "damaged-restore", "job_id": ")") + kDamagedJobId +
                     R"(", "max_parallelism": 128, "operators": [
    {"id": "src", "kind": "sequence-source", "uid": "src",
     "params": {"to": 200000, "splits": 2, "keys": 16, "rate_per_second": )" +
                     std::to_string(rate) + R"(}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum", "params": {"emit": "input-and-sum"}},
    {"id": "out", "kind": "discard", "uid": "out"}],
    "edges": [{"from": "src", "to": "sum", "partitioning": "HASH"},
              {"from": "sum", "to": "out", "partitioning": "FORWARD"}]})";
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(json, "damaged-restore.json");
  EXPECT_OK(spec.status());
  return spec.ok() ? *spec : pb::JobSpec();
}

struct DamagedBackend {
  const char* name;
  const char* backend;
  bool incremental;
  bool changelog;
  bool unaligned;
};

void PrintTo(const DamagedBackend& b, std::ostream* os) { *os << b.name; }

JobRunnerOptions BackendOptions(const DamagedBackend& b) {
  JobRunnerOptions o;
  o.state_backend = b.backend;
  o.incremental = b.incremental;
  o.changelog = b.changelog;
  if (b.changelog) o.changelog_materialization_interval_ms = 60;
  if (b.unaligned) o.mode = pb::UNALIGNED;
  o.parallelism = 1;
  o.max_restart_attempts = 0;
  o.lock_wait_ms = 100;
  return o;
}

// One way to damage a file.
struct Damage {
  std::string what;
  bool remove = false;
  int64_t truncate_to = -1;
  int64_t flip_at = -1;
};

std::vector<Damage> DamagesFor(int64_t size) {
  std::vector<Damage> d;
  d.push_back({"removed", true});
  for (int64_t at : {int64_t{0}, size / 2, size - 1}) {
    if (at >= 0 && at < size) d.push_back({"truncated to " + std::to_string(at), false, at});
  }
  for (int64_t at : {int64_t{2}, size / 2}) {
    if (at >= 0 && at < size) {
      d.push_back({"bit flipped at byte " + std::to_string(at), false, -1, at});
    }
  }
  return d;
}

// The newest complete checkpoint in `job_dir` ("" if none).
std::string NewestCompleteCheckpoint(const std::string& job_dir) {
  base::Fs& fs = base::Fs::Default();
  base::Result<std::vector<base::DirEntry>> entries = fs.ListDir(job_dir);
  if (!entries.ok()) return "";
  std::string newest;
  int64_t newest_id = -1;
  for (const base::DirEntry& e : *entries) {
    std::optional<int64_t> id = format::ParseCheckpointDirName(e.name);
    if (!e.is_dir || !id || *id <= newest_id) continue;
    const std::string dir = base::JoinPath(job_dir, e.name);
    if (!fs.Stat(base::JoinPath(dir, format::kMetadataFileName)).ok()) continue;
    newest_id = *id;
    newest = dir;
  }
  return newest;
}

// `_metadata` of `chk` and every file it references, by path.
base::Result<std::vector<std::string>> CheckpointFiles(const std::string& chk) {
  const std::string metadata = base::JoinPath(chk, format::kMetadataFileName);
  CKPT_ASSIGN_OR_RETURN(pb::CheckpointMetadata md,
                        format::ReadMetadataFile(base::Fs::Default(), metadata));
  std::vector<std::string> files = {metadata};
  for (const pb::FileEntry& f : md.files()) {
    CKPT_ASSIGN_OR_RETURN(std::string path, format::ResolveFile(chk, f));
    files.push_back(std::move(path));
  }
  return files;
}

bool AnyFileNamed(const std::vector<std::string>& files, const std::string& part) {
  for (const std::string& f : files) {
    if (f.substr(f.rfind('/') + 1).find(part) != std::string::npos) return true;
  }
  return false;
}

class DamagedRestoreTest : public ::testing::TestWithParam<DamagedBackend> {
 protected:
  // Writes checkpoints with the engine until the newest holds every kind of file its backend
  // writes (with the changelog: a materialized part and the log after it), cancels (retained)
  // and returns that checkpoint's directory.
  std::string WriteCheckpoint() {
    JobRunnerOptions o = BackendOptions(GetParam());
    o.checkpoint_dir = tmp_.Sub("checkpoints");
    o.interval_ms = 30;
    o.num_retained = 1;
    o.retention = pb::RETAIN_ON_CANCELLATION;
    auto runner = JobRunner::Create(DamagedRestoreSpec(20000), o);
    EXPECT_OK(runner.status());
    if (!runner.ok()) return "";
    EXPECT_OK((*runner)->Start());
    JobRunner* r = runner->get();
    const std::string job_dir = format::JobDir(tmp_.Sub("checkpoints"), kDamagedJobId);
    EXPECT_TRUE(ckpt::testing::WaitUntil([&] {
      if (r->checkpoint_counts().completed < 3) return false;
      if (!GetParam().changelog) return true;
      base::Result<std::vector<std::string>> files =
          CheckpointFiles(NewestCompleteCheckpoint(job_dir));
      return files.ok() && AnyFileNamed(*files, "materialized-") &&
             AnyFileNamed(*files, "changelog-");
    })) << r->checkpoint_counts().completed << " checkpoints completed";
    r->Cancel();
    EXPECT_EQ(r->Wait().outcome, JobOutcome::kCancelled);
    return NewestCompleteCheckpoint(job_dir);
  }

  // Restores `chk` (no-claim, checkpoints of the restored job elsewhere): the job's status.
  base::Status Restore(const std::string& chk) {
    JobRunnerOptions o = BackendOptions(GetParam());
    o.restore_path = chk;
    o.checkpoint_dir = tmp_.Sub("restored");
    auto runner = JobRunner::Create(DamagedRestoreSpec(0), o);
    if (!runner.ok()) return runner.status();
    CKPT_RETURN_IF_ERROR((*runner)->Start());
    JobResult result = (*runner)->Wait();
    if (result.outcome == JobOutcome::kFailed) {
      return result.status.ok() ? base::Status::Internal("failed with an OK status")
                                : result.status;
    }
    return base::Status::OK();
  }

  ckpt::testing::TempDir tmp_;
};

TEST_P(DamagedRestoreTest, EveryDamagedFileFailsTheRestoreNamingIt) {
  const std::string chk = WriteCheckpoint();
  ASSERT_FALSE(chk.empty());
  ASSERT_OK(Restore(chk));  // undamaged, it restores
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK_AND_ASSIGN(const std::vector<std::string> files, CheckpointFiles(chk));
  ASSERT_GE(files.size(), 3u) << "the checkpoint references no state file";
  if (GetParam().backend == std::string("rocksdb")) {
    ASSERT_TRUE(AnyFileNamed(files, ".sst"));
  }

  int restores = 0;
  for (const std::string& path : files) {
    ASSERT_OK_AND_ASSIGN(const std::string original, base::ReadFileToString(fs, path));
    const std::string name = path.substr(path.rfind('/') + 1);
    for (const Damage& d : DamagesFor(static_cast<int64_t>(original.size()))) {
      SCOPED_TRACE(name + " " + d.what);
      if (d.remove) {
        ASSERT_OK(fs.RemoveFile(path));
      } else if (d.truncate_to >= 0) {
        ASSERT_OK(base::WriteFileAtomic(fs, path, original.substr(0, d.truncate_to)));
      } else {
        std::string bytes = original;
        bytes[d.flip_at] = static_cast<char>(bytes[d.flip_at] ^ (1 << (d.flip_at % 8)));
        ASSERT_OK(base::WriteFileAtomic(fs, path, bytes));
      }
      base::Status st = Restore(chk);
      ++restores;
      EXPECT_FALSE(st.ok()) << "a damaged file restored";
      EXPECT_NE(st.ToString().find(name), std::string::npos) << st.ToString();
      ASSERT_OK(base::WriteFileAtomic(fs, path, original));
    }
  }
  EXPECT_GE(restores, static_cast<int>(files.size()) * 3);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, DamagedRestoreTest,
    ::testing::Values(DamagedBackend{"Heap", "heap", false, false, false},
                      DamagedBackend{"RocksDbFull", "rocksdb", false, false, false},
                      DamagedBackend{"RocksDbIncremental", "rocksdb", true, false, false},
                      DamagedBackend{"HeapChangelog", "heap", false, true, false},
                      DamagedBackend{"RocksDbIncrementalChangelog", "rocksdb", true, true, false},
                      DamagedBackend{"HeapUnaligned", "heap", false, false, true}),
    [](const ::testing::TestParamInfo<DamagedBackend>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace ckpt::engine
