// The reference engine's channel state read as logical channels (FORMAT.md §8): a frame that
// begins in a consumer's input-channel state and ends in its producer's output-subpartition
// state is rejoined by dump (one record, under the input channel) and passes validate --deep,
// wherever the cut falls; a frame that no part completes is an error naming the channel-state
// file, the channel and the byte offset, in dump and validate alike.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/format/channel_layout.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/state_file_writer.h"
#include "ckpt/format/stream_element.h"
#include "ckpt/ops/dump.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/ops/validate.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "test_snapshots.h"

namespace ckpt::ops {
namespace {

// The channel-state file of testing::WriteUnalignedCheckpoint, rewritten with frames.
constexpr char kSplitChannelFile[] = "channel-state-0";

std::string SplitTestFrame(int64_t key, const std::string& value) {
  std::string element;
  format::AppendRecordElement(format::Value(key), format::Value(value),
                              format::kNoElementTimestamp, &element);
  std::string f;
  const uint32_t n = static_cast<uint32_t>(element.size());
  for (int i = 0; i < 4; ++i) f.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  return f + element;
}

// The counter checkpoint (numbers -> HASH -> counter, parallelism 2) rewritten as the reference
// engine's: one logical channel (numbers subtask 0 -> counter subtask 1) whose consumer persisted
// `input` buffers and whose producer persisted `output` buffers (none: no handle).
void WriteSplitChannelCheckpoint(const std::string& dir, const std::vector<std::string>& input,
                                 const std::vector<std::string>& output) {
  ASSERT_OK(testing::WriteUnalignedCheckpoint(dir));
  base::Fs& fs = base::Fs::Default();
  std::vector<std::pair<uint64_t, uint64_t>> in_slices, out_slices;
  format::StateFileWriterOptions wo;
  wo.kind = pb::CHANNEL_STATE;
  const std::string path = base::JoinPath(dir, kSplitChannelFile);
  ASSERT_OK(fs.RemoveFile(path));
  ASSERT_OK_AND_ASSIGN(auto w, format::StateFileWriter::Create(fs, path, wo));
  ASSERT_OK(w->BeginSection(0));
  for (const std::string& b : output) {
    ASSERT_OK_AND_ASSIGN(uint64_t off, w->Add(b));
    out_slices.emplace_back(off, w->logical_offset() - off);
  }
  ASSERT_OK(w->BeginSection(1));
  for (const std::string& b : input) {
    ASSERT_OK_AND_ASSIGN(uint64_t off, w->Add(b));
    in_slices.emplace_back(off, w->logical_offset() - off);
  }
  ASSERT_OK_AND_ASSIGN(format::StateFileSummary summary, w->Finish());
  ASSERT_OK(testing::RewriteMetadata(dir, [&](pb::CheckpointMetadata& m) {
    m.set_engine_name("ckpt-engine");
    uint32_t file = 0;
    while (file < static_cast<uint32_t>(m.files_size()) &&
           m.files(static_cast<int>(file)).path() != kSplitChannelFile) {
      ++file;
    }
    ASSERT_LT(file, static_cast<uint32_t>(m.files_size()));
    pb::FileEntry* e = m.mutable_files(static_cast<int>(file));
    e->set_size_bytes(summary.size_bytes);
    e->set_checksum_xxh3(summary.checksum_xxh3);
    e->set_compression(summary.compression);
    const format::ChannelLayout layout(m.job_graph());
    ASSERT_EQ(layout.edges().size(), 1u);
    const format::ChannelLayout::Edge& edge = layout.edges()[0];
    auto fill = [file](const std::vector<std::pair<uint64_t, uint64_t>>& slices,
                       google::protobuf::RepeatedPtrField<pb::FileSlice>* buffers) {
      uint64_t total = 0;
      for (const auto& [off, len] : slices) {
        pb::FileSlice* s = buffers->Add();
        s->set_file_index(file);
        s->set_offset(off);
        s->set_length(len);
        total += len;
      }
      return total;
    };
    for (pb::OperatorState& os : *m.mutable_operators()) {
      for (pb::SubtaskState& st : *os.mutable_subtasks()) {
        st.clear_input_channel_state();
        st.clear_output_channel_state();
        if (os.operator_id() == std::get<1>(edge.key) && st.subtask_index() == 1) {
          pb::InputChannelStateHandle* h = st.add_input_channel_state();
          h->set_gate_index(std::get<2>(edge.key));
          h->set_channel_index(*layout.ChannelOf(edge.key, 0, 1));
          h->set_size_bytes(fill(in_slices, h->mutable_buffers()));
        }
        if (os.operator_id() == std::get<0>(edge.key) && st.subtask_index() == 0 &&
            !out_slices.empty()) {
          pb::ResultSubpartitionStateHandle* h = st.add_output_channel_state();
          h->set_partition_index(edge.writer_index);
          h->set_subpartition_index(*layout.TargetOf(edge.key, 0, 1));
          h->set_size_bytes(fill(out_slices, h->mutable_buffers()));
        }
      }
    }
  }));
}

struct DumpedChannel {
  base::Status status;
  std::vector<DumpEntry> records;  // channel-record entries
};

DumpedChannel DumpChannelRecords(const std::string& dir) {
  DumpedChannel out;
  auto s = LoadSnapshot(base::Fs::Default(), dir);
  if (!s.ok()) {
    out.status = s.status();
    return out;
  }
  auto n = Dump(base::Fs::Default(), *s, DumpOptions{}, [&out](const DumpEntry& e) {
    if (e.source == "channel-record") out.records.push_back(e);
    return base::Status::OK();
  });
  out.status = n.status();
  return out;
}

std::vector<Finding> ChannelDecodeErrors(const std::string& dir) {
  ValidateOptions o;
  o.deep = true;
  auto r = Validate(base::Fs::Default(), dir, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<Finding> out;
  if (!r.ok()) return out;
  for (const Finding& f : r->findings) {
    if (f.severity == Severity::kError) out.push_back(f);
  }
  return out;
}

TEST(ChannelSplitFrameTest, FrameSplitAcrossInputAndOutputStateIsRejoinedByDumpAndValidate) {
  const std::string f1 = SplitTestFrame(1, "one");
  const std::string f2 = SplitTestFrame(2, std::string(200, 'x'));  // spans network buffers
  const std::string f3 = SplitTestFrame(3, "three");
  // Cuts inside f2's header, right after it, inside its element and on its last byte.
  for (size_t cut : {f1.size() + 2, f1.size() + 4, f1.size() + 60, f1.size() + f2.size() - 1}) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    testing::TempDir tmp;
    const std::string stream = f1 + f2 + f3;
    // The consumer holds f1 and f2's head in two buffers; the producer f2's tail and f3.
    const size_t half = (stream.size() - cut) / 2;
    WriteSplitChannelCheckpoint(tmp.path(), {f1, stream.substr(f1.size(), cut - f1.size())},
                                {stream.substr(cut, half), stream.substr(cut + half)});
    DumpedChannel d = DumpChannelRecords(tmp.path());
    ASSERT_OK(d.status);
    ASSERT_EQ(d.records.size(), 3u);
    std::map<std::string, DumpEntry> by_key;
    for (const DumpEntry& e : d.records) by_key[e.key_json] = e;
    ASSERT_EQ(by_key.size(), 3u);
    // f1 and f2 (whole) under the consumer's input channel, f2 from its second buffer on.
    EXPECT_EQ(by_key["1"].channel, "input 0/0");
    EXPECT_EQ(by_key["1"].subtask, std::optional<uint32_t>(1));
    EXPECT_EQ(by_key["2"].channel, "input 0/0");
    EXPECT_EQ(by_key["2"].subtask, std::optional<uint32_t>(1));
    EXPECT_EQ(by_key["2"].value_json, "\"" + std::string(200, 'x') + "\"");
    EXPECT_EQ(by_key["2"].buffer, std::optional<uint32_t>(1));
    // f3, the producer's first whole frame, under its output subpartition.
    EXPECT_EQ(by_key["3"].channel, "output 0/1");
    EXPECT_EQ(by_key["3"].subtask, std::optional<uint32_t>(0));
    EXPECT_EQ(by_key["3"].value_json, "\"three\"");
    const std::vector<Finding> errors = ChannelDecodeErrors(tmp.path());
    EXPECT_TRUE(errors.empty()) << errors.front().rule_id << " " << errors.front().message;
  }
}

TEST(ChannelSplitFrameTest, TruncatedFrameIsAnErrorNamingFileChannelAndOffset) {
  const std::string f1 = SplitTestFrame(1, "one");
  const std::string f2 = SplitTestFrame(2, std::string(200, 'x'));
  testing::TempDir tmp;
  // The consumer's part ends inside f2 and the producer persisted nothing to finish it.
  WriteSplitChannelCheckpoint(tmp.path(), {f1, f2.substr(0, 30)}, {});
  DumpedChannel d = DumpChannelRecords(tmp.path());
  EXPECT_EQ(d.status.code(), base::StatusCode::kCorruption) << d.status.ToString();
  const std::string& m = d.status.message();
  EXPECT_NE(m.find(kSplitChannelFile), std::string::npos) << m;
  EXPECT_NE(m.find("channel input 0/0"), std::string::npos) << m;
  EXPECT_NE(m.find("at byte " + std::to_string(f1.size()) + " of its in-flight data"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("end inside a frame"), std::string::npos) << m;

  const std::vector<Finding> errors = ChannelDecodeErrors(tmp.path());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rule_id, "CKPT-D001");
  EXPECT_EQ(errors[0].location.file, kSplitChannelFile);
  EXPECT_EQ(errors[0].location.subtask, std::optional<uint32_t>(1));
  EXPECT_NE(errors[0].message.find("channel input 0/0"), std::string::npos) << errors[0].message;
  EXPECT_NE(errors[0].message.find("at byte " + std::to_string(f1.size())), std::string::npos)
      << errors[0].message;
}

TEST(ChannelSplitFrameTest, OutputPartCompletingNoFrameStillEndsOnAFrameBoundary) {
  // The producer's part ends inside a frame: corrupt, named under the output subpartition.
  const std::string f1 = SplitTestFrame(1, "one");
  const std::string f2 = SplitTestFrame(2, "two");
  testing::TempDir tmp;
  WriteSplitChannelCheckpoint(tmp.path(), {f1}, {f2.substr(0, 5)});
  DumpedChannel d = DumpChannelRecords(tmp.path());
  EXPECT_EQ(d.status.code(), base::StatusCode::kCorruption) << d.status.ToString();
  EXPECT_NE(d.status.message().find("channel output 0/1"), std::string::npos)
      << d.status.message();
  EXPECT_NE(d.status.message().find("at byte 0 of its in-flight data"), std::string::npos)
      << d.status.message();
  EXPECT_EQ(ChannelDecodeErrors(tmp.path()).size(), 1u);
}

}  // namespace
}  // namespace ckpt::ops
