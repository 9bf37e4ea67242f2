// remap on real Apache Flink savepoints (fixtures/flink): only operator IDs and v5+ uids of
// `_metadata` change (every other byte is Flink's, coordinator state included), dropped
// operators leave with their files, relative state files are copied unchanged beside the new
// `_metadata`, the input is never modified, a dry run and an unmatched request write nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "ckpt/base/fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/ops/remap.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "golden_util.h"

namespace ckpt::ops {
namespace {

using format::OperatorId;
using testing::TempDir;

std::string Fixture(const std::string& name) { return testing::FixturePath("flink/" + name); }

flink::Metadata Read(const std::string& dir) {
  auto md = flink::ReadFlinkMetadata(base::Fs::Default(), dir + "/_metadata");
  EXPECT_OK(md);
  return md.ok() ? std::move(md).value() : flink::Metadata{};
}

// Every file under `dir` (relative path -> bytes).
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) {
      out[std::filesystem::relative(e.path(), dir).string()] =
          testing::ReadBytes(e.path().string());
    }
  }
  return out;
}

void SetId(flink::OperatorState* op, const OperatorId& id) {
  const std::string b = id.ToBytes();
  for (int i = 0; i < 16; ++i) op->id[i] = static_cast<uint8_t>(b[static_cast<size_t>(i)]);
}

const flink::OperatorState* WithUidAndCoordinator(const flink::Metadata& md) {
  for (const auto& op : md.operators) {
    if (!op.uid.empty() && !op.coordinator.is_null()) return &op;
  }
  return nullptr;
}

TEST(FlinkRemapTest, MapByUidRewritesOnlyTheIdAndUidAndKeepsCoordinatorState) {
  TempDir tmp;
  const std::string src = Fixture("table-state");
  const auto before = Tree(src);
  const flink::Metadata in = Read(src);
  const flink::OperatorState* source = WithUidAndCoordinator(in);
  ASSERT_NE(source, nullptr) << "table-state has a source with coordinator state";
  const std::string new_uid = source->uid + "-v2";

  RemapOptions options;
  options.mappings.push_back({source->uid, new_uid});
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), src, tmp.Sub("out"), options));
  EXPECT_TRUE(r.written);
  EXPECT_TRUE(r.unmatched.empty());

  // Expected: the input model with that one operator's ID and uid changed, written by Flink's
  // layout; everything else (master state, fully finished operator, trailer) as it was.
  flink::Metadata expected = in;
  for (auto& op : expected.operators) {
    if (op.uid != source->uid) continue;
    op.uid = new_uid;
    SetId(&op, OperatorId::FromUid(new_uid));
  }
  ASSERT_OK_AND_ASSIGN(std::string expected_bytes, flink::SerializeFlinkMetadata(expected));
  const std::string out_bytes = testing::ReadBytes(tmp.Sub("out/_metadata"));
  EXPECT_EQ(out_bytes, expected_bytes);
  EXPECT_EQ(out_bytes.size(), testing::ReadBytes(src + "/_metadata").size() + 3);

  const flink::Metadata out = Read(tmp.Sub("out"));
  const flink::OperatorState* moved = WithUidAndCoordinator(out);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->uid, new_uid);
  EXPECT_EQ(moved->IdHex(), OperatorId::FromUid(new_uid).ToHex());
  EXPECT_EQ(moved->coordinator.data, source->coordinator.data);
  EXPECT_EQ(out.master_states.size(), in.master_states.size());

  size_t stateful = 0;
  for (const auto& op : in.operators) stateful += !op.subtasks.empty() || !op.coordinator.is_null();
  ASSERT_EQ(r.operators.size(), stateful);  // the plan lists what has state (and what it renames)
  bool renamed = false;
  for (const auto& e : r.operators) {
    if (e.action != RemapAction::kRename) continue;
    renamed = true;
    EXPECT_EQ(e.old_uid, source->uid);
    EXPECT_EQ(e.new_uid, new_uid);
    EXPECT_EQ(e.new_id_hex, OperatorId::FromUid(new_uid).ToHex());
    EXPECT_TRUE(e.has_coordinator_state);
  }
  EXPECT_TRUE(renamed);
  EXPECT_EQ(Tree(src), before);  // the input is untouched
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out.tmp")));
}

