// ops::ComputePositions over this engine's own connectors (formats/own/positions.cpp) on the
// engine-written fixture: the positions equal the source's list state as dump decodes it and
// the sink's transactions its pending files; damaged source state is a CKPT-C001 finding naming
// the file, never an error or a made-up position.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/pending_files.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::testing {
namespace {

const std::string kChk4 = "engine-v1/checkpoints/e0e1e2e3e4e5e6e7e8e9eaebecedeeef/chk-4";
const std::string kChk5 = "engine-v1/checkpoints/e0e1e2e3e4e5e6e7e8e9eaebecedeeef/chk-5";

base::Fs& Local() { return base::Fs::Default(); }

ops::PositionsReport PositionsAt(const std::string& dir) {
  auto snapshot = ops::LoadSnapshot(Local(), dir);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  if (!snapshot.ok()) return {};
  auto report = ops::ComputePositions(Local(), *snapshot);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? std::move(report).value() : ops::PositionsReport{};
}

TEST(PositionsTest, SequenceSplitsAreTheSourceListStateAsDumpDecodesIt) {
  const std::string dir = FixturePath(kChk5);
  const ops::PositionsReport report = PositionsAt(dir);
  EXPECT_TRUE(report.findings.empty());
  ASSERT_EQ(report.operators.size(), 2u);  // numbers and the sink; the keyed sum has none
  const ops::OperatorPositions& source = report.operators[0];
  EXPECT_EQ(source.connector, ops::ConnectorKind::kEngineSequence);
  EXPECT_EQ(source.uid, "numbers");
  EXPECT_FALSE(source.sink.has_value());

  // dump renders each entry of state 'splits' as {split, next, end} (end inclusive).
  ASSERT_OK_AND_ASSIGN(ops::Snapshot snapshot, ops::LoadSnapshot(Local(), dir));
  ops::DumpOptions options;
  options.operator_ref = "numbers";
  options.state = "splits";
  std::map<std::string, std::pair<uint32_t, std::string>> dumped;  // split -> subtask, json
  ASSERT_OK(ops::Dump(Local(), snapshot, options, [&](const ops::DumpEntry& e) {
                       const size_t at = e.value_json.find(":") + 1;
                       const std::string split = e.value_json.substr(at, e.value_json.find(",") - at);
                       dumped[split] = {e.subtask.value_or(99), e.value_json};
                       return base::Status::OK();
                     }).status());
  ASSERT_EQ(dumped.size(), source.splits.size());
  for (const ops::SourcePosition& p : source.splits) {
    ASSERT_TRUE(dumped.count(p.split_id)) << p.split_id;
    EXPECT_EQ(p.origin, ops::PositionOrigin::kReader);
    EXPECT_EQ(static_cast<uint32_t>(p.subtask), dumped[p.split_id].first);
    ASSERT_TRUE(p.next_value && p.end_value);
    EXPECT_EQ(dumped[p.split_id].second, "{\"split\":" + p.split_id + ",\"next\":" +
                                             std::to_string(*p.next_value) + ",\"end\":" +
                                             std::to_string(*p.end_value - 1) + "}");
  }
}

TEST(PositionsTest, SinkTransactionsAreThePendingFilesCommittedOnRestore) {
  ASSERT_OK_AND_ASSIGN(ops::Snapshot snapshot, ops::LoadSnapshot(Local(), FixturePath(kChk5)));
  ASSERT_OK_AND_ASSIGN(ops::PositionsReport report, ops::ComputePositions(Local(), snapshot));
  ASSERT_OK_AND_ASSIGN(std::vector<ops::PendingFile> pending,
                       ops::ListPendingFiles(Local(), snapshot));
  ASSERT_FALSE(pending.empty());
  const ops::OperatorPositions& sink = report.operators.at(1);
  EXPECT_EQ(sink.connector, ops::ConnectorKind::kEngineFileSink);
  EXPECT_TRUE(sink.splits.empty());
  ASSERT_TRUE(sink.sink.has_value());
  ASSERT_EQ(sink.sink->transactions.size(), pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    const ops::SinkTransaction& t = sink.sink->transactions[i];
    EXPECT_EQ(t.action, ops::SinkAction::kCommit);
    EXPECT_EQ(t.subtask, static_cast<int32_t>(pending[i].subtask));
    EXPECT_EQ(t.checkpoint_id, pending[i].committable.checkpoint_id);
    EXPECT_EQ(t.pending_path, pending[i].committable.pending_path);
    EXPECT_EQ(t.final_path, pending[i].committable.final_path);
    EXPECT_EQ(t.size_bytes, pending[i].committable.size_bytes);
  }
}

TEST(PositionsTest, ComparePositionsPairsSplitsOfTwoCheckpoints) {
  const ops::PositionsReport a = PositionsAt(FixturePath(kChk4));
  const ops::PositionsReport b = PositionsAt(FixturePath(kChk5));
  const std::vector<ops::PositionAdvance> advances = ops::ComparePositions(a, b);
  ASSERT_EQ(advances.size(), 4u);
  for (const ops::PositionAdvance& adv : advances) {
    EXPECT_FALSE(adv.kafka);
    ASSERT_TRUE(adv.delta()) << adv.key;
    EXPECT_GT(*adv.delta(), 0) << adv.key;
  }
  // Reversed, every split went back by as much.
  const std::vector<ops::PositionAdvance> back = ops::ComparePositions(b, a);
  ASSERT_EQ(back.size(), advances.size());
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(*back[i].delta(), -*advances[i].delta());
}

// --since works together with --against: both rule groups run, each with its own findings.
TEST(PositionsTest, ValidateSinceTogetherWithAgainst) {
  ops::ValidateOptions options;
  options.since = FixturePath(kChk5);
  options.against_job = FixturePath("engine-v1/keyed_sum.job.json");
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport r,
                       ops::Validate(Local(), FixturePath(kChk4), options));
  const auto& checked = r.checked_rules;
  EXPECT_TRUE(std::count(checked.begin(), checked.end(), "CKPT-R001"));
  EXPECT_TRUE(std::count(checked.begin(), checked.end(), "CKPT-A001"));
  EXPECT_EQ(std::count_if(r.findings.begin(), r.findings.end(),
                          [](const ops::Finding& f) { return f.rule_id == "CKPT-R001"; }),
            4);
  EXPECT_FALSE(ops::HasErrors(r.findings));
  for (const ops::Finding& f : r.findings) {
    if (f.rule_id != "CKPT-R001") continue;
    EXPECT_EQ(f.location.operator_id, "ca88eee0095684d687a1b6495617f957");
    EXPECT_NE(f.message.find(options.since), std::string::npos) << f.message;
  }
}

