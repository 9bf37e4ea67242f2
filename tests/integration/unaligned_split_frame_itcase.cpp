// Frames split between input-channel and output-subpartition state (FORMAT.md §8): records of
// ~700 bytes cross 256-byte network buffers (one credit per channel, a slow consumer), so an
// unaligned checkpoint catches frames whose first buffers the consumer holds while the producer
// still queues the rest. On the first checkpoint that has such a split frame the job is
// cancelled; `ckpt-tool dump` decodes every in-flight record of it without Corruption,
// `ckpt-tool validate --deep` exits 0, and a restore from it replays exactly the records dump
// listed (what the consumer receives in the restored run minus what the producer sends anew)
// with exactly-once output.
//   source -> pad (chained) -> HASH -> probe -> HASH -> keyed sum -> sink
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/operator.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/engine/operator_registry.h"
#include "ckpt/engine/output.h"
#include "ckpt/format/channel_stream.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

using engine::JobOutcome;
using engine::JobResult;
using engine::JobRunner;
using engine::JobRunnerOptions;

constexpr size_t kSplitPaddedBytes = 700;

// What the pad operator sent and the probe received, per run (0: the first, 1: the restored).
struct SplitFrameLedger {
  std::atomic<int> run{0};
  std::mutex mu;
  std::multiset<int64_t> sent[2];
  std::multiset<int64_t> received[2];
};

std::string SplitPadded(int64_t v) {
  std::string s = "v=" + std::to_string(v) + ";";
  s.resize(kSplitPaddedBytes, static_cast<char>('a' + v % 26));
  return s;
}

