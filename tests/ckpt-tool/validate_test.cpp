// Tests of ops::Validate (ops/src/validate/validate*.cpp): clean fixtures, the corruption matrix
// over fixtures/corrupt, targeted damage of test snapshots, --deep and --against.
#include "ckpt/ops/validate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "ckpt/base/fs.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::FixturePath;
using ::ckpt::testing::TempDir;

std::vector<std::string> Rules(const ValidateReport& r) {
  std::vector<std::string> ids;
  for (const auto& f : r.findings) ids.push_back(f.rule_id);
  return ids;
}

bool HasRule(const ValidateReport& r, const std::string& id) {
  const auto ids = Rules(r);
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string Dump(const ValidateReport& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule_id + " " + f.location.file + ": " + f.message + "\n";
  return s;
}

ValidateReport MustValidate(const std::string& path, ValidateOptions options = {}) {
  auto r = Validate(base::Fs::Default(), path, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ValidateReport{};
}

TEST(ValidateTest, FrozenFixturesAreCleanEvenWhenDeep) {
  for (const std::string& rel : std::vector<std::string>{
           "v1/savepoint", "v1/checkpoints/" + testing::kFixtureV1Job + "/chk-1",
           "v1/checkpoints/" + testing::kFixtureV1Job + "/chk-2",
           "v1/unaligned/" + testing::kFixtureV1Job + "/chk-5"}) {
    ValidateOptions o;
    o.deep = true;
    ValidateReport r = MustValidate(FixturePath(rel), o);
    // The frozen checkpoints disagree on one thing, reported since issue 9 (defect 13): chk-2
    // records chk-1's changelog segments as created by checkpoint 2 (CKPT-F012, a warning).
    for (const auto& f : r.findings) {
      EXPECT_EQ(f.rule_id, "CKPT-F012") << rel << "\n" << Dump(r);
      EXPECT_NE(rel.find("v1/checkpoints/"), std::string::npos) << rel << "\n" << Dump(r);
    }
    EXPECT_FALSE(HasErrors(r.findings)) << rel << "\n" << Dump(r);
    EXPECT_GT(r.records_checked, 0u) << rel;
    EXPECT_FALSE(r.capabilities.empty());
  }
}

// Every directory in fixtures/corrupt must be listed here with the rule it must trigger.
TEST(ValidateTest, CorruptionMatrixYieldsExpectedRules) {
  const std::map<std::string, std::string> expected = {
      {"bad-magic", "CKPT-M002"},
      {"block-checksum-mismatch", "CKPT-F006"},
      {"escaping-reference", "CKPT-F004"},
      {"flipped-payload-byte", "CKPT-M005"},
      {"future-version", "CKPT-M003"},
      {"missing-referenced-file", "CKPT-F001"},
      {"truncated-metadata", "CKPT-M004"},
  };
  size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FixturePath("corrupt"))) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << "fixtures/corrupt/" << name
                                  << " has no expected rule in this test";
    ++seen;
    for (bool deep : {false, true}) {
      ValidateOptions o;
      o.deep = deep;
      ValidateReport r = MustValidate(entry.path().string(), o);
      EXPECT_TRUE(HasRule(r, it->second)) << name << " deep=" << deep << "\n" << Dump(r);
      EXPECT_TRUE(HasErrors(r.findings)) << name;
    }
  }
  EXPECT_EQ(seen, expected.size());
}

