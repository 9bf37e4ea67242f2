// Triggering snapshots through the REST API of a real `ckpt-engine run --rest-port 0`
// subprocess: savepoints racing periodic checkpoints every 10 ms all complete (they used to hang
// when the periodic checkpoint's newer barriers overtook the savepoint's), and a FULL manual
// checkpoint of an incremental RocksDB job is self-contained.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "rest_itcase_util.h"

namespace ckpt::itcase {
namespace {

using nlohmann::json;

#define ASSERT_ENGINE_BUILT() \
  ASSERT_STRNE(CKPT_ENGINE_BINARY, "") << "ckpt-engine is not built: this test needs it"

constexpr const char* kCheckpointJobId = "00112233445566778899aabbccddeeff";
const std::string kJob = std::string("/jobs/") + kCheckpointJobId;

struct EngineDir {
  testing::TempDir tmp;
  std::string job_file = tmp.Sub("job.json"), ckpt_dir = tmp.Sub("ckpt"),
              log = tmp.Sub("engine.log"), state = tmp.Sub("state.json");
  EngineDir() {
    KeyedSumJob job;
    job.job_id = kCheckpointJobId;
    job.to = 100000000;
    job.rate_per_second = 5000;
    job.sink_dir = tmp.Sub("out");
    std::ofstream(job_file) << KeyedSumJobJson(job);
  }
};

json JobCheckpoints(httplib::Client& c) { return CheckpointsOf(c, kCheckpointJobId); }
bool WaitJobCompleted(httplib::Client& c, int n) {
  return itcase::WaitCompleted(c, kCheckpointJobId, n);
}

// A manual checkpoint of `type` through the REST API: its id (-1 if it did not complete).
int64_t ManualCheckpoint(httplib::Client& c, const std::string& type) {
  HttpAnswer trig = HttpPost(c, kJob + "/checkpoints", json{{"checkpointType", type}}.dump());
  EXPECT_EQ(trig.status, 202) << trig.body.dump();
  if (trig.status != 202) return -1;
  json op = AwaitOperation(c, kJob + "/checkpoints/" + trig.body["request-id"].get<std::string>());
  EXPECT_TRUE(op.contains("checkpointId")) << op.dump();
  return op.contains("checkpointId") ? op["checkpointId"].get<int64_t>() : -1;
}

TEST(RestCheckpointITCase, SavepointsRacingCheckpointsEvery10MsAllComplete) {
  ASSERT_ENGINE_BUILT();
  EngineDir s;
  RestEngine engine({s.job_file, "--checkpoint-dir", s.ckpt_dir, "--interval", "10"}, s.log,
                    s.state);
  ASSERT_GT(engine.port(), 0) << ReadFile(s.log);
  auto c = engine.Client();
  ASSERT_TRUE(WaitJobCompleted(*c, 1));
  constexpr int kSavepoints = 25;
  for (int i = 0; i < kSavepoints; ++i) {
    HttpAnswer trig = HttpPost(*c, kJob + "/savepoints",
                               json{{"target-directory", s.tmp.Sub("sp")}}.dump());
    ASSERT_EQ(trig.status, 202) << trig.body.dump();
    json op = AwaitOperation(*c, kJob + "/savepoints/" + trig.body["request-id"].get<std::string>());
    ASSERT_TRUE(op.contains("location")) << "savepoint " << i << ": " << op.dump() << "\n"
                                         << JobCheckpoints(*c)["latest"]["failed"].dump();
    EXPECT_TRUE(base::Fs::Default().Stat(op["location"].get<std::string>() + "/_metadata").ok());
  }
  json cps = JobCheckpoints(*c);
  EXPECT_EQ(cps["counts"]["failed"], 0) << cps["latest"]["failed"].dump();
  EXPECT_GE(cps["counts"]["completed"].get<int>(), kSavepoints + 1);
}

TEST(RestCheckpointITCase, FullCheckpointOfIncrementalRocksDbJobIsSelfContained) {
  ASSERT_ENGINE_BUILT();
  EngineDir s;
  // JobCheckpoints are retained so each one's metadata can be read after the next completes.
  RestEngine engine({s.job_file, "--checkpoint-dir", s.ckpt_dir, "--interval", "100",
                     "--state-backend", "rocksdb", "--incremental", "true", "--num-retained",
                     "100", "--state-local-dir", s.tmp.Sub("rocksdb")},
                    s.log, s.state);
  ASSERT_GT(engine.port(), 0) << ReadFile(s.log);
  auto c = engine.Client();
  ASSERT_TRUE(WaitJobCompleted(*c, 5));
  const std::string job_dir = s.ckpt_dir + "/" + kCheckpointJobId;

  // Incremental checkpoints reference SSTs that earlier checkpoints uploaded.
  const int64_t before = ManualCheckpoint(*c, "INCREMENTAL");
  ASSERT_GT(before, 0);
  bool reuses = false;
  for (int64_t id = before; id > 0 && !reuses; --id) {
    const std::string dir = format::CheckpointDir(job_dir, id);
    if (!base::Fs::Default().Stat(dir + "/_metadata").ok()) continue;
    const pb::CheckpointMetadata md = ReadMd(dir);
    for (const pb::FileEntry& f : md.files()) {
      reuses = reuses || (f.scope() == pb::SHARED && f.created_by_checkpoint_id() < id);
    }
  }
  EXPECT_TRUE(reuses) << "no incremental checkpoint up to " << before
                      << " references an earlier upload";

  // The FULL one uploads everything it references.
  const int64_t full = ManualCheckpoint(*c, "FULL");
  ASSERT_GT(full, before);
  const std::string dir = format::CheckpointDir(job_dir, full);
  pb::CheckpointMetadata md = ReadMd(dir);
  int ssts = 0;
  for (const pb::FileEntry& f : md.files()) {
    EXPECT_EQ(f.created_by_checkpoint_id(), full) << f.path();
    base::Result<std::string> path = format::ResolveFile(dir, f);
    ASSERT_TRUE(path.ok()) << f.path();
    base::Result<base::FileInfo> info = base::Fs::Default().Stat(*path);
    ASSERT_TRUE(info.ok()) << *path;
    EXPECT_EQ(info->size_bytes, f.size_bytes()) << *path;
    ssts += f.kind() == pb::ROCKSDB_SST ? 1 : 0;
  }
  EXPECT_GT(ssts, 0) << "the FULL checkpoint has no RocksDB SST";
  json entry = HttpGet(*c, kJob + "/checkpoints/details/" + std::to_string(full)).body;
  EXPECT_EQ(entry["status"], "COMPLETED") << entry.dump();
  EXPECT_EQ(entry["checkpointed_size"], entry["state_size"]) << entry.dump();

  // JobCheckpoints go on incrementally after it.
  const int64_t after = ManualCheckpoint(*c, "CONFIGURED");
  ASSERT_GT(after, full);
  EXPECT_EQ(JobCheckpoints(*c)["counts"]["failed"], 0);
}

}  // namespace
}  // namespace ckpt::itcase
