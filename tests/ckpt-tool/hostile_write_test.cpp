// Hostile snapshots given to every verb that writes (relocate, remap, rescale-max-parallelism,
// prune), in both formats: duplicate operator IDs and subtasks, zero, negative and huge (max)
// parallelisms, key-group ranges and counts near 2^32, file indexes and sizes out of range, paths
// that leave the snapshot, names with control characters, missing and damaged files. Each verb
// runs as the binary under a 1 GiB RLIMIT_AS (as hostile_input_test runs the readers) and must
// end without a signal; when it exits 0 its output passes `ckpt-tool validate`, otherwise it
// exits 1 or 2 with a message and nothing is at the output path. The input never changes.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/format/layout.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using ::ckpt::testing::TempDir;
using ::ckpt::testing::ToolRun;

using ::ckpt::testing::RunToolBounded;

std::string Describe(const std::vector<std::string>& args, const ToolRun& r) {
  std::string cmd;
  for (const auto& a : args) cmd += a + " ";
  return cmd + "\nexit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" +
         r.err;
}

constexpr uint32_t kU32Max = std::numeric_limits<uint32_t>::max();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

// ---- our format: the sample savepoint, its metadata edited ----

using OwnEdit = std::function<void(pb::CheckpointMetadata&)>;

// The operator state with keyed state (the sample's aggregate).
pb::OperatorState* Keyed(pb::CheckpointMetadata& m) {
  for (auto& op : *m.mutable_operators()) {
    for (const auto& st : op.subtasks()) {
      if (st.keyed_state_size() > 0) return &op;
    }
  }
  return m.mutable_operators(0);
}

void ForKeyGroups(pb::CheckpointMetadata& m,
                  const std::function<void(pb::KeyGroupsStateHandle*)>& fn) {
  for (auto& st : *Keyed(m)->mutable_subtasks()) {
    for (auto& h : *st.mutable_keyed_state()) {
      if (h.has_key_groups()) fn(h.mutable_key_groups());
    }
  }
}

void SetMaxParallelism(pb::CheckpointMetadata& m, uint32_t max_p) {
  pb::OperatorState* op = Keyed(m);
  op->set_max_parallelism(max_p);
  for (auto& info : *m.mutable_job_graph()->mutable_operators()) {
    if (info.operator_id() == op->operator_id()) info.set_max_parallelism(max_p);
  }
}

struct OwnCase {
  std::string name;
  OwnEdit edit;
};

void PrintTo(const OwnCase& c, std::ostream* os) { *os << c.name; }

std::vector<OwnCase> OwnCases() {
  const std::string ctl = "evil\x1b[2J\nname\x07";
  return {
      {"DuplicateOperatorId",
       [](pb::CheckpointMetadata& m) {
         m.mutable_operators(2)->set_operator_id(m.operators(1).operator_id());
       }},
      {"DuplicateSubtask",
       [](pb::CheckpointMetadata& m) {
         pb::OperatorState* op = Keyed(m);
         *op->add_subtasks() = op->subtasks(0);
       }},
      {"ZeroMaxParallelism", [](pb::CheckpointMetadata& m) { SetMaxParallelism(m, 0); }},
      {"MaxParallelism2Pow31", [](pb::CheckpointMetadata& m) { SetMaxParallelism(m, 1u << 31); }},
      {"MaxParallelismU32Max", [](pb::CheckpointMetadata& m) { SetMaxParallelism(m, kU32Max); }},
      {"ZeroParallelism", [](pb::CheckpointMetadata& m) { Keyed(m)->set_parallelism(0); }},
      {"ParallelismU32Max", [](pb::CheckpointMetadata& m) { Keyed(m)->set_parallelism(kU32Max); }},
      {"SubtaskIndexU32Max",
       [](pb::CheckpointMetadata& m) {
         Keyed(m)->mutable_subtasks(0)->set_subtask_index(kU32Max);
       }},
      {"HugeKeyGroupRange",
       [](pb::CheckpointMetadata& m) {
         ForKeyGroups(m, [](pb::KeyGroupsStateHandle* h) { h->set_key_group_end(kU32Max); });
       }},
      {"HugeKeyGroupRangeWithoutMaxParallelism",
       [](pb::CheckpointMetadata& m) {
         SetMaxParallelism(m, 0);
         ForKeyGroups(m, [](pb::KeyGroupsStateHandle* h) {
           h->set_key_group_start(kU32Max - 1);
           h->set_key_group_end(kU32Max);
         });
       }},
      {"RecordCountsNear2Pow32",
       [](pb::CheckpointMetadata& m) {
         ForKeyGroups(m, [](pb::KeyGroupsStateHandle* h) {
           for (int i = 0; i < h->key_group_record_counts_size(); ++i) {
             h->set_key_group_record_counts(i, kU32Max);
           }
         });
       }},
      {"FileIndexU32Max",
       [](pb::CheckpointMetadata& m) {
         ForKeyGroups(m, [](pb::KeyGroupsStateHandle* h) { h->set_file_index(kU32Max); });
       }},
      {"HugeFileSize",
       [](pb::CheckpointMetadata& m) {
         for (auto& f : *m.mutable_files()) f.set_size_bytes(std::numeric_limits<uint64_t>::max());
       }},
      {"PathLeavesTheSnapshot",
       [](pb::CheckpointMetadata& m) { m.mutable_files(0)->set_path("../../../etc/hostname"); }},
      {"AbsolutePath",
       [](pb::CheckpointMetadata& m) { m.mutable_files(0)->set_path("/etc/hostname"); }},
      {"EmptyPath", [](pb::CheckpointMetadata& m) { m.mutable_files(0)->set_path(""); }},
      {"DuplicateFileEntries",
       [](pb::CheckpointMetadata& m) { *m.mutable_files(1) = m.files(0); }},
      {"ControlCharactersInNames",
       [ctl](pb::CheckpointMetadata& m) {
         for (auto& info : *m.mutable_job_graph()->mutable_operators()) {
           info.set_name(ctl);
           info.set_uid(info.uid() + ctl);
         }
       }},
      {"ControlCharactersInAMissingFilePath",
       [ctl](pb::CheckpointMetadata& m) { m.mutable_files(0)->set_path(ctl); }},
      {"NegativeCheckpointId",
       [](pb::CheckpointMetadata& m) { m.set_checkpoint_id(std::numeric_limits<int64_t>::min()); }},
      {"WrongChecksum",
       [](pb::CheckpointMetadata& m) {
         m.mutable_files(0)->set_checksum_xxh3(m.files(0).checksum_xxh3() ^ 1);
       }},
  };
}

