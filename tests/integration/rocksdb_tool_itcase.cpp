// ckpt::ops over the RocksDB backend's native snapshots, written by the engine in the test: a
// job with value (keyed-sum), list and timers (a list-state window that never fires) and map
// (dedupe) state runs with incremental RocksDB checkpoints and stops with a native savepoint;
// the savepoint restores into the same job with its input gated shut (no record reaches the
// keyed operators), which then takes a native and a canonical savepoint of the same state.
// dump of each native savepoint equals dump of the canonical one; stats and diff --keys agree
// with it; validate --deep decodes every SST entry of native savepoints and incremental
// checkpoints (shared/ SSTs) clean; ls, show and files read them; prune keeps every shared SST
// a retained incremental checkpoint references, which then still dumps as before.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/format/layout.h"
#include "ckpt/ops/diff.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/files.h"
#include "ckpt/ops/ls.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/show.h"
#include "ckpt/ops/stats.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"
#include "itcase_util.h"

namespace ckpt::itcase {
namespace {

using engine::JobOutcome;
using engine::JobRunner;
using engine::JobRunnerOptions;

// `modulus` 1 lets every record through the gate; a modulus above every value lets none.
std::string JobJson(int64_t modulus) {
  return R"({"name": "rocksdb-tool", "parallelism": 2, "max_parallelism": 64, "operators": [
    {"id": "src", "kind": "sequence-source", "uid": "src", "params": {"from": 1,
     "to": 1000000000, "splits": 2, "keys": 97, "timestamp_step_ms": 1, "rate_per_second": 20000}},
    {"id": "gate", "kind": "filter", "uid": "gate",
     "params": {"predicate": "mod-equals", "modulus": )" +
         std::to_string(modulus) + R"(, "remainder": 0}},
    {"id": "sum", "kind": "keyed-sum", "uid": "sum"},
    {"id": "win", "kind": "tumbling-window", "uid": "win",
     "params": {"size_ms": 1000000000, "aggregate": "sum", "state": "list"}},
    {"id": "dd", "kind": "dedupe", "uid": "dd"},
    {"id": "o1", "kind": "discard", "uid": "o1"},
    {"id": "o2", "kind": "discard", "uid": "o2"},
    {"id": "o3", "kind": "discard", "uid": "o3"}],
    "edges": [{"from": "src", "to": "gate", "partitioning": "FORWARD"},
              {"from": "gate", "to": "sum", "partitioning": "HASH"},
              {"from": "gate", "to": "win", "partitioning": "HASH"},
              {"from": "gate", "to": "dd", "partitioning": "HASH"},
              {"from": "sum", "to": "o1", "partitioning": "FORWARD"},
              {"from": "win", "to": "o2", "partitioning": "FORWARD"},
              {"from": "dd", "to": "o3", "partitioning": "FORWARD"}]})";
}

pb::JobSpec Spec(int64_t modulus) {
  base::Result<pb::JobSpec> spec = format::ParseJobSpec(JobJson(modulus), "rocksdb-tool.json");
  EXPECT_OK(spec.status());
  return spec.ok() ? *spec : pb::JobSpec();
}

JobRunnerOptions Options(const testing::TempDir& tmp, const std::string& checkpoints) {
  JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub(checkpoints);
  o.savepoint_dir = tmp.Sub("savepoints");
  o.interval_ms = 100;
  o.num_retained = 3;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  o.state_backend = "rocksdb";
  o.incremental = true;
  o.state_local_dir = tmp.Sub("local-" + checkpoints);
  return o;
}

// Every keyed entry of `path` as one line (no record locations: they differ between formats).
std::vector<std::string> DumpLines(const std::string& path, std::set<std::string>* states = nullptr) {
  std::vector<std::string> lines;
  base::Result<ops::Snapshot> s = ops::LoadSnapshot(base::Fs::Default(), path);
  EXPECT_OK(s.status());
  if (!s.ok()) return lines;
  base::Result<uint64_t> n = ops::Dump(
      base::Fs::Default(), *s, {}, [&](const ops::DumpEntry& e) {
        if (e.source != "state" || !e.key_group) return base::Status::OK();
        if (states != nullptr) states->insert(e.state);
        lines.push_back(e.operator_name + "|" + e.state + "|" +
                        std::to_string(e.subtask.value_or(99)) + "|" + std::to_string(*e.key_group) +
                        "|" + e.key_json + "|" + e.namespace_json + "|" + e.user_key_json + "|" +
                        e.timestamp_json + "|" + e.value_json);
        return base::Status::OK();
      });
  EXPECT_TRUE(n.ok()) << path << ": " << n.status().ToString();
  return lines;
}

// validate --deep finds nothing and decoded records.
void ExpectDeepClean(const std::string& path) {
  ops::ValidateOptions v;
  v.deep = true;
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport r, ops::Validate(base::Fs::Default(), path, v));
  for (const auto& f : r.findings) ADD_FAILURE() << path << ": " << f.rule_id << " " << f.message;
  EXPECT_TRUE(r.not_checked.empty()) << path << ": " << r.not_checked.front().reason;
  EXPECT_GT(r.records_checked, 0u) << path;
}