// Defect 13 of issue 9: fixtures/v1 chk-2 records the task-owned changelog segment it shares
// with chk-1 as CREATED BY checkpoint 2 (chk-1 says 1). Validate reports it on the frozen bytes.
TEST(ValidateTest, TaskOwnedFileWithTwoCreatorsAcrossCheckpointsIsF012) {
  ValidateReport r =
      MustValidate(FixturePath("v1/checkpoints/" + testing::kFixtureV1Job + "/chk-2"));
  std::vector<Finding> f012;
  for (const auto& f : r.findings) {
    if (f.rule_id == "CKPT-F012") f012.push_back(f);
  }
  ASSERT_EQ(f012.size(), 2u) << Dump(r);  // one segment per subtask of count-per-key
  EXPECT_EQ(f012[0].location.file, "../taskowned/count-per-key-0-log-1.changelog");
  EXPECT_EQ(f012[0].severity, Severity::kWarning);
  EXPECT_NE(f012[0].message.find("created by checkpoint 2 in this snapshot but by 1 in chk-1"),
            std::string::npos)
      << f012[0].message;
  EXPECT_NE(f012[0].message.find("this snapshot's record is wrong"), std::string::npos);
  // The corrected writer's copy of the same root (fixtures/v1-r2) is consistent.
  for (const char* chk : {"/chk-1", "/chk-2"}) {
    ValidateOptions deep;
    deep.deep = true;
    ValidateReport fixed =
        MustValidate(FixturePath("v1-r2/checkpoints/" + testing::kFixtureV1Job + chk), deep);
    EXPECT_TRUE(fixed.findings.empty()) << chk << "\n" << Dump(fixed);
  }
  // Consistent records: the sample root written by the ops test writer.
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  EXPECT_FALSE(
      HasRule(MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2")), "CKPT-F012"));
}

TEST(ValidateTest, MissingPathIsNotFoundNotAFinding) {
  ASSERT_STATUS(Validate(base::Fs::Default(), "/nonexistent/snapshot", {}), kNotFound,
                "/nonexistent/snapshot");
}

TEST(ValidateTest, DirectoryWithoutMetadataIsM001) {
  TempDir tmp;
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("chk-3")));
  ValidateReport r = MustValidate(tmp.Sub("chk-3"));
  EXPECT_EQ(Rules(r), std::vector<std::string>{"CKPT-M001"});
  EXPECT_TRUE(r.capabilities.empty());
}

TEST(ValidateTest, TruncatedStateFileIsSizeMismatch) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  testing::TruncateFile(tmp.Sub("sp/per-user-aggregate-1-keyed.state"), 100);
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_TRUE(HasRule(r, "CKPT-F002")) << Dump(r);
  // A truncated container's footer is gone as well.
  EXPECT_TRUE(HasRule(r, "CKPT-F005")) << Dump(r);
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.location.file, "per-user-aggregate-1-keyed.state");
  }
}

TEST(ValidateTest, FlippedStateFileByteIsChecksumMismatchLocatedToItsBlock) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  testing::FlipByte(tmp.Sub("sp/per-user-aggregate-1-keyed.state"), 40);
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_TRUE(HasRule(r, "CKPT-F003")) << Dump(r);
  EXPECT_TRUE(HasRule(r, "CKPT-F006")) << Dump(r);
}

TEST(ValidateTest, DeepWithoutWholeFileChecksumsStillFindsBlockDamage) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  testing::FlipByte(tmp.Sub("sp/per-user-aggregate-1-keyed.state"), 40);
  ValidateOptions o;
  o.deep = true;
  o.verify_checksums = false;
  ValidateReport r = MustValidate(tmp.Sub("sp"), o);
  EXPECT_FALSE(HasRule(r, "CKPT-F003"));
  EXPECT_TRUE(HasRule(r, "CKPT-F006")) << Dump(r);
}

// A subtask recorded without a keyed handle had empty keyed state (the engine writes no handle
// for a subtask that never saw a key) and restores empty: no K001. A handle dropped from the
// metadata of a subtask that had state still leaves its container unreferenced (F008).
TEST(ValidateTest, SubtaskWithoutKeyedHandleIsEmptyNotAGap) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    m.mutable_operators(1)->mutable_subtasks(1)->clear_keyed_state();
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_FALSE(HasRule(r, "CKPT-K001")) << Dump(r);
  EXPECT_TRUE(HasRule(r, "CKPT-F008")) << Dump(r);
}

// A subtask missing from the snapshot altogether leaves the key groups it owns uncovered.
TEST(ValidateTest, MissingSubtaskLeavesKeyGroupGap) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    m.mutable_operators(1)->mutable_subtasks()->RemoveLast();
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  ASSERT_TRUE(HasRule(r, "CKPT-K001")) << Dump(r);
  for (const auto& f : r.findings) {
    if (f.rule_id != "CKPT-K001") continue;
    EXPECT_EQ(f.location.key_group, 64u);
    EXPECT_NE(f.message.find("[64, 127]"), std::string::npos) << f.message;
    EXPECT_EQ(f.location.operator_name, "Per-user aggregate");
  }
  // The now unreferenced container is reported too.
  EXPECT_TRUE(HasRule(r, "CKPT-F008")) << Dump(r);
}

// A handle that covers only part of the range its subtask owns leaves the rest uncovered.
TEST(ValidateTest, HandleShortOfItsSubtaskRangeLeavesKeyGroupGap) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    auto* kg = m.mutable_operators(1)->mutable_subtasks(1)->mutable_keyed_state(0)->mutable_key_groups();
    kg->set_key_group_end(kg->key_group_end() - 1);
    kg->mutable_key_group_offsets()->RemoveLast();
    kg->mutable_key_group_record_counts()->RemoveLast();
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  ASSERT_TRUE(HasRule(r, "CKPT-K001")) << Dump(r);
  for (const auto& f : r.findings) {
    if (f.rule_id == "CKPT-K001") {
      EXPECT_NE(f.message.find("[127, 127]"), std::string::npos) << f.message;
    }
  }
}

