// ops::ComputePositions, ComparePositions and validate --since over snapshots the reference
// engine wrote: the positions decoded from a snapshot are what the engine knows. A stop-with-
// savepoint commits exactly the records its sources emitted before the barrier, so the sequence
// source's splits resume right after the committed numbers and the text-file source resumes at
// the byte after the committed lines; two checkpoints of one run advance; restoring the older one
// in place of the newer is a CKPT-R001 warning; a damaged source state is a finding naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "ckpt/base/fs.h"
#include "ckpt/engine/job_runner.h"
#include "ckpt/format/job_spec.h"
#include "ckpt/ops/pending_files.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "ckpt/testing/wait_until.h"

namespace ckpt::itcase {
namespace {

base::Fs& Local() { return base::Fs::Default(); }

// sequence-source 1..to in 4 splits, rate-limited so checkpoints land mid-stream -> file-sink.
std::string SequenceJob(const std::string& out) {
  return R"({
  "name": "positions-sequence", "parallelism": 2,
  "operators": [
    {"id": "numbers", "kind": "sequence-source", "uid": "numbers",
     "params": {"from": 1, "to": 50000000, "splits": 4, "rate_per_second": 40000}},
    {"id": "sink", "kind": "file-sink", "uid": "numbers-out", "params": {"path": ")" +
         out + R"("}}
  ],
  "edges": [{"from": "numbers", "to": "sink", "partitioning": "FORWARD"}]})";
}

std::unique_ptr<engine::JobRunner> StartJob(const std::string& json,
                                            engine::JobRunnerOptions options) {
  auto spec = format::ParseJobSpec(json, "positions-itcase.json");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (!spec.ok()) return nullptr;
  auto runner = engine::JobRunner::Create(std::move(spec).value(), std::move(options));
  EXPECT_TRUE(runner.ok()) << runner.status().ToString();
  if (!runner.ok()) return nullptr;
  EXPECT_TRUE((*runner)->Start().ok());
  return std::move(runner).value();
}

// Waits (WaitUntil's deadline) until the job completed `n` checkpoints.
bool WaitForCheckpoints(const engine::JobRunner& runner, uint64_t n) {
  return ckpt::testing::WaitUntil([&] { return runner.checkpoint_counts().completed >= n; });
}

// The committed lines of a file sink's directory (part files; in-progress dot files skipped).
std::vector<std::string> CommittedLines(const std::string& dir) {
  std::vector<std::string> lines;
  auto entries = Local().ListDir(dir);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  if (!entries.ok()) return lines;
  for (const auto& e : *entries) {
    if (e.name.empty() || e.name[0] == '.') continue;
    auto text = base::ReadFileToString(Local(), dir + "/" + e.name);
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    if (!text.ok()) continue;
    size_t start = 0;
    for (size_t nl; (nl = text->find('\n', start)) != std::string::npos; start = nl + 1) {
      lines.push_back(text->substr(start, nl - start));
    }
  }
  return lines;
}

ops::PositionsReport PositionsOf(const std::string& snapshot_dir) {
  auto snapshot = ops::LoadSnapshot(Local(), snapshot_dir);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  if (!snapshot.ok()) return {};
  auto report = ops::ComputePositions(Local(), *snapshot);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? std::move(report).value() : ops::PositionsReport{};
}

const ops::OperatorPositions* Connector(const ops::PositionsReport& r, ops::ConnectorKind kind) {
  for (const auto& op : r.operators) {
    if (op.connector == kind) return &op;
  }
  return nullptr;
}

// The two newest chk-<n> directories of a job directory, older first.
std::pair<std::string, std::string> TwoNewestCheckpoints(const std::string& job_dir) {
  std::map<int64_t, std::string> found;
  auto entries = Local().ListDir(job_dir);
  EXPECT_TRUE(entries.ok());
  if (entries.ok()) {
    for (const auto& e : *entries) {
      if (e.name.rfind("chk-", 0) != 0) continue;
      if (!Local().Stat(job_dir + "/" + e.name + "/_metadata").ok()) continue;
      found[std::stoll(e.name.substr(4))] = job_dir + "/" + e.name;
    }
  }
  EXPECT_GE(found.size(), 2u) << job_dir;
  if (found.size() < 2) return {};
  auto newest = std::prev(found.end());
  return {std::prev(newest)->second, newest->second};
}