TEST(FlinkRemapTest, RelativeStateFilesAreCopiedUnchangedAndTheOutputValidates) {
  TempDir tmp;
  const std::string src = Fixture("new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint-native");
  const flink::Metadata in = Read(src);
  std::string uid;
  for (const auto& op : in.operators) {
    if (!op.uid.empty() && !op.subtasks.empty()) uid = op.uid;
  }
  ASSERT_FALSE(uid.empty());
  RemapOptions options;
  options.uid_suffix_rewrites.push_back({uid.substr(uid.size() - 1), uid.substr(uid.size() - 1) + "-renamed"});
  options.verify_output = true;
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), src, tmp.Sub("out"), options));
  ASSERT_TRUE(r.written) << r.refused;
  EXPECT_TRUE(r.bytes_copied > 0 || r.files_linked > 0);  // linked where the filesystem allows

  auto src_tree = Tree(src);
  auto out_tree = Tree(tmp.Sub("out"));
  src_tree.erase("_metadata");
  out_tree.erase("_metadata");
  EXPECT_EQ(out_tree, src_tree);  // every state file, byte for byte, at the same relative path
  EXPECT_EQ(r.files, out_tree.size());

  ASSERT_TRUE(r.verification.has_value());
  for (const auto& f : r.verification->findings) {
    EXPECT_NE(f.severity, Severity::kError) << f.rule_id << ": " << f.message;
  }
  const flink::Metadata out = Read(tmp.Sub("out"));
  EXPECT_EQ(out.properties.has_value(), in.properties.has_value());
  EXPECT_EQ(out.trailer, in.trailer);
}

TEST(FlinkRemapTest, DropLeavesTheOperatorAndItsFilesOut) {
  TempDir tmp;
  const std::string src = Fixture("new-stateful-udf-migration-itcase-flink2.0-rocksdb-savepoint-native");
  const flink::Metadata in = Read(src);
  const flink::OperatorState* keyed = nullptr;
  for (const auto& op : in.operators) {
    for (const auto& st : op.subtasks) {
      if (!st.managed_keyed.is_null()) keyed = &op;
    }
  }
  ASSERT_NE(keyed, nullptr);
  RemapOptions options;
  options.drop.push_back(keyed->IdHex());
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), src, tmp.Sub("out"), options));
  ASSERT_TRUE(r.written);
  const flink::Metadata out = Read(tmp.Sub("out"));
  EXPECT_EQ(out.operators.size(), in.operators.size() - 1);
  for (const auto& op : out.operators) EXPECT_NE(op.IdHex(), keyed->IdHex());
  for (const auto& st : keyed->subtasks) {
    for (const auto& f : st.managed_keyed.private_files) {
      if (f.handle.type == flink::StreamHandle::Type::kRelativeFile) {
        EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out/" + f.handle.path))) << f.handle.path;
      }
    }
  }
}

TEST(FlinkRemapTest, DryRunAndUnmatchedRequestsWriteNothing) {
  TempDir tmp;
  const std::string src = Fixture("complexKeyed-flink2.0");
  RemapOptions options;
  options.uid_prefix_rewrites.push_back({"win", "v2-win"});
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), src, tmp.Sub("out"), options));
  EXPECT_FALSE(r.written);
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out")));
  bool planned = false;
  for (const auto& e : r.operators) {
    if (e.action == RemapAction::kRename) {
      planned = true;
      EXPECT_EQ(e.new_uid, "v2-" + e.old_uid);
      EXPECT_EQ(e.new_id_hex, OperatorId::FromUid(e.new_uid).ToHex());
    }
  }
  EXPECT_TRUE(planned);

  RemapOptions unmatched;
  unmatched.mappings.push_back({"no-such-uid", "x"});
  ASSERT_OK_AND_ASSIGN(RemapResult u, Remap(base::Fs::Default(), src, tmp.Sub("out"), unmatched));
  EXPECT_FALSE(u.written);
  EXPECT_NE(u.refused, "");
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out")));
}

TEST(FlinkRemapTest, PreV5SnapshotsGetTheNewIdWithoutAUid) {
  TempDir tmp;
  const std::string src = Fixture("complexKeyed-flink1.20");
  const flink::Metadata in = Read(src);
  ASSERT_EQ(in.version, 4u);
  const std::string old_id = in.operators.front().IdHex();
  RemapOptions options;
  options.mappings.push_back({old_id, "window-v2"});
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), src, tmp.Sub("out"), options));
  ASSERT_TRUE(r.written);
  const flink::Metadata out = Read(tmp.Sub("out"));
  EXPECT_EQ(out.version, 4u);
  EXPECT_EQ(out.operators.front().IdHex(), OperatorId::FromUid("window-v2").ToHex());
  EXPECT_EQ(out.operators.front().uid, "");
  EXPECT_EQ(testing::ReadBytes(tmp.Sub("out/_metadata")).size(),
            testing::ReadBytes(src + "/_metadata").size());
}