// Rewrites the sample savepoint in `dir`, calling `edit` on each operator that has subtasks but
// no keyed handle (the stateless ones); returns how many it edited.
int EditStatelessOperators(const std::string& dir,
                           const std::function<void(pb::OperatorState&)>& edit) {
  int touched = 0;
  EXPECT_OK(testing::RewriteMetadata(dir, [&](pb::CheckpointMetadata& m) {
    for (auto& op : *m.mutable_operators()) {
      bool keyed = false;
      for (const auto& st : op.subtasks()) keyed = keyed || st.keyed_state_size() > 0;
      if (keyed || op.subtasks_size() == 0) continue;
      edit(op);
      ++touched;
    }
  }));
  return touched;
}

// The engine writes a keyed handle with no kind for each subtask of a stateless operator behind
// a HASH edge; it holds nothing, covers no key group and restores fine, so it is no K001 gap.
TEST(ValidateTest, EmptyKeyedHandlesOfAStatelessOperatorAreNoKeyGroupGap) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  auto add_empty_handles = [](pb::OperatorState& op) {
    for (auto& st : *op.mutable_subtasks()) st.add_keyed_state();  // no handle set
  };
  ASSERT_GT(EditStatelessOperators(tmp.Sub("sp"), add_empty_handles), 0);
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_FALSE(HasRule(r, "CKPT-K001")) << Dump(r);
}

// Every operator behind a HASH edge declares its timer queues; a stateless one that never set a
// timer writes no keyed handle (the engine's unaligned checkpoints and savepoints of a `slow`
// operator between a keyBy and the sink). Nothing is lost, the engine restores it: no K001.
TEST(ValidateTest, DeclaredTimersWithoutHandlesAreNoKeyGroupGap) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  auto declare_timers = [](pb::OperatorState& op) {
    for (const char* domain : {"event-time", "processing-time"}) {
      pb::StateDescriptor* d = op.add_states();
      d->set_name(std::string("_timers/") + domain);
      d->set_kind(pb::STATE_TIMERS);
      d->mutable_key_type()->set_kind(pb::TypeDescriptor::INT64);
      d->mutable_namespace_type()->set_kind(pb::TypeDescriptor::VOID);
      d->mutable_user_key_type()->set_kind(pb::TypeDescriptor::INT64);
      d->mutable_value_type()->set_kind(pb::TypeDescriptor::VOID);
      d->set_timer_domain(domain);
    }
  };
  ASSERT_GT(EditStatelessOperators(tmp.Sub("sp"), declare_timers), 0);
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_FALSE(HasRule(r, "CKPT-K001")) << Dump(r);
  for (const auto& f : r.findings) EXPECT_NE(f.severity, Severity::kError) << Dump(r);
}

TEST(ValidateTest, OverlappingKeyGroupRangesAreReported) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    auto* kg = m.mutable_operators(1)->mutable_subtasks(1)->mutable_keyed_state(0)->mutable_key_groups();
    kg->set_key_group_start(60);  // subtask 0 owns [0, 63]
    std::vector<uint64_t> offsets(4, 0), counts(4, 0);
    offsets.insert(offsets.end(), kg->key_group_offsets().begin(), kg->key_group_offsets().end());
    counts.insert(counts.end(), kg->key_group_record_counts().begin(), kg->key_group_record_counts().end());
    kg->clear_key_group_offsets();
    kg->clear_key_group_record_counts();
    for (uint64_t o : offsets) kg->add_key_group_offsets(o);
    for (uint64_t c : counts) kg->add_key_group_record_counts(c);
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_TRUE(HasRule(r, "CKPT-K002")) << Dump(r);
  EXPECT_TRUE(HasRule(r, "CKPT-K003")) << Dump(r);
  EXPECT_FALSE(HasRule(r, "CKPT-K001"));
}

TEST(ValidateTest, HandleRecordCountsDisagreeingWithContainerAreK006) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    auto* kg = m.mutable_operators(1)->mutable_subtasks(0)->mutable_keyed_state(0)->mutable_key_groups();
    kg->set_key_group_record_counts(0, kg->key_group_record_counts(0) + 3);
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  ASSERT_TRUE(HasRule(r, "CKPT-K006")) << Dump(r);
}