// ---- Apache Flink: a canonical heap savepoint of fixtures/flink, its `_metadata` edited ----

using FlinkEdit = std::function<void(flink::Metadata&)>;

const char kFlinkFixture[] = "flink/new-stateful-udf-migration-itcase-flink2.0-hashmap-savepoint";
// The fixture's CheckpointingSource1 (no keyed state; remap renames it).
const char kFlinkRemapped[] = "69f32d314b97c6f7f9ed7873983167f2";

flink::OperatorState& FlinkKeyed(flink::Metadata& md) {
  for (auto& op : md.operators) {
    for (const auto& st : op.subtasks) {
      if (!st.managed_keyed.is_null()) return op;
    }
  }
  return md.operators.front();
}

// Applies `fn` to a copy of each keyed subtask's key-group handle of the keyed operator.
void ForFlinkKeyGroups(flink::Metadata& md,
                       const std::function<void(flink::KeyGroupsHandle*)>& fn) {
  for (auto& st : FlinkKeyed(md).subtasks) {
    if (st.managed_keyed.is_null() || st.managed_keyed.key_groups == nullptr) continue;
    auto kg = std::make_shared<flink::KeyGroupsHandle>(*st.managed_keyed.key_groups);
    fn(kg.get());
    st.managed_keyed.kg_start = kg->start;
    st.managed_keyed.kg_count = kg->count;
    st.managed_keyed.key_groups = std::move(kg);
  }
}

struct FlinkCase {
  std::string name;
  FlinkEdit edit;
};

void PrintTo(const FlinkCase& c, std::ostream* os) { *os << c.name; }

std::vector<FlinkCase> FlinkCases() {
  return {
      {"DuplicateOperatorId",
       [](flink::Metadata& md) {
         std::copy(std::begin(md.operators[0].id), std::end(md.operators[0].id),
                   md.operators[1].id);
       }},
      {"DuplicateSubtask",
       [](flink::Metadata& md) {
         flink::OperatorState& op = FlinkKeyed(md);
         op.subtasks.push_back(op.subtasks.front());
         op.entry_order.clear();
       }},
      {"ZeroMaxParallelism", [](flink::Metadata& md) { FlinkKeyed(md).max_parallelism = 0; }},
      {"NegativeMaxParallelism", [](flink::Metadata& md) { FlinkKeyed(md).max_parallelism = -1; }},
      {"HugeMaxParallelism", [](flink::Metadata& md) { FlinkKeyed(md).max_parallelism = kI32Max; }},
      {"ZeroParallelism", [](flink::Metadata& md) { FlinkKeyed(md).parallelism = 0; }},
      {"HugeParallelism", [](flink::Metadata& md) { FlinkKeyed(md).parallelism = kI32Max; }},
      {"HugeKeyGroupRangeWithoutMaxParallelism",
       [](flink::Metadata& md) {
         FlinkKeyed(md).max_parallelism = 0;
         ForFlinkKeyGroups(md, [](flink::KeyGroupsHandle* kg) { kg->start = kI32Max - 1; });
       }},
      {"KeyGroupStartNearInt32Max",
       [](flink::Metadata& md) {
         ForFlinkKeyGroups(md, [](flink::KeyGroupsHandle* kg) { kg->start = kI32Max - 1; });
       }},
      {"NegativeKeyGroupStart",
       [](flink::Metadata& md) {
         ForFlinkKeyGroups(md, [](flink::KeyGroupsHandle* kg) { kg->start = -5; });
       }},
      {"SubtaskIndexOutOfRange",
       [](flink::Metadata& md) {
         FlinkKeyed(md).subtasks.front().index = kI32Max;
         FlinkKeyed(md).entry_order.clear();
       }},
      {"ControlCharactersInNames",
       [](flink::Metadata& md) {
         for (auto& op : md.operators) op.name = "evil\x1b[2J\nname";
       }},
      {"PathLeavesTheSnapshot",
       [](flink::Metadata& md) {
         ForFlinkKeyGroups(md, [](flink::KeyGroupsHandle* kg) {
           kg->delegate.path = "../../../etc/hostname";
         });
       }},
  };
}

