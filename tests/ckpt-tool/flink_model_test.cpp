// The plain model of an Apache Flink snapshot is built straight from flink::Metadata
// (ops/src/formats/flink/model.cpp), and the protobuf that dump, validate and show --format json read is
// translated from the same metadata on first use (ops/src/formats/flink/translate.cpp). These tests hold
// the two to one model: the model equals what BuildSnapshotModel makes of the protobuf, for every
// fixture and for hand-built metadata with every handle kind the fixtures lack; and a model built
// from a streamed parse (LoadSnapshot) equals one built from decoded metadata.
#include "formats/flink/model.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

using testing::FixturePath;
using testing::TempDir;

// Every field of the model, one line per value, so a mismatch names the first differing line.
std::vector<std::string> Describe(const Snapshot& s) {
  std::vector<std::string> out;
  auto line = [&out](const std::ostringstream& o) { out.push_back(o.str()); };
  std::ostringstream o;
  o << "snapshot " << s.dir << " " << s.metadata_path << " " << s.metadata_size_bytes << " v"
    << s.format_version << " " << s.engine_name << "/" << s.engine_version << " job "
    << s.job_id_hex << " '" << s.job_name << "' id " << s.checkpoint_id << " kind "
    << SnapshotKindName(s.kind) << " " << SavepointFormatName(s.savepoint_format) << " "
    << CheckpointTypeName(s.checkpoint_type) << " " << PostActionName(s.post_action) << " "
    << CheckpointingModeName(s.mode) << " " << RetentionPolicyName(s.retention) << " restored "
    << s.restored_from.has_value() << " ts " << s.trigger_timestamp_ms << " "
    << s.completion_timestamp_ms << " sizes " << s.total_file_bytes << " " << s.full_size_bytes
    << " " << s.checkpointed_size_bytes << " inline " << s.inline_state_bytes;
  line(o);
  for (const auto& f : s.files) {
    std::ostringstream l;
    l << "file " << f.index << " " << f.path << " -> " << f.resolved_path << " err '"
      << f.resolve_error << "' link " << f.link_in_path << " " << FileScopeName(f.scope) << " "
      << FileKindName(f.kind) << " " << f.size_bytes << " " << f.checksum_xxh3 << " '"
      << f.compression << "' by " << f.created_by_checkpoint_id << " metadata " << f.is_metadata;
    line(l);
  }
  for (const auto& op : s.operators) {
    std::ostringstream l;
    l << "operator " << op.id_hex << " uid '" << op.uid << "' name '" << op.name << "' kind '"
      << op.kind << "' spec '" << op.spec_id << "' p " << op.parallelism << "/"
      << op.max_parallelism << " chain " << op.chain_index << "." << op.position_in_chain
      << " graph " << op.in_job_graph << " state " << op.has_state << " finished "
      << op.fully_finished << " bytes " << op.total_bytes << " " << op.checkpointed_bytes;
    if (op.coordinator) {
      l << " coordinator " << op.coordinator->is_inline << " "
        << (op.coordinator->file_index ? static_cast<int64_t>(*op.coordinator->file_index) : -1)
        << " " << op.coordinator->size_bytes << " '" << op.coordinator->type << "'";
    }
    line(l);
    for (const auto& st : op.states) {
      std::ostringstream m;
      m << "  state " << st.name << " " << StateKindName(st.kind) << " keyed " << st.keyed
        << " types '" << st.key_type << "' '" << st.namespace_type << "' '" << st.user_key_type
        << "' '" << st.value_type << "' v" << st.serializer_version << " '" << st.timer_domain
        << "'";
      line(m);
    }
    for (const auto& st : op.subtasks) {
      std::ostringstream m;
      m << "  subtask " << st.index << " finished " << st.finished << " bytes " << st.state_bytes
        << " committables " << st.committables.size() << " metrics " << st.metrics.state_size << " "
        << st.metrics.unaligned_checkpoint;
      for (const auto& k : st.keyed) {
        m << " | keyed " << KeyedHandleKindName(k.kind) << " " << k.key_group_start << "-"
          << k.key_group_end << " backend '" << k.backend_id << "' mat " << k.materialization_id
          << " segs " << k.changelog_segments << " size " << k.size_bytes << " inline "
          << k.inline_bytes << " records "
          << k.key_group_records.size() << " files";
        for (uint32_t f : k.file_indexes) m << " " << f;
      }
      for (const auto& h : st.operator_state) {
        m << " | op-state " << h.file_index << " inline " << h.inline_bytes;
        for (const auto& p : h.partitions) {
          m << " " << p.state_name << ":" << StateKindName(p.distribution) << ":" << p.entry_count;
        }
      }
      for (const auto& c : st.channels) {
        m << " | channel " << c.input << " " << c.gate_or_partition << "."
          << c.channel_or_subpartition << " buffers " << c.buffer_count << " size " << c.size_bytes
          << " inline " << c.inline_bytes << " files";
        for (uint32_t f : c.file_indexes) m << " " << f;
      }
      line(m);
    }
  }
  std::ostringstream m;
  m << "metrics " << s.metrics.num_subtasks << " " << s.metrics.is_unaligned << " "
    << s.metrics.state_size << " " << s.metrics.end_to_end_duration << " edges " << s.edges.size();
  line(m);
  for (const auto& [k, v] : s.properties) out.push_back("property " + k + "=" + v);
  return out;
}