TEST(ValidateTest, DuplicateAndOutOfRangeSubtasks) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    auto* source = m.mutable_operators(0);
    *source->add_subtasks() = source->subtasks(1);          // duplicate subtask 1
    auto* st = source->add_subtasks();                       // subtask 5 of parallelism 2
    *st = source->subtasks(0);
    st->set_subtask_index(5);
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  if (!HasRule(r, "CKPT-M006")) {  // the format reader may refuse the structure as a whole
    EXPECT_TRUE(HasRule(r, "CKPT-T002")) << Dump(r);
    EXPECT_TRUE(HasRule(r, "CKPT-T001")) << Dump(r);
  }
  EXPECT_TRUE(HasErrors(r.findings));
}

TEST(ValidateTest, DeepFindsKeyStoredInWrongKeyGroup) {
  TempDir tmp;
  ASSERT_OK(testing::WriteMisplacedKeySavepoint(tmp.Sub("sp")));
  EXPECT_TRUE(MustValidate(tmp.Sub("sp")).findings.empty());
  ValidateOptions o;
  o.deep = true;
  ValidateReport r = MustValidate(tmp.Sub("sp"), o);
  ASSERT_EQ(Rules(r), std::vector<std::string>{"CKPT-K005"}) << Dump(r);
  EXPECT_TRUE(r.findings[0].location.key_group.has_value());
  EXPECT_EQ(r.findings[0].location.operator_name, "Counter");
}

TEST(ValidateTest, SavepointWithSharedFileIsNotSelfContained) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("job/sp")));
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("job/shared")));
  std::filesystem::rename(tmp.Sub("job/sp/orders-source-0-operator.state"),
                          tmp.Sub("job/shared/orders-source-0-operator.state"));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("job/sp"), [](pb::CheckpointMetadata& m) {
    m.mutable_files(0)->set_scope(pb::SHARED);
  }));
  ValidateReport r = MustValidate(tmp.Sub("job/sp"));
  EXPECT_EQ(Rules(r), std::vector<std::string>{"CKPT-P001"}) << Dump(r);
  EXPECT_EQ(r.findings[0].location.file, "../shared/orders-source-0-operator.state");
  bool relocatable = true;
  for (const auto& c : r.capabilities) {
    if (c.operation == "self-contained and relocatable") relocatable = c.supported;
  }
  EXPECT_FALSE(relocatable);
}

TEST(ValidateTest, SharedFileFromLaterCheckpointIsF007) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  const std::string chk2 = tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2");
  ASSERT_OK(testing::RewriteMetadata(chk2, [](pb::CheckpointMetadata& m) {
    for (auto& f : *m.mutable_files()) {
      if (f.scope() == pb::SHARED) f.set_created_by_checkpoint_id(5);
    }
  }));
  ValidateReport r = MustValidate(chk2);
  EXPECT_TRUE(HasRule(r, "CKPT-F007")) << Dump(r);
  ValidateReport clean = MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-1"));
  EXPECT_TRUE(clean.findings.empty()) << Dump(clean);
}

TEST(ValidateTest, UnreferencedFileTableEntryIsWarningOnly) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    *m.add_files() = m.files(0);
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_EQ(Rules(r), std::vector<std::string>{"CKPT-F008"}) << Dump(r);
  EXPECT_FALSE(HasErrors(r.findings));
}

TEST(ValidateTest, FileKindMismatchIsF009) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    m.mutable_files(0)->set_kind(pb::KEYED_STATE);  // really an operator-state container
  }));
  ValidateReport r = MustValidate(tmp.Sub("sp"));
  EXPECT_TRUE(HasRule(r, "CKPT-F009")) << Dump(r);
}

// --against -----------------------------------------------------------------------------------

std::string WriteSpec(const TempDir& tmp, const std::string& name, std::string spec,
                      const std::vector<std::pair<std::string, std::string>>& edits) {
  for (const auto& [from, to] : edits) {
    const auto pos = spec.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) spec.replace(pos, from.size(), to);
  }
  testing::WriteTextFile(tmp.Sub(name), spec);
  return tmp.Sub(name);
}

TEST(ValidateTest, AgainstSameJobIsClean) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::CounterJobSpec(), {});
  ValidateReport r = MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2"), o);
  EXPECT_FALSE(HasErrors(r.findings)) << Dump(r);
  EXPECT_FALSE(HasRule(r, "CKPT-A006"));
}

