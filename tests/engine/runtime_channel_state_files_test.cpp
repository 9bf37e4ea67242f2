// ChannelStateFiles: the subtasks of one task share channel-state files by group (subtask / N),
// named by the task's head operator. Seven subtasks with N = 5 write exactly two files, each
// holding one section per contributing subtask; a group completes only when all its members
// contributed (and each member learns its own handles).
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "checkpoint/channel_state_writer.h"
#include "ckpt/base/fs.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::engine {
namespace {

CheckpointOptions Options(const ckpt::testing::TempDir& tmp) {
  CheckpointOptions o;
  o.checkpoint_id = 3;
  o.mode = pb::UNALIGNED;
  o.snapshot_dir = tmp.Sub("chk-3");
  return o;
}

TEST(ChannelStateFilesTest, SubtasksOfOneTaskShareAGroupPerFiveSubtasks) {
  ckpt::testing::TempDir tmp;
  base::Fs& fs = base::Fs::Default();
  ASSERT_OK(fs.CreateDirs(tmp.Sub("chk-3")));
  const CheckpointOptions options = Options(tmp);
  ChannelStateFiles files(5);
  const std::string op = "00112233445566778899aabbccddeeff";
  constexpr uint32_t kParallelism = 7;
  std::vector<std::shared_ptr<ChannelStateFileGroup>> groups;
  for (uint32_t s = 0; s < kParallelism; ++s) {
    groups.push_back(files.GroupFor(&fs, options, op, s, kParallelism));
  }
  for (uint32_t s = 1; s < 5; ++s) EXPECT_EQ(groups[s], groups[0]) << "subtask " << s;
  EXPECT_EQ(groups[6], groups[5]);
  EXPECT_NE(groups[5], groups[0]);
  EXPECT_EQ(groups[0]->file_name(), op + "-channel-state-0.state");
  EXPECT_EQ(groups[5]->file_name(), op + "-channel-state-1.state");
  // Another operator's subtasks never join these groups.
  EXPECT_NE(files.GroupFor(&fs, options, "ffeeddccbbaa99887766554433221100", 0, kParallelism),
            groups[0]);

  std::vector<std::string> payload(kParallelism);
  std::vector<int> done(kParallelism, 0);
  std::vector<uint64_t> persisted(kParallelism, 0);
  std::vector<std::string> file_of(kParallelism);
  for (uint32_t s = 0; s < kParallelism; ++s) {
    payload[s] = "in-flight bytes of subtask " + std::to_string(s);
    ChannelStateContribution c;
    c.subtask = s;
    ChannelStateChannel ch;
    ch.index_a = 0;
    ch.index_b = s % 3;
    ch.buffers.push_back(payload[s]);
    c.channels.push_back(ch);
    c.done = [&, s](base::Result<ChannelStateResult> r) {
      ASSERT_OK(r.status());
      ++done[s];
      persisted[s] = r->persisted_bytes;
      ASSERT_TRUE(r->file.has_value());
      file_of[s] = r->file->path();
      ASSERT_EQ(r->input.size(), 1u);
      EXPECT_EQ(r->input[0].channel_index(), s % 3);
    };
    // Until the last member of its group contributed, nobody of the group is done.
    groups[s]->Contribute(std::move(c));
    const bool group_complete = s == 4 || s == 6;
    EXPECT_EQ(done[s], group_complete ? 1 : 0) << "subtask " << s;
  }
  for (uint32_t s = 0; s < kParallelism; ++s) {
    EXPECT_EQ(done[s], 1) << "subtask " << s;
    EXPECT_EQ(persisted[s], payload[s].size());
    EXPECT_EQ(file_of[s], groups[s]->file_name());
  }
  base::Result<std::vector<base::DirEntry>> listed = fs.ListDir(tmp.Sub("chk-3"));
  ASSERT_OK(listed.status());
  EXPECT_EQ(listed->size(), 2u) << "7 subtasks, 5 per file: ceil(7/5) files";
}

}  // namespace
}  // namespace ckpt::engine