TEST(PositionsITCase, SequenceSavepointResumesRightAfterTheCommittedNumbers) {
  testing::TempDir tmp;
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  auto runner = StartJob(SequenceJob(tmp.Sub("out")), o);
  ASSERT_NE(runner, nullptr);
  ASSERT_TRUE(WaitForCheckpoints(*runner, 2));
  ASSERT_OK_AND_ASSIGN(std::string savepoint, runner->StopWithSavepoint(false, tmp.Sub("sp")));
  ASSERT_EQ(runner->Wait().outcome, engine::JobOutcome::kStopped);

  const ops::PositionsReport report = PositionsOf(savepoint);
  EXPECT_TRUE(report.findings.empty());
  const ops::OperatorPositions* source = Connector(report, ops::ConnectorKind::kEngineSequence);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->uid, "numbers");
  ASSERT_EQ(source->splits.size(), 4u);

  // The splits cut 1..50000000 contiguously: each starts where the previous one ends.
  std::vector<ops::SourcePosition> splits = source->splits;
  std::sort(splits.begin(), splits.end(),
            [](const auto& a, const auto& b) { return *a.end_value < *b.end_value; });
  std::vector<int64_t> expected;
  int64_t start = 1;
  for (const ops::SourcePosition& p : splits) {
    ASSERT_TRUE(p.next_value && p.end_value);
    EXPECT_GE(*p.next_value, start);
    for (int64_t v = start; v < *p.next_value; ++v) expected.push_back(v);
    start = *p.end_value;
  }
  EXPECT_EQ(start, 50000001);
  ASSERT_FALSE(expected.empty());

  std::vector<int64_t> committed;
  for (const std::string& line : CommittedLines(tmp.Sub("out"))) committed.push_back(std::stoll(line));
  std::sort(committed.begin(), committed.end());
  EXPECT_EQ(committed, expected);  // no number lost, none twice, none beyond the positions

  // The sink: one transaction per pending file the savepoint records, each committed on restore.
  ASSERT_OK_AND_ASSIGN(ops::Snapshot snapshot, ops::LoadSnapshot(Local(), savepoint));
  ASSERT_OK_AND_ASSIGN(std::vector<ops::PendingFile> pending,
                       ops::ListPendingFiles(Local(), snapshot));
  const ops::OperatorPositions* sink = Connector(report, ops::ConnectorKind::kEngineFileSink);
  ASSERT_NE(sink, nullptr);
  ASSERT_TRUE(sink->sink.has_value());
  ASSERT_EQ(sink->sink->transactions.size(), pending.size());
  for (size_t i = 0; i < pending.size(); ++i) {
    const ops::SinkTransaction& t = sink->sink->transactions[i];
    EXPECT_EQ(t.pending_path, pending[i].committable.pending_path);
    EXPECT_EQ(t.final_path, pending[i].committable.final_path);
    EXPECT_EQ(t.subtask, static_cast<int32_t>(pending[i].subtask));
    EXPECT_EQ(t.action, ops::SinkAction::kCommit);
  }
}