TEST(ValidateTest, AgainstRenamedUidIsUnmappedStateUnlessAllowed) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::CounterJobSpec(),
                            {{"\"uid\": \"counter\"", "\"uid\": \"counter-v2\""}});
  const std::string chk = tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2");
  ValidateReport r = MustValidate(chk, o);
  ASSERT_TRUE(HasRule(r, "CKPT-A001")) << Dump(r);
  EXPECT_TRUE(HasRule(r, "CKPT-A008")) << Dump(r);  // counter-v2 starts empty
  EXPECT_TRUE(HasErrors(r.findings));
  o.allow_non_restored_state = true;
  ValidateReport allowed = MustValidate(chk, o);
  // One severity per rule: skipped state is its own (info) rule, not A001 downgraded.
  EXPECT_FALSE(HasRule(allowed, "CKPT-A001")) << Dump(allowed);
  EXPECT_TRUE(HasRule(allowed, "CKPT-A009")) << Dump(allowed);
  EXPECT_FALSE(HasErrors(allowed.findings)) << Dump(allowed);
}

TEST(ValidateTest, AgainstChangedMaxParallelismAndTooHighParallelism) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  ValidateOptions o;
  o.against_job = WriteSpec(
      tmp, "job.json", testing::CounterJobSpec(),
      {{"\"uid\": \"counter\", \"name\": \"Counter\"",
        "\"uid\": \"counter\", \"name\": \"Counter\", \"maxParallelism\": 256"}});
  ValidateReport r = MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2"), o);
  EXPECT_TRUE(HasRule(r, "CKPT-A002")) << Dump(r);
  o.against_job = WriteSpec(
      tmp, "job2.json", testing::CounterJobSpec(),
      {{"\"uid\": \"counter\", \"name\": \"Counter\"",
        "\"uid\": \"counter\", \"name\": \"Counter\", \"parallelism\": 200, \"maxParallelism\": 256"}});
  r = MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2"), o);
  EXPECT_TRUE(HasRule(r, "CKPT-A007")) << Dump(r);
}

TEST(ValidateTest, AgainstOperatorWithoutUidWarns) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::CounterJobSpec(),
                            {{"\"uid\": \"numbers\", ", ""}});
  ValidateReport r = MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2"), o);
  EXPECT_TRUE(HasRule(r, "CKPT-A006")) << Dump(r);
  EXPECT_TRUE(HasRule(r, "CKPT-A001")) << Dump(r);  // "numbers" state is now unmapped
}

TEST(ValidateTest, AgainstUnalignedRescaleOverPointwiseEdgeIsA004) {
  TempDir tmp;
  ASSERT_OK(testing::WriteUnalignedCheckpoint(tmp.Sub("chk-7")));
  ValidateOptions o;
  // Same job, counter rescaled to 3 over a hash edge: in-flight data can be redistributed.
  o.against_job = WriteSpec(tmp, "hash.json", testing::CounterJobSpec(),
                            {{"\"name\": \"Counter\"", "\"name\": \"Counter\", \"parallelism\": 3"}});
  ValidateReport r = MustValidate(tmp.Sub("chk-7"), o);
  EXPECT_FALSE(HasRule(r, "CKPT-A004")) << Dump(r);
  // Over a rescale (pointwise) edge it cannot.
  o.against_job = WriteSpec(tmp, "rescale.json", testing::CounterJobSpec(),
                            {{"\"name\": \"Counter\"", "\"name\": \"Counter\", \"parallelism\": 3"},
                             {"\"HASH\"", "\"RESCALE\""}});
  r = MustValidate(tmp.Sub("chk-7"), o);
  EXPECT_TRUE(HasRule(r, "CKPT-A004")) << Dump(r);
  // Without a parallelism change it is fine.
  o.against_job = WriteSpec(tmp, "same.json", testing::CounterJobSpec(), {});
  r = MustValidate(tmp.Sub("chk-7"), o);
  EXPECT_FALSE(HasRule(r, "CKPT-A004")) << Dump(r);
  // A changed partitioner is refused by the engine's restore even at the same parallelism (the
  // persisted output buffers were partitioned by the old one): so validate refuses it too.
  o.against_job = WriteSpec(tmp, "repartitioned.json", testing::CounterJobSpec(),
                            {{"\"HASH\"", "\"RESCALE\""}});
  r = MustValidate(tmp.Sub("chk-7"), o);
  EXPECT_TRUE(HasRule(r, "CKPT-A004")) << Dump(r);
}