// What the model of `s` is through its protobuf: BuildSnapshotModel of RawMetadata, plus what
// Flink keeps outside the protobuf (names and uids, `_metadata`'s size and which handles keep
// how many bytes inline in it, the keyed state types read from the state files), with the sizes
// computed again over those.
Snapshot ThroughProto(const Snapshot& s) {
  Snapshot ref = BuildSnapshotModel(RawMetadata(s), s.dir, s.metadata_path);
  ref.metadata_size_bytes = s.metadata_size_bytes;
  for (size_t i = 0; i < ref.files.size() && i < s.files.size(); ++i) {
    ref.files[i].is_metadata = s.files[i].is_metadata;
  }
  for (size_t o = 0; o < ref.operators.size() && o < s.operators.size(); ++o) {
    auto& subtasks = ref.operators[o].subtasks;
    const auto& mine = s.operators[o].subtasks;
    for (size_t t = 0; t < subtasks.size() && t < mine.size(); ++t) {
      for (size_t k = 0; k < subtasks[t].keyed.size() && k < mine[t].keyed.size(); ++k) {
        subtasks[t].keyed[k].inline_bytes = mine[t].keyed[k].inline_bytes;
      }
      for (size_t h = 0; h < subtasks[t].operator_state.size() && h < mine[t].operator_state.size();
           ++h) {
        subtasks[t].operator_state[h].inline_bytes = mine[t].operator_state[h].inline_bytes;
      }
      for (size_t c = 0; c < subtasks[t].channels.size() && c < mine[t].channels.size(); ++c) {
        subtasks[t].channels[c].inline_bytes = mine[t].channels[c].inline_bytes;
      }
    }
  }
  ComputeModelSizes(&ref);
  const flink::Metadata* md = internal::FlinkMetadataOf(s);
  for (auto& op : ref.operators) {
    for (const auto& fo : md->operators) {
      if (fo.IdHex() == op.id_hex) {
        op.uid = fo.uid;
        op.name = fo.name;
      }
    }
    const OperatorInfo* mine = nullptr;
    for (const auto& o : s.operators) {
      if (o.id_hex == op.id_hex) mine = &o;
    }
    if (mine == nullptr || mine->states.size() != op.states.size()) continue;
    for (size_t i = 0; i < op.states.size(); ++i) {
      op.states[i].key_type = mine->states[i].key_type;
      op.states[i].namespace_type = mine->states[i].namespace_type;
      op.states[i].user_key_type = mine->states[i].user_key_type;
      op.states[i].value_type = mine->states[i].value_type;
    }
  }
  return ref;
}

void ExpectSameModel(const Snapshot& s) {
  const std::vector<std::string> got = Describe(s);
  const std::vector<std::string> want = Describe(ThroughProto(s));
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    ASSERT_EQ(got[i], want[i]) << "line " << i;
  }
  ASSERT_EQ(got.size(), want.size());
}

