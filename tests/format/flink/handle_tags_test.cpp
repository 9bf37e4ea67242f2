// ParseFlinkMetadata over hand-built `_metadata` bytes for what the real fixtures do not hold:
// changelog handles (8/14 with increments 9/10/13), legacy tags 3/5, file-merging handles
// (15/16/17), channel state v1 and v2 (merged), v7 refCheckpointId, finished subtasks, absolute
// file handles; and the hostile-input rules (counts bounded by the file, escaping paths, every
// error naming the file and the byte offset).
#include <gtest/gtest.h>

#include <string>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/testing/gtest_util.h"

namespace ckpt::flink {
namespace {

// A Java DataOutputStream in miniature.
class Out {
 public:
  Out& I8(int v) { s_.push_back(static_cast<char>(v)); return *this; }
  Out& I16(int v) { I8(v >> 8); return I8(v & 0xff); }
  Out& I32(int64_t v) { for (int i = 3; i >= 0; --i) I8(static_cast<int>((v >> (8 * i)) & 0xff)); return *this; }
  Out& I64(int64_t v) { for (int i = 7; i >= 0; --i) I8(static_cast<int>((v >> (8 * i)) & 0xff)); return *this; }
  Out& Utf(const std::string& t) { I16(static_cast<int>(t.size())); s_ += t; return *this; }
  Out& Raw(const std::string& t) { s_ += t; return *this; }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

Out Header(int version, int64_t checkpoint_id = 7) {
  Out o;
  o.I32(0x4960672D).I32(version).I64(checkpoint_id).I32(0);  // no master states
  return o;
}

void OperatorHead(Out& o, int version, int parallelism, int max_parallelism) {
  if (version >= 5) o.Utf("op-name").Utf("op-uid");
  o.I64(0x0102030405060708).I64(0x090a0b0c0d0e0f10).I32(parallelism).I32(max_parallelism);
  if (version >= 3) o.I8(0);  // no coordinator state
}

void RelativeStream(Out& o, const std::string& path, int64_t size) { o.I8(6).Utf(path).I64(size); }

TEST(FlinkHandleTagsTest, ReadsChangelogHandlesWithEveryIncrementKind) {
  for (int tag : {8, 14}) {
    SCOPED_TRACE(tag);
    Out o = Header(6);
    o.I32(1);
    OperatorHead(o, 6, 1, 128);
    o.I32(1).I32(0);        // one subtask, index 0
    o.I32(0).I32(0);        // no operator state
    o.I8(tag).I32(0).I32(128).I64(4096);
    o.I32(1);               // one materialized handle: RocksDB incremental (tag 5, legacy)
    o.I8(5).I64(3).Utf("backend-1").I32(0).I32(128);
    RelativeStream(o, "meta", 10);
    o.I32(1).Utf("000010.sst");
    RelativeStream(o, "sst-1", 100);
    o.I32(0);               // no private files
    o.I32(3);               // three increments
    o.I8(9).I32(0).I32(128).I64(1).I64(2).I32(1).I32(5).I32(3).Raw("abc").Utf("inc-9");
    o.I8(10).I32(0).I32(128).I32(1).I64(16);
    o.I8(2).I64(50).Utf("file:/abs/changelog-1");
    o.I64(50).I64(50).Utf("inc-10");
    o.I8(13).I32(0).I32(128).I32(0).I64(0).I64(0).Utf("inc-13").Utf("memory");
    o.I64(11);              // materialization id
    if (tag == 14) o.I64(12);
    o.Utf("changelog-id");
    o.I8(0);                // raw keyed: null
    o.I32(0).I32(0);        // no channel state
    ASSERT_OK_AND_ASSIGN(Metadata md, ParseFlinkMetadata(o.str(), "mem/_metadata"));
    ASSERT_EQ(md.operators.size(), 1u);
    const KeyedHandle& h = md.operators[0].subtasks[0].managed_keyed;
    EXPECT_EQ(static_cast<int>(h.tag), tag);
    EXPECT_EQ(h.materialization_id, 11);
    EXPECT_EQ(h.checkpoint_id, tag == 14 ? 12 : 11);
    ASSERT_EQ(h.materialized.size(), 1u);
    EXPECT_EQ(h.materialized[0].tag, KeyedHandle::Tag::kIncremental);
    EXPECT_EQ(h.materialized[0].checkpointed_size, -1);
    ASSERT_EQ(h.materialized[0].shared_files.size(), 1u);
    EXPECT_EQ(h.materialized[0].shared_files[0].local_path, "000010.sst");
    ASSERT_EQ(h.non_materialized.size(), 3u);
    ASSERT_EQ(h.non_materialized[0].changes.size(), 1u);
    EXPECT_EQ(h.non_materialized[0].changes[0].bytes, "abc");
    ASSERT_EQ(h.non_materialized[1].handles_and_offsets.size(), 1u);
    EXPECT_EQ(h.non_materialized[1].handles_and_offsets[0].first, 16);
    EXPECT_EQ(h.non_materialized[1].storage_identifier, "filesystem");
    EXPECT_EQ(h.non_materialized[2].storage_identifier, "memory");
    md.dir = "/snap";
    ASSERT_OK_AND_ASSIGN(std::string local,
                         LocalPath(md, h.non_materialized[1].handles_and_offsets[0].second));
    EXPECT_EQ(local, "/abs/changelog-1");
  }
}

TEST(FlinkHandleTagsTest, ReadsFileMergingSegmentsAndLegacyKeyGroups) {
  Out o = Header(5);
  o.I32(1);
  OperatorHead(o, 5, 2, 4);
  o.I32(2);
  o.I32(0).I32(1);                       // subtask 0: managed operator state, tag 17
  o.I8(17).I32(1).Utf("offsets").I8(2).I32(1).I64(0);
  o.Utf("taskowned/x").Utf("shared/y").I8(0);
  o.I8(15).I64(128).I64(64).I32(1).Utf("/ck/shared/merged-1").Utf("logical-1");
  o.I32(0);
  o.I8(3).I32(0).I32(2).I64(10).I64(20);  // legacy key groups with a nested tag-3 stream
  o.I8(3).I32(0).I32(2).I64(0).I64(0).I8(16);
  o.I8(0);
  o.I32(0).I32(0);
  o.I32(-2);                              // subtask 1 FINISHED
  ASSERT_OK_AND_ASSIGN(Metadata md, ParseFlinkMetadata(o.str(), "mem/_metadata"));
  const OperatorState& op = md.operators[0];
  EXPECT_EQ(op.name, "op-name");
  EXPECT_EQ(op.uid, "op-uid");
  EXPECT_EQ(op.IdHex(), "0102030405060708090a0b0c0d0e0f10");
  ASSERT_EQ(op.finished_subtasks.size(), 1u);
  EXPECT_EQ(op.finished_subtasks[0], 1);
  const SubtaskState& st = op.subtasks[0];
  ASSERT_TRUE(st.managed_operator.has_value());
  EXPECT_EQ(st.managed_operator->tag, 17);
  EXPECT_EQ(st.managed_operator->states[0].mode, DistributionMode::kBroadcast);
  EXPECT_EQ(st.managed_operator->delegate.type, StreamHandle::Type::kSegmentFile);
  EXPECT_EQ(st.managed_operator->delegate.start_pos, 128);
  EXPECT_EQ(st.managed_operator->delegate.logical_file_id, "logical-1");
  EXPECT_EQ(st.managed_keyed.tag, KeyedHandle::Tag::kKeyGroups);
  EXPECT_EQ(st.managed_keyed.key_groups->offsets[1], 20);
  EXPECT_EQ(st.managed_keyed.key_groups->delegate.type, StreamHandle::Type::kKeyGroups);
  EXPECT_EQ(st.managed_keyed.key_groups->delegate.nested->delegate.type,
            StreamHandle::Type::kEmptySegment);
}

TEST(FlinkHandleTagsTest, ReadsChannelStateV1AndV2AndRefCheckpointId) {
  for (int version : {4, 6, 7}) {
    SCOPED_TRACE(version);
    Out o = Header(version);
    o.I32(1);
    OperatorHead(o, version, 1, 128);
    o.I32(1).I32(0);
    o.I32(0).I32(0).I8(0).I8(0);
    o.I32(1);                                  // one input channel
    if (version >= 6) o.I8(1);
    o.I32(0).I32(1).I32(2).I32(2).I64(0).I64(40).I64(80);
    RelativeStream(o, "channel-0", 80);
    o.I32(1);                                  // one result subpartition
    if (version >= 6) {
      o.I8(4).I32(0).I64(33);
      RelativeStream(o, "channel-1", 33);
      o.I32(2).Raw("\x01\x02");
    } else {
      o.I32(0).I32(3).I32(4).I32(0).I64(0);
      RelativeStream(o, "channel-1", 0);
    }
    if (version >= 7) o.I8(1).I64(5);
    if (version >= 4) o.Raw(std::string("\xAC\xED\x00\x05\x70", 5));  // TC_NULL: no properties
    ASSERT_OK_AND_ASSIGN(Metadata md, ParseFlinkMetadata(o.str(), "mem/_metadata"));
    const SubtaskState& st = md.operators[0].subtasks[0];
    ASSERT_EQ(st.input_channels.size(), 1u);
    EXPECT_EQ(st.input_channels[0].gate_or_partition, 1);
    EXPECT_EQ(st.input_channels[0].channel_or_subpartition, 2);
    EXPECT_EQ(st.input_channels[0].offsets.size(), 2u);
    ASSERT_EQ(st.result_subpartitions.size(), 1u);
    EXPECT_EQ(st.result_subpartitions[0].merged, version >= 6);
    if (version >= 7) {
      ASSERT_TRUE(st.ref_checkpoint_id.has_value());
      EXPECT_EQ(*st.ref_checkpoint_id, 5);
    }
    EXPECT_FALSE(md.properties.has_value());
    EXPECT_NE(md.properties_error.find("not CheckpointProperties"), std::string::npos)
        << md.properties_error;
  }
}

TEST(FlinkHandleTagsTest, RejectsVersionOneAndUnknownVersions) {
  ASSERT_STATUS(ParseFlinkMetadata(Header(1).str(), "mem/_metadata"), kUnimplemented,
                "Flink 1.1/1.2 savepoint, not supported");
  ASSERT_STATUS(ParseFlinkMetadata(Header(8).str(), "mem/_metadata"), kUnimplemented,
                "unknown Flink metadata version 8");
}

TEST(FlinkHandleTagsTest, HostileCountsAndPathsAreCorruptionNamingFileAndOffset) {
  // A count that the file cannot hold never allocates.
  Out huge = Header(3);
  huge.I32(0x7fffffff);
  ASSERT_STATUS(ParseFlinkMetadata(huge.str(), "mem/_metadata"), kCorruption,
                "mem/_metadata: at byte 20: operator state count 2147483647 cannot fit");
  // An escaping relative path.
  for (const std::string bad : {"../x", "/etc/passwd", "a/../../b", "a//b", "hdfs://x"}) {
    SCOPED_TRACE(bad);
    Out o = Header(3);
    o.I32(1);
    OperatorHead(o, 3, 1, 128);
    o.I32(1).I32(0).I32(0).I32(0);
    o.I8(12).I32(0).I32(1).I64(0);
    RelativeStream(o, bad, 1);
    ASSERT_STATUS(ParseFlinkMetadata(o.str(), "mem/_metadata"), kCorruption, "may not escape");
  }
  // Unknown tags name their offset.
  Out tag = Header(3);
  tag.I32(1);
  OperatorHead(tag, 3, 1, 128);
  tag.I32(1).I32(0).I32(0).I32(0).I8(99);
  ASSERT_STATUS(ParseFlinkMetadata(tag.str(), "mem/_metadata"), kCorruption,
                "keyed state handle tag 99");
  // Every prefix of a valid file fails cleanly, naming the file.
  Out ok = Header(3);
  ok.I32(1);
  OperatorHead(ok, 3, 1, 128);
  ok.I32(1).I32(0).I32(0).I32(0);
  ok.I8(12).I32(0).I32(1).I64(0);
  RelativeStream(ok, "state", 1);
  ok.Utf("handle-id").I8(0).I32(0).I32(0);
  ASSERT_OK(ParseFlinkMetadata(ok.str(), "mem/_metadata"));
  for (size_t n = 0; n < ok.str().size(); ++n) {
    auto r = ParseFlinkMetadata(ok.str().substr(0, n), "mem/_metadata");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.status().message().find("mem/_metadata: at byte "), std::string::npos)
        << r.status().ToString();
  }
  // v2/v3 files end after the operators.
  ASSERT_STATUS(ParseFlinkMetadata(ok.str() + "x", "mem/_metadata"), kCorruption, "trailing garbage");
}

TEST(FlinkHandleTagsTest, DecodesModifiedUtf8) {
  std::string out;
  ASSERT_TRUE(ModifiedUtf8ToUtf8(std::string("a\xC0\x80" "b", 4), &out));
  EXPECT_EQ(out, std::string("a\0b", 3));
  // U+1F600 as a surrogate pair of two 3-byte sequences.
  ASSERT_TRUE(ModifiedUtf8ToUtf8("\xED\xA0\xBD\xED\xB8\x80", &out));
  EXPECT_EQ(out, "\xF0\x9F\x98\x80");
  EXPECT_FALSE(ModifiedUtf8ToUtf8(std::string("\0", 1), &out));
  EXPECT_FALSE(ModifiedUtf8ToUtf8("\xC3", &out));
}

}  // namespace
}  // namespace ckpt::flink