TEST(ValidateTest, AgainstLostCoordinatorStateIsA003) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  // What an ID change that forgets the coordinator leaves behind: the subtask
  // state under the operator, the coordinator state alone under another ID.
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [](pb::CheckpointMetadata& m) {
    pb::OperatorState orphan;
    orphan.set_operator_id(format::OperatorId::FromUid("old-orders-source").ToBytes());
    orphan.set_parallelism(2);
    orphan.set_max_parallelism(128);
    *orphan.mutable_coordinator_state() = m.operators(0).coordinator_state();
    m.mutable_operators(0)->clear_coordinator_state();
    *m.add_operators() = orphan;
  }));
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::SampleSavepointJobSpec(), {});
  ValidateReport r = MustValidate(tmp.Sub("sp"), o);
  EXPECT_TRUE(HasRule(r, "CKPT-A003")) << Dump(r);
  EXPECT_TRUE(HasRule(r, "CKPT-A001")) << Dump(r);
}

TEST(ValidateTest, AgainstPendingSinkFilesChecked) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("out")));
  const std::string out = tmp.Sub("out");
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [&out](pb::CheckpointMetadata& m) {
    auto* st = m.mutable_operators(3)->mutable_subtasks(0);
    st->mutable_committables(0)->set_pending_path(out + "/.part-0.inprogress");
    st->mutable_committables(0)->set_final_path(out + "/part-0");
    st->mutable_committables(0)->set_size_bytes(18);  // "committed already\n"
    st->mutable_committables(1)->set_pending_path(out + "/.part-1.inprogress");
    st->mutable_committables(1)->set_final_path(out + "/part-1");
  }));
  testing::WriteTextFile(out + "/part-0", "committed already\n");  // committed: fine
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::SampleSavepointJobSpec(), {});
  ValidateReport r = MustValidate(tmp.Sub("sp"), o);
  size_t a005 = 0;
  for (const auto& f : r.findings) {
    if (f.rule_id != "CKPT-A005") continue;
    ++a005;
    EXPECT_EQ(f.severity, Severity::kError);
    EXPECT_EQ(f.location.file, out + "/.part-1.inprogress");
  }
  EXPECT_EQ(a005, 1u) << Dump(r);
}

// Defect 1 of issue 9: the engine refuses a pending file whose size differs from the recorded
// one ("part file ... has N bytes but the snapshot recorded M"); validate must too, for the
// pending and for the committed name.
TEST(ValidateTest, AgainstPendingSinkFileOfAnotherSizeIsA005) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("out")));
  const std::string out = tmp.Sub("out");
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [&out](pb::CheckpointMetadata& m) {
    auto* st = m.mutable_operators(3)->mutable_subtasks(0);
    for (int i = 0; i < st->committables_size(); ++i) {
      st->mutable_committables(i)->set_pending_path(out + "/.part-" + std::to_string(i) +
                                                    ".inprogress");
      st->mutable_committables(i)->set_final_path(out + "/part-" + std::to_string(i));
      st->mutable_committables(i)->set_size_bytes(10);
    }
  }));
  testing::WriteTextFile(out + "/.part-0.inprogress", "0123456789");  // pending, right size
  testing::WriteTextFile(out + "/part-1", "012345678");              // committed, one short
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::SampleSavepointJobSpec(), {});
  ValidateReport r = MustValidate(tmp.Sub("sp"), o);
  std::vector<Finding> a005;
  for (const auto& f : r.findings) {
    if (f.rule_id == "CKPT-A005") a005.push_back(f);
  }
  ASSERT_EQ(a005.size(), 1u) << Dump(r);
  EXPECT_EQ(a005[0].location.file, out + "/part-1");
  EXPECT_NE(a005[0].message.find("has 9 bytes but the snapshot recorded 10"), std::string::npos)
      << a005[0].message;
  EXPECT_TRUE(std::find(r.checked_rules.begin(), r.checked_rules.end(), "CKPT-A005") !=
              r.checked_rules.end());
}

// Defect 3: a sink directory absent on this host is "not checked", never a downgraded finding
// and never a pass; the restore capability is undetermined, not "yes".
TEST(ValidateTest, AgainstPendingSinkFilesElsewhereAreNotCheckedNotDowngraded) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  const std::string elsewhere = tmp.Sub("no-such-host-dir/out");
  ASSERT_OK(testing::RewriteMetadata(tmp.Sub("sp"), [&elsewhere](pb::CheckpointMetadata& m) {
    for (auto& op : *m.mutable_operators()) {
      for (auto& st : *op.mutable_subtasks()) {
        for (auto& c : *st.mutable_committables()) {
          c.set_pending_path(elsewhere + "/.part-x.inprogress");
          c.set_final_path(elsewhere + "/part-x");
        }
      }
    }
  }));
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::SampleSavepointJobSpec(), {});
  ValidateReport r = MustValidate(tmp.Sub("sp"), o);
  EXPECT_FALSE(HasRule(r, "CKPT-A005")) << Dump(r);
  ASSERT_FALSE(r.not_checked.empty());
  for (const auto& u : r.not_checked) {
    EXPECT_EQ(u.rule_id, "CKPT-A005");
    EXPECT_NE(u.reason.find("does not exist on this host"), std::string::npos) << u.reason;
  }
  EXPECT_TRUE(std::find(r.checked_rules.begin(), r.checked_rules.end(), "CKPT-A005") ==
              r.checked_rules.end());
  bool saw_restore = false;
  for (const auto& c : r.capabilities) {
    if (c.operation != "restore") continue;
    saw_restore = true;
    EXPECT_FALSE(c.supported);
    EXPECT_TRUE(c.undetermined);
    EXPECT_EQ(c.unverified_by, std::vector<std::string>{"CKPT-A005"});
  }
  EXPECT_TRUE(saw_restore);
}

