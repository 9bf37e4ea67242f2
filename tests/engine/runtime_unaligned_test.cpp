// Unaligned checkpoints under backpressure, end to end through JobRunner: a source blocked on
// output still takes the barrier and acks with the buffers it could not send as output channel
// state; a task whose every record needs about four buffers (overdraft) still completes
// unaligned checkpoints while its consumer is the bottleneck; in aligned-with-timeout mode, a
// slow task whose barrier waits in its input queue behind buffers switches to unaligned on the
// timer (barrier announcement), not when it finally gets to the barrier.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "ckpt/engine/job_runner.h"
#include "ckpt/engine/operator_context.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/snapshot_discovery.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::engine {
namespace {

// Replaces each value by a string of `bytes` bytes (one record, several buffers).
class BigRecordOp final : public Operator {
 public:
  base::Status Open(OperatorContext& ctx) override {
    ctx_ = &ctx;
    return base::Status::OK();
  }
  base::Status ProcessElement(Record& record) override {
    record.value = format::Value(std::string(900, 'z'));
    return ctx_->output().Collect(record);
  }

 private:
  OperatorContext* ctx_ = nullptr;
};

std::unique_ptr<OperatorRegistry> Registry() {
  auto r = std::make_unique<OperatorRegistry>();
  RegisterBuiltinOperators(*r);
  EXPECT_OK(r->Register({"test-big-record", "900-byte records",
                         [](const OperatorParams&) -> base::Result<std::unique_ptr<Operator>> {
                           return std::unique_ptr<Operator>(std::make_unique<BigRecordOp>());
                         },
                         nullptr}));
  return r;
}

struct Totals {
  int snapshots = 0;
  uint64_t output_state_bytes = 0;  // of `op_name`'s subtasks
  bool all_unaligned = true;
};

// Per snapshot of `job_dir`: the input channel state bytes of `in_op` and the output channel
// state bytes of `out_op`.
std::vector<std::pair<uint64_t, uint64_t>> ChannelStateBytes(const std::string& job_dir,
                                                             const pb::JobGraph& graph,
                                                             const std::string& in_op,
                                                             const std::string& out_op) {
  std::string in_id, out_id;
  for (const auto& op : graph.operators()) {
    if (op.name() == in_op) in_id = op.operator_id();
    if (op.name() == out_op) out_id = op.operator_id();
  }
  std::vector<std::pair<uint64_t, uint64_t>> out;
  base::Result<std::vector<format::DiscoveredSnapshot>> refs =
      format::DiscoverSnapshots(base::Fs::Default(), job_dir);
  if (!refs.ok()) return out;
  for (const auto& ref : *refs) {
    if (!ref.has_metadata) continue;
    base::Result<pb::CheckpointMetadata> md = format::ReadMetadataFile(
        base::Fs::Default(), base::JoinPath(ref.dir, format::kMetadataFileName));
    if (!md.ok()) continue;
    std::pair<uint64_t, uint64_t> bytes{0, 0};
    for (const auto& os : md->operators()) {
      for (const auto& s : os.subtasks()) {
        if (os.operator_id() == in_id) {
          for (const auto& h : s.input_channel_state()) bytes.first += h.size_bytes();
        }
        if (os.operator_id() == out_id) {
          for (const auto& h : s.output_channel_state()) bytes.second += h.size_bytes();
        }
      }
    }
    out.push_back(bytes);
  }
  return out;
}

Totals Scan(const std::string& job_dir, const pb::JobGraph& graph, const std::string& op_name) {
  std::string op_id;
  for (const auto& op : graph.operators()) {
    if (op.name() == op_name) op_id = op.operator_id();
  }
  Totals t;
  base::Result<std::vector<format::DiscoveredSnapshot>> refs =
      format::DiscoverSnapshots(base::Fs::Default(), job_dir);
  EXPECT_OK(refs.status());
  if (!refs.ok()) return t;
  for (const auto& ref : *refs) {
    if (!ref.has_metadata) continue;
    base::Result<pb::CheckpointMetadata> md = format::ReadMetadataFile(
        base::Fs::Default(), base::JoinPath(ref.dir, format::kMetadataFileName));
    if (!md.ok()) continue;
    ++t.snapshots;
    t.all_unaligned = t.all_unaligned && md->metrics().is_unaligned();
    for (const auto& os : md->operators()) {
      if (os.operator_id() != op_id) continue;
      for (const auto& s : os.subtasks()) {
        for (const auto& h : s.output_channel_state()) t.output_state_bytes += h.size_bytes();
      }
    }
  }
  return t;
}

// Runs the job until at least 3 checkpoints completed and `op_name`'s output channel state in
// them adds up to more than `min_output_bytes` (how much the first checkpoints catch depends on
// how far the backpressure has built up), then cancels it.
Totals RunBackpressured(const std::string& json, const std::string& op_name,
                        const ckpt::testing::TempDir& tmp, uint64_t min_output_bytes = 0) {
  auto registry = Registry();
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(json, "unaligned.json");
  EXPECT_OK(spec.status());
  JobRunnerOptions o;
  o.registry = registry.get();
  o.checkpoint_dir = tmp.Sub("ckpt");
  o.interval_ms = 20;
  o.mode = pb::UNALIGNED;
  o.num_retained = 100;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.network.buffer_bytes = 256;
  o.network.buffers_per_channel = 1;
  base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(*spec, o);
  EXPECT_OK(runner.status());
  if (!runner.ok()) return {};
  EXPECT_OK((*runner)->Start());
  // The sink sleeps 2 ms per record and the source has ten million: the job stays
  // backpressured for the whole test, yet checkpoints complete.
  const std::string job_dir = (*runner)->job_dir();
  pb::JobGraph graph = (*runner)->job_graph();
  EXPECT_TRUE(ckpt::testing::WaitUntil([&] {
    return (*runner)->checkpoint_counts().completed >= 3 &&
           (min_output_bytes == 0 ||
            Scan(job_dir, graph, op_name).output_state_bytes > min_output_bytes);
  })) << "completed " << (*runner)->checkpoint_counts().completed << " checkpoints";
  (*runner)->Cancel();
  (*runner)->Wait();
  return Scan(job_dir, graph, op_name);
}

TEST(UnalignedRuntimeTest, SourceBlockedOnOutputStillAcksTheBarrier) {
  ckpt::testing::TempDir tmp;
  Totals t = RunBackpressured(R"({"name": "blocked-source", "operators": [
    {"id": "src", "kind": "sequence-source", "params": {"from": 1, "to": 10000000}},
    {"id": "slow", "kind": "slow", "params": {"delay_us": 2000}},
    {"id": "sink", "kind": "discard"}],
    "edges": [{"from": "src", "to": "slow", "partitioning": "REBALANCE"},
              {"from": "slow", "to": "sink", "partitioning": "FORWARD"}]})",
                              "src", tmp);
  EXPECT_GE(t.snapshots, 3);
  EXPECT_TRUE(t.all_unaligned);
  // The source could not send those buffers (no credit): the barrier overtook them.
  EXPECT_GT(t.output_state_bytes, 0u);
}