TEST(PositionsITCase, CheckpointsOfOneRunAdvanceAndRestoringTheOlderIsAWarning) {
  testing::TempDir tmp;
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 100;
  o.num_retained = 2;
  o.retention = pb::RETAIN_ON_CANCELLATION;
  auto runner = StartJob(SequenceJob(tmp.Sub("out")), o);
  ASSERT_NE(runner, nullptr);
  ASSERT_TRUE(WaitForCheckpoints(*runner, 4));
  const std::string job_dir = runner->job_dir();
  runner->Cancel();
  runner->Wait();
  auto [older, newer] = TwoNewestCheckpoints(job_dir);
  ASSERT_FALSE(older.empty());

  const ops::PositionsReport a = PositionsOf(older);
  const ops::PositionsReport b = PositionsOf(newer);
  const std::vector<ops::PositionAdvance> advances = ops::ComparePositions(a, b);
  ASSERT_EQ(advances.size(), 4u);  // the four sequence splits; sinks have no positions
  int64_t advanced = 0, moved = 0;
  for (const ops::PositionAdvance& adv : advances) {
    ASSERT_TRUE(adv.from && adv.to) << adv.key;
    ASSERT_TRUE(adv.delta()) << adv.key;
    EXPECT_GE(*adv.delta(), 0) << adv.key;
    advanced += *adv.delta();
    moved += *adv.delta() > 0 ? 1 : 0;
  }
  EXPECT_GT(advanced, 0);

  // The newer checkpoint's pending files are its sink's transactions.
  ASSERT_OK_AND_ASSIGN(ops::Snapshot snapshot_b, ops::LoadSnapshot(Local(), newer));
  ASSERT_OK_AND_ASSIGN(auto pending, ops::ListPendingFiles(Local(), snapshot_b));
  const ops::OperatorPositions* sink = Connector(b, ops::ConnectorKind::kEngineFileSink);
  ASSERT_NE(sink, nullptr);
  ASSERT_EQ(sink->sink->transactions.size(), pending.size());

  ops::ValidateOptions forward;
  forward.since = older;
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport ok, ops::Validate(Local(), newer, forward));
  for (const ops::Finding& f : ok.findings) EXPECT_NE(f.rule_id, "CKPT-R001") << f.message;
  EXPECT_TRUE(std::count(ok.checked_rules.begin(), ok.checked_rules.end(), "CKPT-R001"));

  ops::ValidateOptions backward;
  backward.since = newer;
  ASSERT_OK_AND_ASSIGN(ops::ValidateReport back, ops::Validate(Local(), older, backward));
  int64_t warnings = 0;
  for (const ops::Finding& f : back.findings) {
    if (f.rule_id != "CKPT-R001") continue;
    ++warnings;
    EXPECT_EQ(f.severity, ops::Severity::kWarning);
    EXPECT_EQ(f.location.operator_name, "numbers");
  }
  EXPECT_EQ(warnings, moved);
  EXPECT_FALSE(ops::HasErrors(back.findings));  // a replay is a warning, not a broken snapshot
  for (const ops::PositionAdvance& adv : advances) {
    if (*adv.delta() == 0) continue;
    // The older checkpoint resumes at A's position (adv.from); the newer had reached adv.to.
    const std::string both = std::to_string(*adv.from) + ", --since " + newer + " had reached " +
                             std::to_string(*adv.to);
    EXPECT_TRUE(std::any_of(back.findings.begin(), back.findings.end(),
                            [&](const ops::Finding& f) {
                              return f.message.find("split " + adv.key + ":") != std::string::npos &&
                                     f.message.find(both) != std::string::npos;
                            }))
        << "no CKPT-R001 naming split " << adv.key << " with " << both;
  }
}