bool HasRocksDbHandle(const ops::Snapshot& s) {
  for (const auto& f : s.files) {
    if (f.kind == ops::FileKind::kRocksDbSst) return true;
  }
  return false;
}

TEST(RocksDbToolITCase, NativeSavepointsAndIncrementalCheckpointsReadLikeCanonicalOnes) {
  testing::TempDir tmp;
  base::Fs& fs = base::Fs::Default();

  // 1. Incremental checkpoints under load, a native savepoint, then a cancel (which keeps the
  // checkpoints: RETAIN_ON_CANCELLATION; a stop-with-savepoint finishes the job, and a finished
  // job's checkpoints are discarded, as Flink does).
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> first,
                       JobRunner::Create(Spec(1), Options(tmp, "checkpoints")));
  ASSERT_OK(first->Start());
  JobRunner* r1 = first.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r1->checkpoint_counts().completed >= 5; }));
  ASSERT_OK_AND_ASSIGN(const std::string native_a, first->TriggerSavepoint(tmp.Sub("sp-a"), pb::NATIVE));
  first->Cancel();
  ASSERT_EQ(first->Wait().outcome, JobOutcome::kCancelled);
  const std::string job_dir = first->job_dir();
  first.reset();  // releases the job directory's lock: prune leaves a running job's files alone

  // 2. The same state, restored with the gate shut: a native and a canonical savepoint of it.
  JobRunnerOptions o2 = Options(tmp, "checkpoints-2");
  o2.interval_ms = 0;
  o2.restore_path = native_a;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JobRunner> second,
                       JobRunner::Create(Spec(int64_t{1} << 62), o2));
  ASSERT_OK(second->Start());
  JobRunner* r2 = second.get();
  ASSERT_TRUE(ckpt::testing::WaitUntil([&] { return r2->running(); }));
  ASSERT_OK_AND_ASSIGN(const std::string native_b,
                       second->TriggerSavepoint(tmp.Sub("sp-b"), pb::NATIVE));
  ASSERT_OK_AND_ASSIGN(const std::string canonical_c,
                       second->TriggerSavepoint(tmp.Sub("sp-c"), pb::CANONICAL));
  second->Cancel();
  second->Wait();

  // dump: native savepoints dump exactly as the canonical one, every state kind present.
  std::set<std::string> states;
  const std::vector<std::string> dump_a = DumpLines(native_a, &states);
  const std::vector<std::string> dump_b = DumpLines(native_b);
  const std::vector<std::string> dump_c = DumpLines(canonical_c);
  ASSERT_GT(dump_c.size(), 200u);
  EXPECT_EQ(dump_a, dump_c);
  EXPECT_EQ(dump_b, dump_c);
  EXPECT_GE(states.size(), 4u);  // sum, window list, window timers, dedupe map
  ASSERT_OK_AND_ASSIGN(ops::Snapshot sa, ops::LoadSnapshot(fs, native_a));
  ASSERT_OK_AND_ASSIGN(ops::Snapshot sc, ops::LoadSnapshot(fs, canonical_c));
  EXPECT_TRUE(HasRocksDbHandle(sa));
  EXPECT_FALSE(HasRocksDbHandle(sc));

  // A key-group filter reads one key group of the instance.
  ops::DumpOptions one;
  one.operator_ref = "sum";
  one.key_group = 5;
  uint64_t in_a = 0, in_c = 0;
  ASSERT_OK(ops::Dump(fs, sa, one, [&](const ops::DumpEntry&) {
    ++in_a;
    return base::Status::OK();
  }).status());
  ASSERT_OK(ops::Dump(fs, sc, one, [&](const ops::DumpEntry&) {
    ++in_c;
    return base::Status::OK();
  }).status());
  EXPECT_EQ(in_a, in_c);
  EXPECT_GT(in_a, 0u);

  // stats: the same key groups, records and logical bytes as the canonical savepoint.
  ASSERT_OK_AND_ASSIGN(ops::StatsReport st_a, ops::ComputeStats(fs, sa));
  ASSERT_OK_AND_ASSIGN(ops::StatsReport st_c, ops::ComputeStats(fs, sc));
  ASSERT_EQ(st_a.operators.size(), st_c.operators.size());
  for (size_t i = 0; i < st_a.operators.size(); ++i) {
    const ops::OperatorStats& a = st_a.operators[i];
    const ops::OperatorStats& c = st_c.operators[i];
    EXPECT_EQ(a.keyed_logical_bytes, c.keyed_logical_bytes) << a.id_hex;
    ASSERT_EQ(a.key_groups.size(), c.key_groups.size()) << a.id_hex;
    for (size_t g = 0; g < a.key_groups.size(); ++g) {
      EXPECT_EQ(a.key_groups[g].key_group, c.key_groups[g].key_group);
      EXPECT_EQ(a.key_groups[g].records, c.key_groups[g].records);
      EXPECT_EQ(a.key_groups[g].bytes, c.key_groups[g].bytes);
    }
    ASSERT_EQ(a.states.size(), c.states.size());
    for (size_t k = 0; k < a.states.size(); ++k) {
      EXPECT_EQ(a.states[k].entries, c.states[k].entries) << a.states[k].name;
    }
  }

  // diff --keys: native vs canonical of the same state compares every state and finds nothing.
  uint64_t differing = 0;
  ASSERT_OK_AND_ASSIGN(ops::KeyDiffSummary same,
                       ops::DiffKeys(fs, native_a, canonical_c, [&](const ops::KeyDiff&) { ++differing; }));
  EXPECT_EQ(differing, 0u);
  EXPECT_TRUE(same.any_compared());
  EXPECT_GT(same.same, 200u);
  for (const auto& c : same.states) EXPECT_TRUE(c.compared) << c.operator_name << " " << c.state;
  EXPECT_TRUE(same.notes.empty()) << same.notes.front();

  // validate --deep over native savepoints and every retained incremental checkpoint.
  ExpectDeepClean(native_a);
  ExpectDeepClean(native_b);
  ExpectDeepClean(canonical_c);
  std::vector<std::string> retained;
  ASSERT_OK_AND_ASSIGN(std::vector<base::DirEntry> entries, fs.ListDir(job_dir));
  for (const auto& e : entries) {
    const std::string chk = base::JoinPath(job_dir, e.name);
    if (e.name.rfind("chk-", 0) != 0 ||
        !fs.Stat(base::JoinPath(chk, format::kMetadataFileName)).ok()) {
      continue;
    }
    retained.push_back(chk);
  }
  std::sort(retained.begin(), retained.end());
  ASSERT_GE(retained.size(), 2u);
  size_t shared_ssts = 0;
  for (const std::string& chk : retained) {
    ExpectDeepClean(chk);
    ASSERT_OK_AND_ASSIGN(ops::Snapshot s, ops::LoadSnapshot(fs, chk));
    for (const auto& f : s.files) {
      shared_ssts += f.kind == ops::FileKind::kRocksDbSst && f.scope == ops::FileScope::kShared;
    }
    // show, files read it; diff --keys against the savepoint compares every state.
    EXPECT_OK(ops::MetadataJson(s).status());
    ASSERT_OK_AND_ASSIGN(std::vector<ops::FileRow> rows, ops::ListFiles(fs, s));
    EXPECT_EQ(rows.size(), s.files.size());
    ASSERT_OK_AND_ASSIGN(ops::KeyDiffSummary d,
                         ops::DiffKeys(fs, chk, canonical_c, [](const ops::KeyDiff&) {}));
    EXPECT_TRUE(d.notes.empty()) << chk << ": " << d.notes.front();
    EXPECT_GT(d.same + d.changed, 0u);
  }
  EXPECT_GT(shared_ssts, 0u);
  ASSERT_OK_AND_ASSIGN(ops::LsResult ls, ops::Ls(fs, tmp.Sub("checkpoints")));
  (void)ls;

  // prune --keep-last 1: the newest checkpoint keeps every shared SST it references and still
  // dumps and validates as before.
  const std::string newest = retained.back();
  const std::vector<std::string> before = DumpLines(newest);
  ASSERT_FALSE(before.empty());
  ops::PruneOptions po;
  po.keep_last = 1;
  po.min_orphan_age_ms = 0;
  ASSERT_OK_AND_ASSIGN(ops::PrunePlan plan, ops::PlanPrune(fs, tmp.Sub("checkpoints"), po));
  std::string why;
  for (const auto& n : plan.notes) why += n + "\n";
  for (const auto& k : plan.kept) why += k.path + " kept: " + k.reason + "\n";
  EXPECT_GT(plan.files_to_delete, 0u) << why;
  ASSERT_OK(ops::ExecutePrune(fs, plan));
  ASSERT_OK_AND_ASSIGN(ops::Snapshot kept, ops::LoadSnapshot(fs, newest));
  for (const auto& f : kept.files) EXPECT_TRUE(fs.Stat(f.resolved_path).ok()) << f.path;
  EXPECT_EQ(DumpLines(newest), before);
  ExpectDeepClean(newest);
  // Every SST left in shared/ is one the kept checkpoint references.
  std::set<std::string> referenced;
  for (const auto& f : kept.files) {
    if (f.scope == ops::FileScope::kShared) referenced.insert(f.resolved_path);
  }
  const std::string shared = base::JoinPath(job_dir, format::kSharedDirName);
  std::vector<std::string> left;
  std::vector<std::string> dirs = {shared};
  while (!dirs.empty()) {
    const std::string d = dirs.back();
    dirs.pop_back();
    ASSERT_OK_AND_ASSIGN(std::vector<base::DirEntry> es, fs.ListDir(d));
    for (const auto& e : es) {
      const std::string p = base::JoinPath(d, e.name);
      if (e.is_dir) {
        dirs.push_back(p);
      } else {
        EXPECT_EQ(referenced.count(p), 1u) << p << " is left in shared/ but unreferenced";
      }
    }
  }
}

}  // namespace
}  // namespace ckpt::itcase