TEST(FlinkModelTest, EveryFixtureMatchesTheModelOfItsProtobuf) {
  const std::vector<std::string> fixtures = testing::FlinkFixtureNames();
  ASSERT_GE(fixtures.size(), 13u);  // fixtures/flink/README.md lists 13
  for (const std::string& f : fixtures) {
    SCOPED_TRACE(f);
    for (bool state_meta : {true, false}) {
      ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), FixturePath("flink/" + f),
                                                    LoadOptions{.state_meta = state_meta, .uids = {}}));
      ASSERT_NE(internal::FlinkMetadataOf(s), nullptr);
      ExpectSameModel(s);
      // LoadSnapshot streams the operators into the model; from decoded metadata it is the same.
      const std::string dir = FixturePath("flink/" + f);
      ASSERT_OK_AND_ASSIGN(flink::Metadata md,
                           flink::ReadFlinkMetadata(base::Fs::Default(), dir + "/_metadata"));
      EXPECT_EQ(Describe(s), Describe(internal::BuildFlinkSnapshotModel(
                                 base::Fs::Default(), std::move(md), dir, state_meta)));
      // And the Flink metadata it decodes again on first use is what the reader makes.
      ASSERT_OK_AND_ASSIGN(flink::Metadata again,
                           flink::ReadFlinkMetadata(base::Fs::Default(), dir + "/_metadata"));
      EXPECT_EQ(internal::FlinkMetadataOf(s)->operators.size(), again.operators.size());
      EXPECT_EQ(internal::FlinkMetadataOf(s)->dir, again.dir);
      EXPECT_EQ(internal::FlinkMetadataOf(s)->size_bytes, again.size_bytes);
    }
  }
}

flink::StreamHandle Relative(const std::string& path, int64_t size) {
  flink::StreamHandle h;
  h.type = flink::StreamHandle::Type::kRelativeFile;
  h.path = path;
  h.size = size;
  return h;
}

flink::StreamHandle Absolute(const std::string& path, int64_t size) {
  flink::StreamHandle h;
  h.type = flink::StreamHandle::Type::kFile;
  h.path = path;
  h.size = size;
  return h;
}

flink::StreamHandle Inline(const std::string& data) {
  flink::StreamHandle h;
  h.type = flink::StreamHandle::Type::kByteStream;
  h.data = data;
  h.size = static_cast<int64_t>(data.size());
  return h;
}

flink::KeyedHandle KeyGroups(flink::KeyedHandle::Tag tag, int32_t start, int32_t count,
                             flink::StreamHandle delegate) {
  auto kg = std::make_shared<flink::KeyGroupsHandle>();
  kg->start = start;
  kg->count = count;
  kg->offsets.assign(static_cast<size_t>(count), 0);
  kg->delegate = std::move(delegate);
  flink::KeyedHandle h;
  h.tag = tag;
  h.kg_start = start;
  h.kg_count = count;
  h.key_groups = kg;
  return h;
}

flink::KeyedHandle Incremental(const std::string& job_dir, const std::string& dir) {
  flink::KeyedHandle h;
  h.tag = flink::KeyedHandle::Tag::kIncrementalV2;
  h.kg_start = 64;
  h.kg_count = 64;
  h.backend_id = "backend-1";
  h.meta = Relative("rocks-meta", 30);
  h.shared_files = {{"000010.sst", Absolute(job_dir + "/shared/sst-10", 500)},
                    {"000011.sst", Absolute("file://" + job_dir + "/taskowned/sst-11", 70)}};
  h.private_files = {{"MANIFEST-000004", Absolute(dir + "/manifest", 20)},
                     {"OPTIONS", Absolute("/elsewhere/options", 9)}};
  return h;
}