// ---- the verbs ----

// Asserts what every write verb promises for one run; `out` is its output path.
void ExpectWriteContract(const std::vector<std::string>& args, const std::string& out) {
  const ToolRun r = RunToolBounded(args);
  const std::string what = Describe(args, r);
  ASSERT_TRUE(r.exit_code >= 0 && r.exit_code <= 2) << "crashed or killed: " << what;
  if (r.exit_code == 0) {
    ASSERT_TRUE(testing::Exists(out)) << "exit 0 without an output: " << what;
    const std::vector<std::string> validate = {"validate", out};
    const ToolRun v = RunToolBounded(validate);
    EXPECT_EQ(v.exit_code, 0) << "exit 0 but the output does not validate: " << what << "\n"
                              << Describe(validate, v);
  } else {
    EXPECT_FALSE(testing::Exists(out)) << "an output was published: " << what;
    EXPECT_FALSE((r.out + r.err).empty()) << "no message: " << what;
  }
  EXPECT_FALSE(testing::Exists(out + ".tmp")) << "a build directory was left: " << what;
}

// relocate, remap (renaming `remap_old`) and rescale-max-parallelism of `snap`, then prune of a
// checkpoint root that holds it as its newest checkpoint; the input never changes.
void RunEveryWriteVerb(const TempDir& tmp, const std::string& snap, const std::string& remap_old) {
  const auto before = testing::FileTree(snap);
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"relocate", snap, "--to", tmp.Sub("relocated")}, tmp.Sub("relocated")},
      {{"remap", snap, "--to", tmp.Sub("remapped"), "--map", remap_old + "=hostile-renamed"},
       tmp.Sub("remapped")},
      {{"rescale-max-parallelism", snap, "--max-parallelism", "256", "--to", tmp.Sub("rescaled")},
       tmp.Sub("rescaled")},
  };
  for (const auto& [args, out] : runs) {
    SCOPED_TRACE(args[0]);
    ExpectWriteContract(args, out);
  }
  EXPECT_EQ(testing::FileTree(snap), before) << "a write verb modified its input";

  // prune: the hostile snapshot is the newest checkpoint of a job beside two intact ones.
  const std::string root = tmp.Sub("root");
  ASSERT_OK(testing::WriteSampleCheckpointRoot(root));
  const std::string job = format::JobDir(root, testing::SampleJobIdHex());
  testing::CopyTree(snap, format::CheckpointDir(job, 9));
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"prune", root}, {"prune", root, "--yes"}}) {
    const ToolRun r = RunToolBounded(args);
    EXPECT_TRUE(r.exit_code >= 0 && r.exit_code <= 2) << "crashed or killed: " << Describe(args, r);
    if (r.exit_code != 0) {
      EXPECT_FALSE((r.out + r.err).empty()) << Describe(args, r);
    }
  }
}

class HostileOwnWriteTest : public ::testing::TestWithParam<OwnCase> {};

TEST_P(HostileOwnWriteTest, EveryWriteVerbEndsCleanlyAndPublishesOnlyValidOutput) {
  TempDir tmp;
  const std::string snap = tmp.Sub("savepoint");
  ASSERT_OK(testing::WriteSampleSavepoint(snap));
  ASSERT_OK(testing::RewriteMetadata(snap, GetParam().edit));
  RunEveryWriteVerb(tmp, snap, "orders-source");
}

INSTANTIATE_TEST_SUITE_P(Cases, HostileOwnWriteTest, ::testing::ValuesIn(OwnCases()),
                         [](const auto& c) { return c.param.name; });

class HostileFlinkWriteTest : public ::testing::TestWithParam<FlinkCase> {};

TEST_P(HostileFlinkWriteTest, EveryWriteVerbEndsCleanlyAndPublishesOnlyValidOutput) {
  TempDir tmp;
  const std::string snap = tmp.Sub("savepoint");
  testing::CopyTree(testing::FixturePath(kFlinkFixture), snap);
  const std::string metadata = snap + "/_metadata";
  ASSERT_OK_AND_ASSIGN(flink::Metadata md, flink::ReadFlinkMetadata(base::Fs::Default(), metadata));
  GetParam().edit(md);
  ASSERT_OK(flink::WriteFlinkMetadata(base::Fs::Default(), md, metadata));
  RunEveryWriteVerb(tmp, snap, kFlinkRemapped);
}

INSTANTIATE_TEST_SUITE_P(Cases, HostileFlinkWriteTest, ::testing::ValuesIn(FlinkCases()),
                         [](const auto& c) { return c.param.name; });

}  // namespace
}  // namespace ckpt::ops