TEST(UnalignedRuntimeTest, TaskWhoseRecordsNeedFourBuffersStillCheckpoints) {
  ckpt::testing::TempDir tmp;
  Totals t = RunBackpressured(R"({"name": "big-records", "operators": [
    {"id": "src", "kind": "sequence-source", "params": {"from": 1, "to": 10000000}},
    {"id": "big", "kind": "test-big-record"},
    {"id": "slow", "kind": "slow", "params": {"delay_us": 2000}},
    {"id": "sink", "kind": "discard"}],
    "edges": [{"from": "src", "to": "big", "partitioning": "FORWARD"},
              {"from": "big", "to": "slow", "partitioning": "REBALANCE"},
              {"from": "slow", "to": "sink", "partitioning": "FORWARD"}]})",
                              "big", tmp, /*min_output_bytes=*/900);
  EXPECT_GE(t.snapshots, 3);
  EXPECT_TRUE(t.all_unaligned);
  // In-flight data of at least one whole record (900 bytes: four 256-byte buffers).
  EXPECT_GT(t.output_state_bytes, 900u);
}

TEST(UnalignedRuntimeTest, AlignedWithTimeoutSwitchesForABarrierQueuedInTheInputChannel) {
  // One producer subtask, one slow consumer at 1 ms per record, 4 KiB buffers of about 180
  // records each: once the source's barrier has left its subpartition it waits behind up to
  // two queued buffers — hundreds of milliseconds — in the consumer's input channel, where the
  // producer's output-side timer cannot promote it. The announcement lets the consumer switch
  // on its own timer: its snapshot takes the queued buffers as input channel state while the
  // producer's output state is empty (its barrier went out aligned). Without it, the consumer
  // would only learn of the checkpoint when it took the barrier, with nothing left ahead of it.
  ckpt::testing::TempDir tmp;
  auto registry = Registry();
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(R"({"name": "announce", "operators": [
    {"id": "src", "kind": "sequence-source", "params": {"from": 1, "to": 100000000}},
    {"id": "map", "kind": "map", "params": {"function": "to-string"}},
    {"id": "slow", "kind": "slow", "params": {"delay_us": 1000}},
    {"id": "sink", "kind": "discard"}],
    "edges": [{"from": "src", "to": "map", "partitioning": "FORWARD"},
              {"from": "map", "to": "slow", "partitioning": "REBALANCE"},
              {"from": "slow", "to": "sink", "partitioning": "FORWARD"}]})",
                                                        "announce.json");
  ASSERT_OK(spec.status());
  JobRunnerOptions o;
  o.registry = registry.get();
  o.checkpoint_dir = tmp.Sub("ckpt");
  o.interval_ms = 100;
  o.mode = pb::ALIGNED_WITH_TIMEOUT;
  o.num_retained = 100;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.network.buffer_bytes = 4096;
  o.network.aligned_checkpoint_timeout_ms = 20;
  base::Result<std::unique_ptr<JobRunner>> runner = JobRunner::Create(*spec, o);
  ASSERT_OK(runner.status());
  ASSERT_OK((*runner)->Start());
  const std::string job_dir = (*runner)->job_dir();
  const pb::JobGraph graph = (*runner)->job_graph();
  auto switched_on_input_side = [&] {
    for (const auto& [in, out] : ChannelStateBytes(job_dir, graph, "slow", "map")) {
      if (in > 0 && out == 0) return true;
    }
    return false;
  };
  EXPECT_TRUE(ckpt::testing::WaitUntil(switched_on_input_side))
      << "no checkpoint of " << (*runner)->checkpoint_counts().completed
      << " persisted the slow task's queued input alone";
  (*runner)->Cancel();
  (*runner)->Wait();
}

}  // namespace
}  // namespace ckpt::engine