// Defect 3: every finding carries its rule's one severity, whatever the options.
TEST(ValidateTest, EveryFindingHasItsRulesOneSeverity) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  std::map<std::string, Severity> severity;
  for (const auto& rule : AllRules()) severity[rule.id] = rule.severity;
  for (bool allow : {false, true}) {
    ValidateOptions o;
    o.allow_non_restored_state = allow;
    o.against_job = WriteSpec(tmp, "job.json", testing::CounterJobSpec(),
                              {{"\"uid\": \"counter\"", "\"uid\": \"counter-v2\""},
                               {"\"uid\": \"numbers\", ", ""}});
    ValidateReport r = MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2"), o);
    ASSERT_FALSE(r.findings.empty());
    for (const auto& f : r.findings) {
      ASSERT_EQ(severity.count(f.rule_id), 1u) << f.rule_id;
      EXPECT_EQ(f.severity, severity[f.rule_id]) << f.rule_id << ": " << f.message;
    }
  }
}

// Validate mirrors the restore: max parallelism matters only where keyed state is restored
// (the engine restores a non-keyed source whose max parallelism changed).
TEST(ValidateTest, AgainstChangedMaxParallelismOfOperatorWithoutKeyedStateIsFine) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleCheckpointRoot(tmp.Sub("root")));
  ValidateOptions o;
  o.against_job = WriteSpec(tmp, "job.json", testing::CounterJobSpec(),
                            {{"\"uid\": \"numbers\", ", "\"uid\": \"numbers\", \"maxParallelism\": 64, "}});
  ValidateReport r = MustValidate(tmp.Sub("root/" + testing::kFixtureV1Job + "/chk-2"), o);
  EXPECT_FALSE(HasRule(r, "CKPT-A002")) << Dump(r);
  EXPECT_FALSE(HasErrors(r.findings)) << Dump(r);
}

TEST(ValidateTest, AgainstInvalidSpecIsAnError) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  testing::WriteTextFile(tmp.Sub("bad.json"), "{\"name\": ");
  ValidateOptions o;
  o.against_job = tmp.Sub("bad.json");
  auto r = Validate(base::Fs::Default(), tmp.Sub("sp"), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.json"), std::string::npos) << r.status().ToString();
}

TEST(ValidateTest, JobSpecOperatorPositionsPointAtEachOperatorsLine) {
  TempDir tmp;
  testing::WriteTextFile(tmp.Sub("job.json"),
                         "{\n"
                         "  \"name\": \"positions\",\n"
                         "  \"operators\": [\n"
                         "    {\"id\": \"numbers\", \"kind\": \"sequence-source\", \"uid\": \"numbers\"},\n"
                         "\n"
                         "      {\"id\": \"sum\", \"kind\": \"keyed-sum\", \"uid\": \"sum\"}\n"
                         "  ],\n"
                         "  \"edges\": [{\"from\": \"numbers\", \"to\": \"sum\", \"partitioning\": \"HASH\"}]\n"
                         "}\n");
  auto positions = JobSpecOperatorPositions(base::Fs::Default(), tmp.Sub("job.json"));
  ASSERT_OK(positions.status());
  ASSERT_EQ(positions->size(), 2u);
  const auto numbers = positions->find(format::OperatorId::FromUid("numbers").ToHex());
  const auto sum = positions->find(format::OperatorId::FromUid("sum").ToHex());
  ASSERT_NE(numbers, positions->end());
  ASSERT_NE(sum, positions->end());
  EXPECT_EQ(numbers->second.line, 4u);
  EXPECT_EQ(numbers->second.column, 5u);
  EXPECT_EQ(sum->second.line, 6u);
  EXPECT_EQ(sum->second.column, 7u);
  auto missing = JobSpecOperatorPositions(base::Fs::Default(), tmp.Sub("absent.json"));
  EXPECT_EQ(missing.status().code(), base::StatusCode::kNotFound) << missing.status().ToString();
}