TEST(PositionsITCase, TextFileSourceResumesAtTheByteAfterTheCommittedLines) {
  testing::TempDir tmp;
  std::string text;
  std::vector<std::string> lines;
  for (int i = 0; i < 100000; ++i) {
    lines.push_back("line-" + std::to_string(i));
    text += lines.back() + "\n";
  }
  const std::string input = tmp.Sub("input.txt");
  ASSERT_OK(base::WriteFileAtomic(Local(), input, text));
  const std::string json = R"({
  "name": "positions-text", "parallelism": 1,
  "operators": [
    {"id": "lines", "kind": "text-file-source", "uid": "lines",
     "params": {"path": ")" + input + R"(", "batch_size": 20}},
    {"id": "slow", "kind": "slow", "uid": "slow", "params": {"delay_us": 200, "every": 1}},
    {"id": "sink", "kind": "file-sink", "uid": "lines-out", "params": {"path": ")" +
                           tmp.Sub("out") + R"("}}
  ],
  "edges": [{"from": "lines", "to": "slow", "partitioning": "FORWARD"},
            {"from": "slow", "to": "sink", "partitioning": "FORWARD"}]})";
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 50;
  auto runner = StartJob(json, o);
  ASSERT_NE(runner, nullptr);
  ASSERT_TRUE(WaitForCheckpoints(*runner, 2));
  ASSERT_OK_AND_ASSIGN(std::string savepoint, runner->StopWithSavepoint(false, tmp.Sub("sp")));
  ASSERT_EQ(runner->Wait().outcome, engine::JobOutcome::kStopped);

  const ops::PositionsReport report = PositionsOf(savepoint);
  EXPECT_TRUE(report.findings.empty());
  const ops::OperatorPositions* source = Connector(report, ops::ConnectorKind::kEngineFileSource);
  ASSERT_NE(source, nullptr);
  ASSERT_EQ(source->splits.size(), 1u);
  const ops::SourcePosition& split = source->splits[0];
  EXPECT_EQ(split.path, input);
  EXPECT_EQ(split.subtask, 0);
  ASSERT_TRUE(split.resume_offset.has_value());

  std::vector<std::string> committed = CommittedLines(tmp.Sub("out"));
  std::sort(committed.begin(), committed.end());
  size_t n = lines.size();
  int64_t bytes = static_cast<int64_t>(text.size());
  if (*split.resume_offset != -1) {  // -1: the file was done before the savepoint
    bytes = 0;
    for (n = 0; n < lines.size() && bytes < *split.resume_offset; ++n) {
      bytes += static_cast<int64_t>(lines[n].size()) + 1;
    }
    EXPECT_EQ(bytes, *split.resume_offset) << "the offset is not at a line start";
  }
  std::vector<std::string> expected(lines.begin(), lines.begin() + static_cast<ptrdiff_t>(n));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(committed, expected);

  // Hostile input: the source's operator-state file cut in half is a finding naming the file.
  auto entries = Local().ListDir(savepoint);
  ASSERT_TRUE(entries.ok());
  std::string state_file;
  for (const auto& e : *entries) {
    if (e.name.find("-operator.state") != std::string::npos) {
      auto bytes_of = base::ReadFileToString(Local(), savepoint + "/" + e.name);
      ASSERT_TRUE(bytes_of.ok());
      if (bytes_of->find(input) == std::string::npos) continue;  // another operator's state
      state_file = savepoint + "/" + e.name;
      ASSERT_OK(base::WriteFileAtomic(Local(), state_file, bytes_of->substr(0, bytes_of->size() / 2)));
    }
  }
  ASSERT_FALSE(state_file.empty()) << "no operator-state file holds the source's path";
  const ops::PositionsReport damaged = PositionsOf(savepoint);
  ASSERT_EQ(damaged.findings.size(), 1u);
  EXPECT_EQ(damaged.findings[0].rule_id, "CKPT-C001");
  EXPECT_EQ(damaged.findings[0].severity, ops::Severity::kWarning);
  EXPECT_NE(damaged.findings[0].message.find(state_file), std::string::npos)
      << damaged.findings[0].message;
  EXPECT_NE(damaged.findings[0].message.find("file-splits"), std::string::npos);
  const ops::OperatorPositions* damaged_source =
      Connector(damaged, ops::ConnectorKind::kEngineFileSource);
  ASSERT_NE(damaged_source, nullptr);
  EXPECT_TRUE(damaged_source->splits.empty());
}

