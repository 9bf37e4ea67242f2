// rescale-max-parallelism on ckpt-format savepoints (issue 11 §2, "for both formats"): the frozen
// v1 canonical savepoint (VALUE, LIST, MAP and TIMERS keyed by STRING, maxP 128) rewritten to 256
// and to 64 holds every entry it held, each in the key group KeyGroupForKey(key, newMaxP) gives it
// and in the subtask whose range holds that group (validate --deep: no finding); list elements
// keep their order; operator and coordinator state are untouched; rescaling back gives the
// original key groups. Checkpoints, native savepoints, a max parallelism below the parallelism and
// an unknown operator are refused with the reason, nothing written, the input untouched.
#include "ckpt/ops/rescale.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <tuple>

#include "ckpt/base/fs.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

using testing::FixturePath;
using testing::TempDir;

// (operator, state, key, namespace, user key, value, timestamp), in dump order per key.
using Entry = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::string>;
struct Dumped {
  std::map<std::string, std::vector<Entry>> by_key;  // key json -> its entries in dump order
  std::map<std::string, uint32_t> key_group;         // key json -> key group
  std::vector<Entry> operator_entries;               // non-keyed entries, in order
  size_t keyed = 0;
};

Dumped DumpAll(const std::string& dir, uint32_t max_p, uint32_t parallelism) {
  Dumped d;
  auto s = LoadSnapshot(base::Fs::Default(), dir);
  EXPECT_OK(s);
  if (!s.ok()) return d;
  auto n = Dump(base::Fs::Default(), *s, {}, [&](const DumpEntry& e) {
    Entry k{e.operator_id, e.state, e.key_json, e.namespace_json, e.user_key_json, e.value_json,
            e.timestamp_json};
    if (!e.key_group) {
      d.operator_entries.push_back(k);
      return base::Status::OK();
    }
    ++d.keyed;
    d.by_key[e.key_json].push_back(k);
    d.key_group[e.key_json] = *e.key_group;
    EXPECT_LT(*e.key_group, max_p);
    if (e.subtask) {
      EXPECT_EQ(*e.subtask, format::SubtaskForKeyGroup(max_p, parallelism, *e.key_group)) << e.key_json;
    }
    return base::Status::OK();
  });
  EXPECT_OK(n);
  return d;
}

RescaleOptions To(int32_t max) {
  RescaleOptions o;
  o.new_max_parallelism = max;
  o.verify_output = true;
  return o;
}

const char kSavepoint[] = "v1/savepoint";
const char kAggregate[] = "per-user-aggregate";  // the keyed operator (p 2, maxP 128)

void ExpectNoErrors(const std::optional<ValidateReport>& report) {
  ASSERT_TRUE(report.has_value());
  for (const auto& f : report->findings) {
    EXPECT_NE(f.severity, Severity::kError) << f.rule_id << ": " << f.message;
  }
}