TEST(ValidateTest, CancelledProgressStopsWork) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  base::CancelToken cancel;
  cancel.Cancel();
  base::Progress progress;
  progress.cancel = &cancel;
  ASSERT_STATUS(Validate(base::Fs::Default(), tmp.Sub("sp"), {}, progress), kCancelled, "cancel");
}

TEST(ValidateTest, ProgressReportsBytes) {
  TempDir tmp;
  ASSERT_OK(testing::WriteSampleSavepoint(tmp.Sub("sp")));
  uint64_t last_done = 0, last_total = 0;
  base::Progress progress;
  progress.on_progress = [&](uint64_t done, uint64_t total, std::string_view) {
    last_done = done;
    last_total = total;
  };
  ValidateReport r = *Validate(base::Fs::Default(), tmp.Sub("sp"), {}, progress);
  EXPECT_EQ(last_done, last_total);
  EXPECT_EQ(last_total, r.bytes_checked);
}

// Defect 2 of issue 9: the table is a verdict for THIS snapshot: a missing referenced file or a
// checksum mismatch makes restore impossible, whatever the snapshot's kind allows.
TEST(CapabilitiesTest, ErrorsThatMakeRestoreImpossibleSayNo) {
  TempDir tmp;
  std::filesystem::copy(FixturePath("v1/savepoint"), tmp.Sub("sp"),
                        std::filesystem::copy_options::recursive);
  ValidateReport clean = MustValidate(tmp.Sub("sp"));
  std::string victim;
  for (const auto& e : std::filesystem::directory_iterator(tmp.Sub("sp"))) {
    if (e.path().filename() != "_metadata" && victim.empty()) victim = e.path().string();
  }
  ASSERT_FALSE(victim.empty());
  testing::FlipByte(victim, std::filesystem::file_size(victim) / 2);
  ValidateReport flipped = MustValidate(tmp.Sub("sp"));
  std::filesystem::remove(victim);
  ValidateReport missing = MustValidate(tmp.Sub("sp"));
  auto row = [](const ValidateReport& r, const std::string& op) {
    for (const auto& c : r.capabilities) {
      if (c.operation == op) return c;
    }
    ADD_FAILURE() << op;
    return Capability{};
  };
  EXPECT_TRUE(row(clean, "restore").supported);
  EXPECT_TRUE(row(clean, "self-contained and relocatable").supported);
  ASSERT_TRUE(HasRule(flipped, "CKPT-F003")) << Dump(flipped);
  EXPECT_FALSE(row(flipped, "restore").supported);
  EXPECT_FALSE(row(flipped, "restore").undetermined);
  EXPECT_NE(row(flipped, "restore").note.find("CKPT-F003"), std::string::npos);
  EXPECT_FALSE(row(flipped, "change state backend").supported);
  ASSERT_TRUE(HasRule(missing, "CKPT-F001")) << Dump(missing);
  const Capability restore = row(missing, "restore");
  EXPECT_FALSE(restore.supported);
  EXPECT_EQ(restore.blocked_by, std::vector<std::string>{"CKPT-F001"});
  EXPECT_FALSE(row(missing, "self-contained and relocatable").supported);
  EXPECT_FALSE(row(missing, "State Processor API read").supported);
}

TEST(CapabilitiesTest, FollowFlinksTable) {
  TempDir tmp;
  ASSERT_OK(testing::WriteUnalignedCheckpoint(tmp.Sub("u")));
  ValidateReport sp = MustValidate(FixturePath("v1/savepoint"));
  ValidateReport un = MustValidate(tmp.Sub("u"));
  auto get = [](const ValidateReport& r, const std::string& op) {
    for (const auto& c : r.capabilities) {
      if (c.operation == op) return c.supported;
    }
    ADD_FAILURE() << op;
    return false;
  };
  EXPECT_TRUE(get(sp, "change state backend"));
  EXPECT_FALSE(get(un, "change state backend"));
  EXPECT_TRUE(get(un, "restore"));
  EXPECT_FALSE(get(un, "arbitrary job upgrade (swap, add or remove operators)"));
  EXPECT_TRUE(get(un, "non-arbitrary job upgrade (same topology)"));
  EXPECT_EQ(un.snapshot_type, "checkpoint (full, unaligned)");
  EXPECT_EQ(sp.snapshot_type, "savepoint (canonical, full, aligned)");
}

}  // namespace
}  // namespace ckpt::ops