// directory-source: the readers' files and offsets (list state) and the coordinator's files not
// yet handed out (coordinator state). A file handed out between the coordinator's snapshot and
// the reader's barrier is in both; the reader's position wins (the restore registers it first).
TEST(PositionsITCase, DirectorySourceReadersAndUnassignedFilesAccountForTheCommittedLines) {
  testing::TempDir tmp;
  ASSERT_OK(Local().CreateDirs(tmp.Sub("in")));
  std::map<std::string, std::vector<std::string>> files;  // path -> lines
  for (int f = 0; f < 8; ++f) {
    const std::string path = tmp.Sub("in/file" + std::to_string(f));
    std::string text;
    for (int l = 0; l < 4000; ++l) {
      files[path].push_back("f" + std::to_string(f) + "-" + std::to_string(l));
      text += files[path].back() + "\n";
    }
    ASSERT_OK(base::WriteFileAtomic(Local(), path, text));
  }
  const std::string json = R"({
  "name": "positions-directory", "parallelism": 2,
  "operators": [
    {"id": "lines", "kind": "directory-source", "uid": "lines",
     "params": {"path": ")" + tmp.Sub("in") + R"(", "batch_size": 20}},
    {"id": "slow", "kind": "slow", "uid": "slow", "params": {"delay_us": 100, "every": 1}},
    {"id": "sink", "kind": "file-sink", "uid": "lines-out", "params": {"path": ")" +
                           tmp.Sub("out") + R"("}}
  ],
  "edges": [{"from": "lines", "to": "slow", "partitioning": "FORWARD"},
            {"from": "slow", "to": "sink", "partitioning": "FORWARD"}]})";
  engine::JobRunnerOptions o;
  o.checkpoint_dir = tmp.Sub("checkpoints");
  o.interval_ms = 50;
  auto runner = StartJob(json, o);
  ASSERT_NE(runner, nullptr);
  ASSERT_TRUE(WaitForCheckpoints(*runner, 2));
  ASSERT_OK_AND_ASSIGN(std::string savepoint, runner->StopWithSavepoint(false, tmp.Sub("sp")));
  ASSERT_EQ(runner->Wait().outcome, engine::JobOutcome::kStopped);

  const ops::PositionsReport report = PositionsOf(savepoint);
  EXPECT_TRUE(report.findings.empty());
  const ops::OperatorPositions* source = Connector(report, ops::ConnectorKind::kEngineFileSource);
  ASSERT_NE(source, nullptr);
  std::map<std::string, int64_t> reader_offset;  // path -> resume offset
  std::set<std::string> unassigned;
  for (const ops::SourcePosition& p : source->splits) {
    ASSERT_TRUE(files.count(p.path)) << p.path;
    ASSERT_TRUE(p.resume_offset.has_value()) << p.path;
    if (p.origin == ops::PositionOrigin::kReader) {
      EXPECT_TRUE(p.subtask == 0 || p.subtask == 1) << p.subtask;
      EXPECT_TRUE(reader_offset.emplace(p.path, *p.resume_offset).second) << p.path << " twice";
    } else {
      EXPECT_EQ(p.origin, ops::PositionOrigin::kEnumeratorPending);
      EXPECT_EQ(*p.resume_offset, 0);
      unassigned.insert(p.path);
    }
  }
  ASSERT_FALSE(reader_offset.empty());
  // Every file is either a reader's or still unassigned.
  for (const auto& [path, lines] : files) {
    EXPECT_TRUE(reader_offset.count(path) || unassigned.count(path)) << path;
  }

  // Committed: each reader file's lines before its offset (all when done), nothing else.
  std::vector<std::string> expected;
  for (const auto& [path, offset] : reader_offset) {
    int64_t bytes = 0;
    for (const std::string& line : files[path]) {
      if (offset != -1 && bytes >= offset) break;
      expected.push_back(line);
      bytes += static_cast<int64_t>(line.size()) + 1;
    }
    if (offset != -1) {
      EXPECT_EQ(bytes, offset) << path << ": not at a line start";
    }
  }
  std::sort(expected.begin(), expected.end());
  std::vector<std::string> committed = CommittedLines(tmp.Sub("out"));
  std::sort(committed.begin(), committed.end());
  EXPECT_EQ(committed, expected);
}

}  // namespace
}  // namespace ckpt::itcase