// One of each: key-group handles (tags 3 with a nested stream, 7, 12), RocksDB handles with
// shared, task-owned, exclusive and external files, changelog handles with materialized parts
// and every increment kind (inline, file, a file on a remote file system), file-merging
// segments, operator state of every distribution mode with inline and file delegates, input
// and output channel state (plain and merged, one file shared by two subtasks), finished
// subtasks, a fully finished operator, coordinator state, an operator ID listed twice, and a
// changelog file longer on disk than its handles say.
flink::Metadata EveryHandleKind(const std::string& job_dir, const std::string& dir) {
  using Tag = flink::KeyedHandle::Tag;
  flink::Metadata md;
  md.path = dir + "/_metadata";
  md.dir = dir;
  md.size_bytes = 4321;
  md.version = 6;
  md.checkpoint_id = 9;
  md.master_states = {{1, "hook-a", ""}, {1, "hook-b", ""}};
  md.properties_error = "no checkpoint properties (the file ends after the operators)";

  flink::OperatorState a;
  a.name = "Source";
  a.uid = "source-uid";
  a.id[15] = 1;
  a.parallelism = 4;
  a.max_parallelism = 128;
  a.coordinator = Inline("coordinator-bytes");
  {
    flink::SubtaskState& st = a.subtasks.emplace_back();
    st.index = 1;
    st.managed_keyed = KeyGroups(Tag::kKeyGroupsV2, 32, 32, Relative("a-1-keyed", 100));
    flink::OperatorHandle& op = st.managed_operator.emplace();
    op.tag = 4;
    op.states = {{"offsets", flink::DistributionMode::kSplitDistribute, {0, 8, 16}},
                 {"union", flink::DistributionMode::kUnion, {24}}};
    op.delegate = Relative("a-1-op", 40);
    flink::OperatorHandle& raw = st.raw_operator.emplace();
    raw.tag = 4;
    raw.states = {{"rules", flink::DistributionMode::kBroadcast, {0}},
                  {"offsets", flink::DistributionMode::kUnion, {}}};
    raw.delegate = Inline("inline-operator-state");
    flink::ChannelHandle in;
    in.input = true;
    in.gate_or_partition = 1;
    in.channel_or_subpartition = 2;
    in.offsets = {0, 16, 32};
    in.state_size = 48;
    in.delegate = Absolute(dir + "/channel-1", 200);
    st.input_channels.push_back(in);
    flink::ChannelHandle out;
    out.input = false;
    out.merged = true;
    out.state_size = 12;
    out.delegate = Absolute(dir + "/channel-1", 200);
    st.result_subpartitions.push_back(out);
  }
  {
    flink::SubtaskState& st = a.subtasks.emplace_back();
    st.index = 0;
    flink::StreamHandle nested;
    nested.type = flink::StreamHandle::Type::kKeyGroups;
    nested.nested = KeyGroups(Tag::kKeyGroups, 0, 32, Relative("a-0-nested", 60)).key_groups;
    st.managed_keyed = KeyGroups(Tag::kKeyGroups, 0, 32, nested);
    st.raw_keyed = KeyGroups(Tag::kSavepointKeyGroups, 0, 32, Relative("a-0-raw", 10));
    flink::ChannelHandle in;
    in.input = true;
    in.state_size = 16;
    in.offsets = {0};
    in.delegate = Absolute(dir + "/channel-1", 200);
    st.input_channels.push_back(in);
  }
  a.finished_subtasks = {3};

  flink::OperatorState b;
  b.name = "Keyed";
  b.id[15] = 2;
  b.parallelism = 2;
  b.max_parallelism = 128;
  {
    flink::SubtaskState& st = b.subtasks.emplace_back();
    st.index = 0;
    flink::KeyedHandle cl;
    cl.tag = Tag::kChangelogV2;
    cl.kg_start = 0;
    cl.kg_count = 64;
    cl.materialization_id = 5;
    cl.materialized.push_back(Incremental(job_dir, dir));
    flink::KeyedHandle bytes;
    bytes.tag = Tag::kChangelogBytes;
    bytes.from_sequence = 1;
    bytes.to_sequence = 3;
    cl.non_materialized.push_back(bytes);
    flink::KeyedHandle file;
    file.tag = Tag::kChangelogFileV2;
    file.handles_and_offsets = {{0, Relative("dstl-1", 10)},
                                {10, Relative("dstl-1", 10)},
                                {0, Absolute("hdfs://namenode/dstl-remote", 5)}};
    cl.non_materialized.push_back(file);
    st.managed_keyed = cl;
    flink::OperatorHandle& op = st.managed_operator.emplace();
    op.tag = 17;
    op.states = {{"merged", flink::DistributionMode::kSplitDistribute, {0}}};
    op.delegate.type = flink::StreamHandle::Type::kSegmentFile;
    op.delegate.path = job_dir + "/shared/merged-1";
    op.delegate.start_pos = 100;
    op.delegate.size = 25;
  }
  {
    flink::SubtaskState& st = b.subtasks.emplace_back();
    st.index = 1;
    st.managed_keyed.tag = Tag::kChangelogFile;
    st.managed_keyed.kg_start = 64;
    st.managed_keyed.kg_count = 64;
    st.managed_keyed.handles_and_offsets = {{0, Relative("dstl-2", 7)}};
    st.raw_keyed = Incremental(job_dir, dir);
    flink::OperatorHandle& op = st.managed_operator.emplace();
    op.tag = 17;
    op.is_empty = true;
    op.delegate.type = flink::StreamHandle::Type::kEmptySegment;
  }

  flink::OperatorState finished;
  finished.id[15] = 3;
  finished.parallelism = 1;
  finished.max_parallelism = 1;
  finished.fully_finished = true;

  flink::OperatorState again = a;  // the same operator ID a second time
  again.name = "Source again";
  again.parallelism = 5;
  again.coordinator = flink::StreamHandle{};
  again.subtasks.resize(1);
  again.subtasks[0].index = 1;
  again.finished_subtasks.clear();

  md.operators = {a, b, finished, again};
  return md;
}