TEST(RescaleTest, CanonicalSavepointKeepsEveryEntryInItsNewKeyGroupUpAndDown) {
  TempDir tmp;
  const std::string src = FixturePath(kSavepoint);
  const auto before = testing::FileTree(src);
  const Dumped original = DumpAll(src, 128, 2);
  ASSERT_EQ(original.by_key.size(), 24u);  // user-00 .. user-23

  for (int32_t max : {256, 64, 2}) {
    SCOPED_TRACE(max);
    const std::string out = tmp.Sub("maxp-" + std::to_string(max));
    auto r = RescaleMaxParallelism(base::Fs::Default(), src, out, To(max));
    ASSERT_OK(r);
    EXPECT_TRUE(r->written);
    ASSERT_FALSE(r->operators.empty());
    uint64_t entries = 0;
    for (const auto& o : r->operators) {
      EXPECT_EQ(o.old_max_parallelism, 128);
      EXPECT_EQ(o.new_max_parallelism, max);
      entries += o.keyed_entries;
    }
    EXPECT_EQ(entries, original.keyed);  // every record once (timers included)
    ExpectNoErrors(r->verification);
    EXPECT_EQ(testing::FileTree(src), before) << "the input changed";

    auto md = format::ReadMetadataFile(base::Fs::Default(), out + "/_metadata");
    ASSERT_OK(md);
    for (const auto& op : md->operators()) EXPECT_EQ(op.max_parallelism(), static_cast<uint32_t>(max));
    for (const auto& info : md->job_graph().operators()) {
      EXPECT_EQ(info.max_parallelism(), static_cast<uint32_t>(max)) << info.uid();
    }

    const Dumped rescaled = DumpAll(out, static_cast<uint32_t>(max), 2);
    EXPECT_EQ(rescaled.by_key, original.by_key) << "an entry changed, moved between keys or reordered";
    EXPECT_EQ(rescaled.operator_entries, original.operator_entries);
    for (const auto& [key, group] : rescaled.key_group) {
      // The dump decodes the key; its group is the murmur of the encoded key modulo the new maxP,
      // which for 64 | 128 | 256 agrees with the old one modulo the smaller of the two.
      const uint32_t old_group = original.key_group.at(key);
      if (max >= 128) {
        EXPECT_EQ(group % 128, old_group) << key;
      } else {
        EXPECT_EQ(old_group % static_cast<uint32_t>(max), group) << key;
      }
    }
  }

  // Back from 256 to 128: every key in its original group.
  auto back =
      RescaleMaxParallelism(base::Fs::Default(), tmp.Sub("maxp-256"), tmp.Sub("back"), To(128));
  ASSERT_OK(back);
  const Dumped again = DumpAll(tmp.Sub("back"), 128, 2);
  EXPECT_EQ(again.by_key, original.by_key);
  EXPECT_EQ(again.key_group, original.key_group);
}

TEST(RescaleTest, OnlyTheNamedOperatorIsRescaled) {
  TempDir tmp;
  RescaleOptions o = To(256);
  o.operators = {kAggregate};
  auto r = RescaleMaxParallelism(base::Fs::Default(), FixturePath(kSavepoint), tmp.Sub("out"), o);
  ASSERT_OK(r);
  ASSERT_EQ(r->operators.size(), 1u);
  EXPECT_EQ(r->operators[0].uid, kAggregate);
  EXPECT_EQ(r->operators[0].output_files.size(), 2u);
  auto md = format::ReadMetadataFile(base::Fs::Default(), tmp.Sub("out") + "/_metadata");
  ASSERT_OK(md);
  size_t at_256 = 0;
  for (const auto& op : md->operators()) at_256 += op.max_parallelism() == 256;
  EXPECT_EQ(at_256, 1u);
}

TEST(RescaleTest, DryRunReassignsEveryKeyAndWritesNothing) {
  TempDir tmp;
  RescaleOptions o = To(512);
  o.dry_run = true;
  auto r = RescaleMaxParallelism(base::Fs::Default(), FixturePath(kSavepoint), tmp.Sub("out"), o);
  ASSERT_OK(r);
  EXPECT_FALSE(r->written);
  ASSERT_FALSE(r->operators.empty());
  uint64_t entries = 0;
  for (const auto& op : r->operators) entries += op.keyed_entries;
  EXPECT_GT(entries, 0u);
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out") + ".tmp").ok());
}

TEST(RescaleTest, CheckpointsImpossibleMaxParallelismAndUnknownOperatorsAreRefused) {
  TempDir tmp;
  const std::string out = tmp.Sub("out");
  const std::string checkpoint = FixturePath("v1/checkpoints/1a2b3c4d5e6f708192a3b4c5d6e7f801/chk-1");
  ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), checkpoint, out, To(256)).status(),
                kUnimplemented, "it is a checkpoint");
  ASSERT_STATUS(
      RescaleMaxParallelism(base::Fs::Default(), FixturePath(kSavepoint), out, To(1)).status(),
      kInvalidArgument, "parallelism 2 is outside [1, max parallelism 1]");
  ASSERT_STATUS(
      RescaleMaxParallelism(base::Fs::Default(), FixturePath(kSavepoint), out, To(40000)).status(),
      kInvalidArgument, "out of range");
  RescaleOptions o = To(256);
  o.operators = {"no-such-operator"};
  ASSERT_STATUS(
      RescaleMaxParallelism(base::Fs::Default(), FixturePath(kSavepoint), out, o).status(),
      kInvalidArgument, "no-such-operator");
  EXPECT_FALSE(base::Fs::Default().Stat(out).ok());
  EXPECT_FALSE(base::Fs::Default().Stat(out + ".tmp").ok());
}