TEST(FlinkRemapTest, AUidThePreV5FileDoesNotStoreIsFoundByItsHash) {
  TempDir tmp;
  const std::string src = Fixture("complexKeyed-flink1.20");
  const std::string old_id = OperatorId::FromUid("window").ToHex();
  bool present = false;
  for (const auto& op : Read(src).operators) present |= op.IdHex() == old_id;
  ASSERT_TRUE(present) << "complexKeyed's job sets uid 'window'";
  RemapOptions options;
  options.mappings.push_back({"window", "window-v2"});
  options.uid_prefix_rewrites.push_back({"win", "v2-win"});
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(RemapResult r, Remap(base::Fs::Default(), src, tmp.Sub("out"), options));
  bool renamed = false;
  for (const auto& e : r.operators) {
    if (e.old_id_hex == old_id) {
      renamed = e.action == RemapAction::kRename &&
                e.new_id_hex == OperatorId::FromUid("window-v2").ToHex();
    }
  }
  EXPECT_TRUE(renamed);
  // v4 stores no uids: the prefix rewrite cannot match, and the plan says why.
  bool warned = false;
  for (const auto& w : r.warnings) warned |= w.find("stores no uids") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_EQ(r.unmatched, std::vector<std::string>{"--uid-prefix win=v2-win"});
}

TEST(FlinkRemapTest, AnExistingOutputIsNeverOverwritten) {
  TempDir tmp;
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("out")));
  RemapOptions options;
  options.uid_prefix_rewrites.push_back({"win", "v2-win"});
  ASSERT_STATUS(
      Remap(base::Fs::Default(), Fixture("complexKeyed-flink2.0"), tmp.Sub("out"), options)
          .status(),
      kAlreadyExists, "out");
}

TEST(FlinkRemapTest, CliRemapsAFlinkSavepoint) {
  TempDir tmp;
  auto dry = testing::RunTool({"remap", Fixture("complexKeyed-flink2.0"), "--to", tmp.Sub("out"),
                               "--uid-prefix", "win=v2-win", "--dry-run"},
                              tmp.path());
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find(OperatorId::FromUid("v2-window").ToHex()), std::string::npos) << dry.out;
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("out")));
  auto run = testing::RunTool({"remap", Fixture("complexKeyed-flink2.0"), "--to", tmp.Sub("out"),
                               "--uid-prefix", "win=v2-win"},
                              tmp.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  auto ls = testing::RunTool({"ls", tmp.Sub("out"), "--format", "json"}, tmp.path());
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_NE(ls.out.find("v2-window"), std::string::npos) << ls.out;
}

// The input is never modified: an output at or inside the Flink savepoint is refused.
TEST(FlinkRemapTest, RefusesAnOutputInsideItsInput) {
  TempDir tmp;
  const std::string sp = tmp.Sub("sp");
  testing::CopyTree(Fixture("complexKeyed-flink2.0"), sp);
  const flink::Metadata md = Read(sp);
  ASSERT_FALSE(md.operators.empty());
  RemapOptions o;
  o.mappings = {{md.operators[0].IdHex(), "renamed-uid"}};
  const auto before = Tree(sp);
  for (const std::string& out : {sp, sp + "/out", sp + "/../sp/out"}) {
    SCOPED_TRACE(out);
    ASSERT_STATUS(Remap(base::Fs::Default(), sp, out, o), kInvalidArgument,
                  "refusing to write the output " + out);
  }
  auto cli = testing::RunTool(
      {"remap", "sp", "--to", "sp/out", "--map", md.operators[0].IdHex() + "=renamed-uid"},
      tmp.path());
  EXPECT_EQ(cli.exit_code, 2) << cli.out << cli.err;
  EXPECT_NE(cli.err.find("inside the input"), std::string::npos) << cli.err;
  EXPECT_EQ(Tree(sp), before);
}

}  // namespace
}  // namespace ckpt::ops