TEST(FlinkModelTest, EveryHandleKindMatchesTheModelOfItsProtobuf) {
  TempDir tmp;
  const std::string job_dir = tmp.Sub("0123456789abcdef0123456789abcdef");
  const std::string dir = job_dir + "/chk-9";
  auto& fs = base::Fs::Default();
  ASSERT_OK(fs.CreateDirs(dir));
  ASSERT_OK(base::WriteFileAtomic(fs, dir + "/dstl-1", std::string(50, 'x')));  // > 10 recorded
  for (bool state_meta : {true, false}) {
    SCOPED_TRACE(state_meta);
    Snapshot s =
        internal::BuildFlinkSnapshotModel(fs, EveryHandleKind(job_dir, dir), dir, state_meta);
    ExpectSameModel(s);
    // What the test data is for: each of these would be missed by a model without it.
    EXPECT_EQ(s.job_id_hex, "0123456789abcdef0123456789abcdef");
    EXPECT_EQ(s.kind, SnapshotKind::kSavepoint);  // tag 7 without properties
    EXPECT_TRUE(s.metrics.is_unaligned);
    EXPECT_EQ(s.metrics.num_subtasks, 6u);
    ASSERT_EQ(s.operators.size(), 3u);  // the repeated ID is one operator
    EXPECT_EQ(s.operators[0].name, "Source again");
    EXPECT_EQ(s.operators[0].subtasks.size(), 4u);
    bool dstl_grown = false, remote = false;
    for (const auto& f : s.files) {
      dstl_grown |= f.path == "dstl-1" && f.size_bytes == 50;
      remote |= f.scope == FileScope::kExternal && !f.resolve_error.empty();
    }
    EXPECT_TRUE(dstl_grown);
    EXPECT_TRUE(remote);
    EXPECT_FALSE(s.properties.empty());
  }
}

// ls needs no protobuf: a verb that reads the raw handles gets one made on first use, the same
// object however often (and from however many threads) it asks.
TEST(FlinkModelTest, ProtobufIsMadeOnceOnFirstUse) {
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       LoadSnapshot(base::Fs::Default(), FixturePath("flink/table-state")));
  const pb::CheckpointMetadata* first = &RawMetadata(s);
  EXPECT_EQ(first, &RawMetadata(s));
  EXPECT_EQ(static_cast<size_t>(first->operators_size()), s.operators.size());
  EXPECT_EQ(static_cast<size_t>(first->files_size()), s.files.size());
}

}  // namespace
}  // namespace ckpt::ops