class SplitPadOp final : public engine::Operator {
 public:
  explicit SplitPadOp(std::shared_ptr<SplitFrameLedger> ledger) : ledger_(std::move(ledger)) {}
  base::Status Open(engine::OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Status ProcessElement(engine::Record& record) override {
    const int64_t v = std::get<int64_t>(record.value.v);
    {
      std::lock_guard<std::mutex> lock(ledger_->mu);
      ledger_->sent[ledger_->run.load()].insert(v);
    }
    record.value = format::Value(SplitPadded(v));
    return ctx_->output().Collect(record);
  }

 private:
  std::shared_ptr<SplitFrameLedger> ledger_;
  engine::OperatorContext* ctx_ = nullptr;
};

// Restores the value and is slow: the backpressure that keeps buffers in flight.
class SplitProbeOp final : public engine::Operator {
 public:
  explicit SplitProbeOp(std::shared_ptr<SplitFrameLedger> ledger) : ledger_(std::move(ledger)) {}
  base::Status Open(engine::OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Status ProcessElement(engine::Record& record) override {
    const auto* s = std::get_if<std::string>(&record.value.v);
    if (s == nullptr || s->size() != kSplitPaddedBytes || s->compare(0, 2, "v=") != 0) {
      return base::Status::Internal("probe: damaged record");
    }
    const int64_t v = std::stoll(s->substr(2, s->find(';') - 2));
    if (*s != SplitPadded(v)) return base::Status::Internal("probe: damaged padding");
    {
      std::lock_guard<std::mutex> lock(ledger_->mu);
      ledger_->received[ledger_->run.load()].insert(v);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(150));
    record.value = format::Value(v);
    return ctx_->output().Collect(record);
  }

 private:
  std::shared_ptr<SplitFrameLedger> ledger_;
  engine::OperatorContext* ctx_ = nullptr;
};

std::unique_ptr<engine::OperatorRegistry> SplitFrameRegistry(
    std::shared_ptr<SplitFrameLedger> ledger) {
  auto r = std::make_unique<engine::OperatorRegistry>();
  engine::RegisterBuiltinOperators(*r);
  EXPECT_OK(r->Register(
      {"test-split-pad", "pads the value to a record that spans network buffers",
       [ledger](const engine::OperatorParams&) -> base::Result<std::unique_ptr<engine::Operator>> {
         return std::unique_ptr<engine::Operator>(std::make_unique<SplitPadOp>(ledger));
       },
       nullptr}));
  EXPECT_OK(r->Register(
      {"test-split-probe", "unpads the value, slowly, noting it",
       [ledger](const engine::OperatorParams&) -> base::Result<std::unique_ptr<engine::Operator>> {
         return std::unique_ptr<engine::Operator>(std::make_unique<SplitProbeOp>(ledger));
       },
       nullptr}));
  return r;
}

std::string SplitFrameJobJson(const KeyedSumJob& j) {
  std::ostringstream o;
  o << "{\"name\": \"split-frames\", \"job_id\": \"" << j.job_id
    << "\", \"parallelism\": 2, \"operators\": ["
    << "{\"id\": \"source\", \"kind\": \"sequence-source\", \"uid\": \"source\", \"params\": "
    << "{\"from\": " << j.from << ", \"to\": " << j.to << ", \"splits\": " << j.splits
    << ", \"keys\": " << j.keys << "}},"
    << "{\"id\": \"pad\", \"kind\": \"test-split-pad\", \"uid\": \"pad\"},"
    << "{\"id\": \"probe\", \"kind\": \"test-split-probe\", \"uid\": \"probe\"},"
    << "{\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"sum\", \"params\": {\"emit\": "
       "\"input-and-sum\"}},"
    << "{\"id\": \"sink\", \"kind\": \"file-sink\", \"uid\": \"sink\", \"params\": {\"path\": \""
    << j.sink_dir << "\"}}],\"edges\": ["
    << "{\"from\": \"source\", \"to\": \"pad\", \"partitioning\": \"FORWARD\"},"
    << "{\"from\": \"pad\", \"to\": \"probe\", \"partitioning\": \"HASH\"},"
    << "{\"from\": \"probe\", \"to\": \"sum\", \"partitioning\": \"HASH\"},"
    << "{\"from\": \"sum\", \"to\": \"sink\", \"partitioning\": \"FORWARD\"}]}";
  return o.str();
}

// How many input channels of checkpoint `chk` end inside a frame (a frame split between the
// consumer's input state and the producer's output state); -1 if the snapshot cannot be read.
int SplitInputChannels(const std::string& chk) {
  base::Fs& fs = base::Fs::Default();
  base::Result<pb::CheckpointMetadata> md =
      format::ReadMetadataFile(fs, base::JoinPath(chk, format::kMetadataFileName));
  if (!md.ok()) return -1;
  int split = 0;
  for (const pb::OperatorState& os : md->operators()) {
    for (const pb::SubtaskState& st : os.subtasks()) {
      for (const pb::InputChannelStateHandle& h : st.input_channel_state()) {
        std::string bytes;
        for (const pb::FileSlice& slice : h.buffers()) {
          base::Result<std::string> path =
              format::ResolveFile(chk, md->files(static_cast<int>(slice.file_index())));
          if (!path.ok()) return -1;
          auto reader = format::StateFileReader::Open(fs, *path);
          if (!reader.ok()) return -1;
          auto it = (*reader)->NewIteratorAt(slice.offset(), 1);
          if (!it.ok()) return -1;
          format::RecordRef rec;
          base::Result<bool> more = (*it)->Next(&rec);
          if (!more.ok() || !*more) return -1;
          bytes.append(rec.bytes);
        }
        const base::Status walk = format::ForEachStreamFrame(
            bytes, 0, bytes.size(),
            [](const format::StreamFrameAt&) { return base::Status::OK(); });
        if (!walk.ok()) ++split;
      }
    }
  }
  return split;
}

TEST(UnalignedSplitFrameITCase, SplitFramesDumpValidateAndReplayExactlyOnce) {
  ASSERT_STRNE(kTool, "") << "ckpt-tool is not built: this test needs it";
  testing::TempDir tmp;
  auto ledger = std::make_shared<SplitFrameLedger>();
  auto registry = SplitFrameRegistry(ledger);
  KeyedSumJob job;
  job.job_id = JobIdFor("unaligned-split-frame");
  job.from = 1;
  job.to = 30000;
  job.splits = 4;
  job.keys = 16;
  job.sink_dir = tmp.Sub("out-1");
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(SplitFrameJobJson(job), "split.json");
  ASSERT_OK(spec.status());
  JobRunnerOptions o;
  o.registry = registry.get();
  o.checkpoint_dir = tmp.Sub("ck-1");
  // Checkpoints only when the test triggers them: the last one is the one restored.
  o.interval_ms = 3600 * 1000;
  o.mode = pb::UNALIGNED;
  o.num_retained = 1000;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.max_restart_attempts = 0;
  o.network.buffer_bytes = 256;
  o.network.buffers_per_channel = 1;

  // Run 1: checkpoints until one holds a split frame, then cancel.
  std::string chk;
  {
    base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(*spec, o);
    ASSERT_OK(runner.status());
    ASSERT_OK((*runner)->Start());
    const std::string job_dir = (*runner)->job_dir();
    // Records through the probe first: every keyed-sum subtask has then seen a key, so each
    // declares its key type (a subtask without one declares BYTES, which dump cannot read the
    // other subtasks' int64 keys with).
    ASSERT_TRUE(testing::WaitUntil(
        [&] {
          std::lock_guard<std::mutex> lock(ledger->mu);
          return ledger->received[0].size() >= 400 || !(*runner)->running();
        },
        std::chrono::milliseconds(60000), std::chrono::milliseconds(5)));
    for (int attempt = 0; attempt < 40 && chk.empty(); ++attempt) {
      const engine::CheckpointCounts before = (*runner)->checkpoint_counts();
      base::Result<int64_t> id = (*runner)->TriggerCheckpoint();
      if (!id.ok()) break;  // the job finished
      const std::string dir = format::CheckpointDir(job_dir, *id);
      ASSERT_TRUE(testing::WaitUntil(
          [&] {
            const engine::CheckpointCounts now = (*runner)->checkpoint_counts();
            return now.completed > before.completed || now.failed > before.failed ||
                   !(*runner)->running();
          },
          std::chrono::milliseconds(60000), std::chrono::milliseconds(5)));
      if (SplitInputChannels(dir) > 0) chk = dir;
    }
    (*runner)->Cancel();
    JobResult r = (*runner)->Wait();
    ASSERT_FALSE(chk.empty()) << "no checkpoint caught a frame split between input and output "
                                 "state (outcome "
                              << static_cast<int>(r.outcome) << ")";
    ASSERT_EQ(r.outcome, JobOutcome::kCancelled) << "the job ended before the cancel";
    ASSERT_EQ(std::filesystem::path(LatestCheckpoint(job_dir)).filename(),
              std::filesystem::path(chk).filename())
        << "the restored checkpoint must be the last";
  }

  // The tools as a user runs them: every in-flight record decoded, the snapshot valid.
  const std::string dump_out = tmp.Sub("dump.jsonl");
  ASSERT_EQ(WaitExit(Spawn({kTool, "dump", "--format", "json", chk}, dump_out)), 0)
      << ReadFile(dump_out);
  const std::string dumped = ReadFile(dump_out);
  EXPECT_EQ(dumped.find("Corruption"), std::string::npos) << dumped;
  std::multiset<int64_t> in_flight;  // the pad -> probe edge's records (padded strings)
  std::istringstream lines(dumped);
  const std::regex padded(".*\"source\":\"channel-record\".*\"value\":\"v=([0-9]+);.*");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, padded)) in_flight.insert(std::stoll(m[1]));
  }
  EXPECT_FALSE(in_flight.empty()) << "the checkpoint's split frames carry records";
  const std::string validate_out = tmp.Sub("validate.txt");
  EXPECT_EQ(WaitExit(Spawn({kTool, "validate", "--deep", chk}, validate_out)), 0)
      << ReadFile(validate_out);
  EXPECT_NE(ReadFile(validate_out).find("0 error(s)"), std::string::npos)
      << ReadFile(validate_out);

  // Run 2: restore from it; the probe gets exactly the in-flight records back, once.
  ledger->run = 1;
  KeyedSumJob second = job;
  second.sink_dir = tmp.Sub("out-2");
  base::Result<pb::JobSpec> spec2 = format::ParseJobSpec(SplitFrameJobJson(second), "split.json");
  ASSERT_OK(spec2.status());
  o.checkpoint_dir = tmp.Sub("ck-2");
  o.restore_path = chk;
  base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(*spec2, o);
  ASSERT_OK(runner.status());
  ASSERT_OK((*runner)->Start());
  JobResult result = (*runner)->Wait();
  ASSERT_EQ(result.outcome, JobOutcome::kFinished) << result.status.ToString();
  ASSERT_EQ(result.restarts, 0u);
  std::multiset<int64_t> replayed;
  {
    std::lock_guard<std::mutex> lock(ledger->mu);
    std::set_difference(ledger->received[1].begin(), ledger->received[1].end(),
                        ledger->sent[1].begin(), ledger->sent[1].end(),
                        std::inserter(replayed, replayed.end()));
    // Nothing sent anew was lost on the way either.
    EXPECT_TRUE(std::includes(ledger->received[1].begin(), ledger->received[1].end(),
                              ledger->sent[1].begin(), ledger->sent[1].end()));
  }
  EXPECT_EQ(replayed, in_flight) << replayed.size() << " replayed, " << in_flight.size()
                                 << " in flight";

  Verification v = VerifyCommitted({job.sink_dir, second.sink_dir}, job, /*check_sums=*/true);
  ExpectExact(v);
  EXPECT_EQ(v.lines, job.to - job.from + 1) << v.Summary();
}

}  // namespace
}  // namespace ckpt::itcase