TEST(RescaleTest, AKeyInTheWrongKeyGroupIsCorruptionNamingTheFile) {
  TempDir tmp;
  ASSERT_OK(testing::WriteMisplacedKeySavepoint(tmp.Sub("misplaced")));
  auto r =
      RescaleMaxParallelism(base::Fs::Default(), tmp.Sub("misplaced"), tmp.Sub("out"), To(256));
  ASSERT_STATUS(r.status(), kCorruption, "belongs to");
  EXPECT_NE(r.status().message().find(".state"), std::string::npos) << r.status().ToString();
  EXPECT_FALSE(base::Fs::Default().Stat(tmp.Sub("out")).ok());
}

// The input is never modified: an output at the input or inside it is refused (dry run too).
TEST(RescaleTest, RefusesAnOutputInsideItsInput) {
  TempDir tmp;
  const std::string sp = tmp.Sub("sp");
  testing::CopyTree(FixturePath(kSavepoint), sp);
  const auto before = testing::FileTree(tmp.path());
  RescaleOptions dry = To(256);
  dry.dry_run = true;
  for (const RescaleOptions& o : {To(256), dry}) {
    for (const std::string& out : {sp + "/rescaled", sp, sp + "/./"}) {
      SCOPED_TRACE(out);
      ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), sp, out, o).status(),
                    kInvalidArgument, "refusing to write the output");
    }
  }
  auto cli = testing::RunTool(
      {"rescale-max-parallelism", "sp", "--max-parallelism", "256", "--to", "sp/out"}, tmp.path());
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("inside the input"), std::string::npos) << cli.err;
  EXPECT_EQ(testing::FileTree(tmp.path()), before);
}

// A key's group is its hash modulo the recorded max parallelism: a recorded 0 divided by zero
// (SIGFPE, exit 136). It is corruption naming the metadata.
TEST(RescaleTest, UnusableRecordedMaxParallelismIsCorruptionNotADivisionByZero) {
  TempDir tmp;
  const std::string sp = tmp.Sub("sp");
  ASSERT_OK(testing::WriteSampleSavepoint(sp));
  ASSERT_OK(testing::RewriteMetadata(sp, [](pb::CheckpointMetadata& m) {
    for (auto& op : *m.mutable_operators()) {
      for (auto& st : *op.mutable_subtasks()) {
        for (auto& h : *st.mutable_keyed_state()) {
          if (!h.has_key_groups()) continue;
          op.set_max_parallelism(0);
        }
      }
    }
  }));
  ASSERT_STATUS(RescaleMaxParallelism(base::Fs::Default(), sp, tmp.Sub("out"), To(256)).status(),
                kCorruption, "max parallelism 0 is outside [1, 32768]");
  auto cli = testing::RunTool(
      {"rescale-max-parallelism", "sp", "--max-parallelism", "256", "--to", "out"}, tmp.path());
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("_metadata"), std::string::npos) << cli.err;
  EXPECT_FALSE(testing::Exists(tmp.Sub("out")));
}

TEST(RescaleTest, ExistingOutputIsNeverOverwritten) {
  TempDir tmp;
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("out")));
  ASSERT_STATUS(
      RescaleMaxParallelism(base::Fs::Default(), FixturePath(kSavepoint), tmp.Sub("out"), To(256))
          .status(),
      kAlreadyExists, "out");
}

}  // namespace
}  // namespace ckpt::ops
