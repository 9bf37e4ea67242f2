// RocksDB's own tools (Debian's rocksdb-tools) accept what the RocksDB backend writes: every SST
// file of a native savepoint passes `sst_dump --command=check` and `sst_dump --command=verify`,
// and `ldb` over a scratch copy of the savepoint's instance (the files under their local names)
// lists every state's column family, passes `checkconsistency`, scans exactly the value state's
// entries and dumps the list state's. The savepoint itself is never opened by the tools.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ckpt/engine/checkpoint/checkpoint_options.h"
#include "ckpt/engine/checkpoint/operator_snapshot.h"
#include "ckpt/engine/state/rocksdb_keyed_state_backend.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

namespace types = format::types;
using format::Value;

// Runs `cmd` and returns its exit status and stdout.
int RunCommand(const std::string& cmd, std::string* out) {
  out->clear();
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out->append(buf, n);
  return pclose(p);
}

size_t CountLines(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = s.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
  return n;
}

TEST(RocksDbToolsTest, SstDumpAndLdbAcceptEveryFileOfANativeSavepoint) {
  ckpt::testing::TempDir tmp;
  RocksDbBackendOptions ro;
  ro.local_dir = tmp.Sub("local");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<RocksDbKeyedStateBackend> b,
                       RocksDbKeyedStateBackend::Open(128, {0, 127}, "t", ro));
  ASSERT_OK_AND_ASSIGN(ValueState v, b->GetValueState(ValueStateDescriptor("v", types::Int64())));
  ASSERT_OK_AND_ASSIGN(ListState l, b->GetListState(ListStateDescriptor("l", types::String())));
  constexpr int64_t kKeys = 3000;
  for (int64_t k = 0; k < kKeys; ++k) {
    ASSERT_OK(b->SetCurrentKey(Value(k)));
    ASSERT_OK(v.Update(Value(k)));
    ASSERT_OK(l.Add(Value("x" + std::to_string(k))));
    if (k == kKeys / 2) ASSERT_OK(b->CompactAll());  // several SSTs, some compacted
  }
  CheckpointOptions o;
  o.checkpoint_id = 1;
  o.kind = pb::SAVEPOINT;
  o.savepoint_format = pb::NATIVE;
  o.post_action = pb::POST_ACTION_NONE;
  o.snapshot_dir = tmp.Sub("savepoint-1");
  ASSERT_OK(base::Fs::Default().CreateDirs(o.snapshot_dir));
  ASSERT_OK(base::Fs::Default().CreateDirs(tmp.Sub("scratch")));
  ASSERT_OK_AND_ASSIGN(OperatorSnapshot snap,
                       TakeOperatorSnapshot(o, format::OperatorId::FromUid("op"), 0, b.get(),
                                            nullptr, {}));
  ASSERT_OK_AND_ASSIGN(OperatorSubtaskState st,
                       WriteOperatorSnapshot(base::Fs::Default(), o, snap));
  ASSERT_GE(st.subtask.keyed_state_size(), 1);
  ASSERT_TRUE(st.subtask.keyed_state(0).has_rocksdb());
  const pb::RocksDbStateHandle& h = st.subtask.keyed_state(0).rocksdb();

  // The instance under its local names in a scratch directory (ldb may write a LOG file).
  const std::string scratch = tmp.Sub("scratch");
  std::vector<const pb::RocksDbFile*> files;
  for (const auto& f : h.sst_files()) files.push_back(&f);
  for (const auto& f : h.meta_files()) files.push_back(&f);
  int ssts = 0;
  std::string out;
  for (const pb::RocksDbFile* f : files) {
    const pb::FileEntry& e = st.files[f->file_index()];
    ASSERT_EQ(e.scope(), pb::EXCLUSIVE) << e.path();
    const std::string src = base::JoinPath(o.snapshot_dir, e.path());
    ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(base::Fs::Default(), src));
    ASSERT_OK(base::WriteFileAtomic(base::Fs::Default(), base::JoinPath(scratch, f->local_name()),
                                    bytes));
    if (e.kind() != pb::ROCKSDB_SST) continue;
    ++ssts;
    for (const char* command : {"check", "verify"}) {
      const std::string cmd = "sst_dump --file=" + src + " --command=" + command;
      EXPECT_EQ(RunCommand(cmd, &out), 0) << cmd << "\n" << out;
    }
  }
  EXPECT_GT(ssts, 1);

  const std::string db = "ldb --db=" + scratch + " --try_load_options=false";
  ASSERT_EQ(RunCommand(db + " list_column_families", &out), 0) << out;
  EXPECT_NE(out.find("v"), std::string::npos) << out;
  EXPECT_NE(out.find("l"), std::string::npos) << out;
  EXPECT_EQ(RunCommand(db + " checkconsistency", &out), 0) << out;
  EXPECT_NE(out.find("OK"), std::string::npos) << out;
  // Value state: one live entry per key. List state holds merge operands (the backend's own
  // append operator, which ldb does not have): its internal entries are dumped unresolved.
  ASSERT_EQ(RunCommand(db + " --column_family=v --hex scan", &out), 0) << out;
  EXPECT_EQ(CountLines(out, " : "), static_cast<size_t>(kKeys)) << out.substr(0, 500);
  ASSERT_EQ(RunCommand(db + " --column_family=l --hex idump", &out), 0) << out;
  EXPECT_GE(CountLines(out, "=>"), static_cast<size_t>(kKeys));
}

}  // namespace
}  // namespace ckpt::engine