TEST(PositionsTest, ValidateSinceAMissingSnapshotIsAnErrorNamingIt) {
  TempDir tmp;
  ops::ValidateOptions options;
  options.since = tmp.Sub("no-such-checkpoint");
  auto r = ops::Validate(Local(), FixturePath(kChk4), options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_NE(r.status().message().find(options.since), std::string::npos) << r.status().ToString();
}

// Hostile input: the source's state file cut short.
TEST(PositionsTest, DamagedSourceStateIsAFindingNamingTheFile) {
  TempDir tmp;
  CopyTree(FixturePath(kChk5), tmp.Sub("chk"));
  const std::string file = tmp.Sub("chk/ca88eee0095684d687a1b6495617f957-1-operator.state");
  ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(Local(), file));
  ASSERT_OK(base::WriteFileAtomic(Local(), file, bytes.substr(0, bytes.size() - 9)));
  const ops::PositionsReport report = PositionsAt(tmp.Sub("chk"));
  ASSERT_EQ(report.findings.size(), 1u);
  const ops::Finding& f = report.findings[0];
  EXPECT_EQ(f.rule_id, "CKPT-C001");
  EXPECT_EQ(f.severity, ops::Severity::kWarning);
  EXPECT_NE(f.message.find(file), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("'splits'"), std::string::npos) << f.message;
  EXPECT_EQ(f.location.subtask, 1u);
  EXPECT_EQ(f.location.operator_name, "numbers");
  // Subtask 0's splits are still there; subtask 1's are not guessed.
  ASSERT_FALSE(report.operators.empty());
  for (const ops::SourcePosition& p : report.operators[0].splits) EXPECT_EQ(p.subtask, 0);
  EXPECT_EQ(report.operators[0].splits.size(), 2u);
}

}  // namespace
}  // namespace ckpt::testing
