// Reads every frozen fixture (fixtures/v1) and checks its content, and every corrupt fixture
// (fixtures/corrupt) for the documented status code and a message naming the file. The expected
// values are spelled out here independently of the generator (format/tools/fixture_gen.cpp).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ckpt/base/checksum.h"
#include "ckpt/base/endian.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/layout.h"
#include "ckpt/format/metadata_codec.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_codec.h"
#include "ckpt/format/value_json.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"

namespace ckpt::format {
namespace {

using testing::FixturePath;

base::Fs& Fs() { return base::Fs::Default(); }
const std::string kJob = "1a2b3c4d5e6f708192a3b4c5d6e7f801";

std::vector<RecordRef> ReadAll(const StateFileReader& reader, std::vector<std::string>* storage) {
  std::vector<RecordRef> out;
  auto it = reader.NewIterator();
  EXPECT_OK(it);
  if (!it.ok()) return out;
  RecordRef ref;
  while ((*it)->Next(&ref).ValueOr(false)) {
    storage->emplace_back(ref.bytes);
    out.push_back(ref);
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].bytes = (*storage)[i];
  return out;
}

// Whole-file size and XXH3 against the file table, then block checksums.
void VerifyAllFiles(const std::string& dir, const pb::CheckpointMetadata& m) {
  for (const auto& f : m.files()) {
    SCOPED_TRACE(f.path());
    ASSERT_OK_AND_ASSIGN(std::string path, ResolveFile(dir, f));
    ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(Fs(), path));
    EXPECT_EQ(bytes.size(), f.size_bytes());
    EXPECT_EQ(base::Xxh3(bytes), f.checksum_xxh3());
    ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(Fs(), path));
    EXPECT_EQ(reader->index().kind, f.kind());
    EXPECT_OK(reader->VerifyChecksums());
  }
}

const pb::OperatorState& OperatorByUid(const pb::CheckpointMetadata& m, const std::string& uid) {
  const std::string id = OperatorId::FromUid(uid).ToBytes();
  for (const auto& op : m.operators()) {
    if (op.operator_id() == id) return op;
  }
  ADD_FAILURE() << "no operator with uid " << uid;
  return m.operators(0);
}

std::string User(int u) { return "user-" + std::string(u < 10 ? "0" : "") + std::to_string(u); }

TEST(FixturesTest, SavepointHasExpectedShape) {
  const std::string dir = FixturePath("v1/savepoint");
  ASSERT_OK_AND_ASSIGN(auto m, ReadMetadataFile(Fs(), dir + "/_metadata"));
  EXPECT_EQ(m.kind(), pb::SAVEPOINT);
  EXPECT_EQ(m.savepoint_format(), pb::CANONICAL);
  EXPECT_EQ(m.checkpoint_type(), pb::FULL);
  EXPECT_EQ(m.post_action(), pb::POST_ACTION_STOP);
  EXPECT_EQ(m.checkpoint_id(), 42);
  EXPECT_EQ(m.job_name(), "orders-per-user");
  EXPECT_EQ(*JobIdHex(m.job_id()), kJob);
  ASSERT_EQ(m.job_graph().operators_size(), 4);
  const char* uids[] = {"orders-source", "per-user-aggregate", "watermark-tracker", "file-sink"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(m.job_graph().operators(i).uid(), uids[i]);
    EXPECT_EQ(m.job_graph().operators(i).operator_id(), OperatorId::FromUid(uids[i]).ToBytes());
  }
  EXPECT_EQ(m.job_graph().edges_size(), 3);
  ASSERT_EQ(m.operators_size(), 4);
  for (const auto& f : m.files()) {
    EXPECT_EQ(f.scope(), pb::EXCLUSIVE);
    EXPECT_EQ(f.created_by_checkpoint_id(), 42);
  }
  uint64_t total = 0;
  for (const auto& f : m.files()) total += f.size_bytes();
  EXPECT_EQ(m.metrics().state_size(), total);
  EXPECT_EQ(m.metrics().num_subtasks(), 7u);
  VerifyAllFiles(dir, m);
}

TEST(FixturesTest, SavepointKeyedStateDecodes) {
  const std::string dir = FixturePath("v1/savepoint");
  ASSERT_OK_AND_ASSIGN(auto m, ReadMetadataFile(Fs(), dir + "/_metadata"));
  const pb::OperatorState& op = OperatorByUid(m, "per-user-aggregate");
  ASSERT_EQ(op.states_size(), 4);
  EXPECT_EQ(op.states(0).kind(), pb::STATE_VALUE);
  EXPECT_EQ(op.states(1).kind(), pb::STATE_LIST);
  EXPECT_EQ(op.states(2).kind(), pb::STATE_MAP);
  EXPECT_EQ(op.states(3).kind(), pb::STATE_TIMERS);
  EXPECT_EQ(op.states(3).timer_domain(), "event-time");
  EXPECT_EQ(TypeName(op.states(2).user_key_type()), "string");
  EXPECT_EQ(TypeName(op.states(2).value_type()), "double");
  ASSERT_EQ(op.subtasks_size(), 2);
  std::set<std::string> users;
  std::map<std::string, int64_t> counts;
  size_t records = 0;
  for (const auto& st : op.subtasks()) {
    const auto& kg = st.keyed_state(0).key_groups();
    const KeyGroupRange range = RangeForSubtask(128, 2, st.subtask_index());
    EXPECT_EQ(kg.key_group_start(), range.start);
    EXPECT_EQ(kg.key_group_end(), range.end);
    ASSERT_EQ(kg.key_group_offsets_size(), 64);
    ASSERT_OK_AND_ASSIGN(std::string path, ResolveFile(dir, m.files(kg.file_index())));
    ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(Fs(), path));
    EXPECT_GT(reader->index().sections.size(), 2u) << "several key groups per subtask";
    std::vector<std::string> storage;
    for (const RecordRef& ref : ReadAll(*reader, &storage)) {
      ++records;
      KeyedRecord r;
      ASSERT_TRUE(DecodeKeyedRecord(ref.bytes, &r));
      // The section is the key group, derived from the encoded key, inside the subtask's range.
      EXPECT_EQ(ref.section_id, KeyGroupForKey(r.key, 128));
      EXPECT_TRUE(range.Contains(ref.section_id));
      const uint32_t rel = ref.section_id - range.start;
      EXPECT_GE(ref.logical_offset, kg.key_group_offsets(static_cast<int>(rel)));
      ASSERT_OK_AND_ASSIGN(Value key, DecodeValueExact(op.states(0).key_type(), r.key));
      const std::string user = std::get<std::string>(key.v);
      users.insert(user);
      const int u = std::stoi(user.substr(5));
      if (r.state_index == 0) {
        ASSERT_OK_AND_ASSIGN(Value v, DecodeValueExact(types::Int64(), r.value));
        counts[user] = std::get<int64_t>(v.v);
        EXPECT_EQ(std::get<int64_t>(v.v), 3 * u + 1);
      } else if (r.state_index == 1) {
        ASSERT_OK_AND_ASSIGN(Value v, DecodeValueExact(types::List(types::String()), r.value));
        const auto& items = std::get<List>(v.v).elements;
        ASSERT_EQ(items.size(), static_cast<size_t>(u % 3 + 1));
        EXPECT_EQ(std::get<std::string>(items[0].v), "item-" + std::to_string(u * 10));
      } else if (r.state_index == 2) {
        ASSERT_OK_AND_ASSIGN(Value v, DecodeValueExact(types::Double(), r.value));
        const double spend = std::get<double>(v.v);
        EXPECT_TRUE(spend == 10.5 * (u + 1) || spend == 10.5 * (u + 1) + 0.25) << spend;
      } else {
        ASSERT_EQ(r.state_index, 3u);
        ASSERT_OK_AND_ASSIGN(Value ts, DecodeValueExact(types::Int64(), r.user_key));
        EXPECT_EQ(std::get<int64_t>(ts.v), 1767225600000 + 60000 * (u + 1));
        EXPECT_TRUE(r.value.empty());
      }
    }
    uint64_t declared = 0;
    for (uint64_t c : kg.key_group_record_counts()) declared += c;
    EXPECT_EQ(declared, reader->index().total_records);
  }
  EXPECT_EQ(users.size(), 24u);
  EXPECT_EQ(records, 24u * 5);
  EXPECT_EQ(counts[User(7)], 22);
}

TEST(FixturesTest, SavepointOperatorCoordinatorAndSinkState) {
  const std::string dir = FixturePath("v1/savepoint");
  ASSERT_OK_AND_ASSIGN(auto m, ReadMetadataFile(Fs(), dir + "/_metadata"));
  const pb::OperatorState& src = OperatorByUid(m, "orders-source");
  ASSERT_TRUE(src.has_coordinator_state());
  ASSERT_OK_AND_ASSIGN(std::string coord, ValueBytesToJson(src.coordinator_state().type(),
                                                           src.coordinator_state().inline_data()));
  EXPECT_EQ(coord,
            R"({"assigned_splits":[{"subtask":0,"split":"orders-0","position":1000},)"
            R"({"subtask":1,"split":"orders-1","position":1250}],"unassigned_splits":2})");
  auto entry = [&](const pb::OperatorState& op, int subtask) -> std::string {
    const auto& h = op.subtasks(subtask).operator_state(0);
    auto path = ResolveFile(dir, m.files(h.file_index()));
    auto reader = StateFileReader::Open(Fs(), *path);
    auto it = (*reader)->NewIteratorAt(h.partitions(0).entry_offsets(0), 1);
    RecordRef ref;
    OperatorRecord rec;
    if (!(*it)->Next(&ref).ValueOr(false) || !DecodeOperatorRecord(ref.bytes, &rec)) return "?";
    return ValueBytesToJson(op.states(0).value_type(), rec.value).ValueOr("?");
  };
  EXPECT_EQ(src.subtasks(0).operator_state(0).partitions(0).distribution(), pb::STATE_OPERATOR_LIST);
  EXPECT_EQ(entry(src, 0), "1000");
  EXPECT_EQ(entry(src, 1), "1250");
  const pb::OperatorState& wm = OperatorByUid(m, "watermark-tracker");
  EXPECT_EQ(wm.states(0).kind(), pb::STATE_OPERATOR_UNION);
  EXPECT_EQ(wm.subtasks(1).operator_state(0).partitions(0).distribution(), pb::STATE_OPERATOR_UNION);
  EXPECT_EQ(entry(wm, 1), R"({"subtask":1,"watermark":1767225635000})");
  const pb::OperatorState& sink = OperatorByUid(m, "file-sink");
  ASSERT_EQ(sink.subtasks(0).committables_size(), 2);
  EXPECT_EQ(sink.subtasks(0).committables(1).final_path(), "/tmp/ckpt-out/part-file-sink-0-1");
  EXPECT_EQ(sink.subtasks(0).committables(1).checkpoint_id(), 42);
}

// Replays the changelog fixture: materialized counts plus every segment's puts.
std::map<int64_t, int64_t> ReplayCounts(const std::string& dir, const pb::CheckpointMetadata& m) {
  std::map<int64_t, int64_t> counts;
  const pb::OperatorState& op = OperatorByUid(m, "count-per-key");
  for (const auto& st : op.subtasks()) {
    const auto& cl = st.keyed_state(0).changelog();
    auto mat_path = ResolveFile(dir, m.files(cl.materialized(0).key_groups().file_index()));
    auto mat = StateFileReader::Open(Fs(), *mat_path);
    EXPECT_OK(mat);
    std::vector<std::string> storage;
    for (const RecordRef& ref : ReadAll(**mat, &storage)) {
      KeyedRecord r;
      EXPECT_TRUE(DecodeKeyedRecord(ref.bytes, &r));
      counts[std::get<int64_t>(DecodeValueExact(types::Int64(), r.key)->v)] =
          std::get<int64_t>(DecodeValueExact(types::Int64(), r.value)->v);
    }
    uint64_t last_sequence = 0;
    for (const auto& seg : cl.segments()) {
      auto path = ResolveFile(dir, m.files(seg.slice().file_index()));
      auto reader = StateFileReader::Open(Fs(), *path);
      EXPECT_OK(reader);
      std::vector<std::string> seg_storage;
      for (const RecordRef& ref : ReadAll(**reader, &seg_storage)) {
        ChangelogRecord c;
        EXPECT_TRUE(DecodeChangelogRecord(ref.bytes, &c));
        EXPECT_GT(c.sequence, last_sequence);
        last_sequence = c.sequence;
        EXPECT_EQ(c.key_group, KeyGroupForKey(c.change.key, op.max_parallelism()));
        EXPECT_EQ(c.op, ChangeOp::kPut);
        counts[std::get<int64_t>(DecodeValueExact(types::Int64(), c.change.key)->v)] =
            std::get<int64_t>(DecodeValueExact(types::Int64(), c.change.value)->v);
      }
      EXPECT_EQ(last_sequence, seg.to_sequence());
    }
  }
  return counts;
}

TEST(FixturesTest, IncrementalCheckpointReferencesSharedFilesOfItsPredecessor) {
  const std::string job = FixturePath("v1/checkpoints/" + kJob);
  ASSERT_OK_AND_ASSIGN(auto first, ReadMetadataFile(Fs(), job + "/chk-1/_metadata"));
  ASSERT_OK_AND_ASSIGN(auto second, ReadMetadataFile(Fs(), job + "/chk-2/_metadata"));
  EXPECT_EQ(second.kind(), pb::CHECKPOINT);
  EXPECT_EQ(second.checkpoint_type(), pb::INCREMENTAL);
  EXPECT_EQ(second.retention(), pb::RETAIN_ON_CANCELLATION);
  std::map<pb::FileScope, int> scopes;
  for (const auto& f : second.files()) {
    ++scopes[f.scope()];
    if (f.scope() == pb::SHARED) {
      EXPECT_EQ(f.created_by_checkpoint_id(), 1) << f.path();
      bool in_first = false;
      for (const auto& g : first.files()) in_first |= g.path() == f.path() && g.checksum_xxh3() == f.checksum_xxh3();
      EXPECT_TRUE(in_first) << f.path();
    }
  }
  EXPECT_EQ(scopes[pb::SHARED], 2);
  EXPECT_EQ(scopes[pb::TASK_OWNED], 4);
  EXPECT_EQ(scopes[pb::EXCLUSIVE], 1);
  EXPECT_LT(second.metrics().checkpointed_size(), second.metrics().state_size());
  VerifyAllFiles(job + "/chk-1", first);
  VerifyAllFiles(job + "/chk-2", second);
  // The job directory itself is not a snapshot; the message points at a checkpoint.
  ASSERT_STATUS(LocateSnapshot(Fs(), job), kNotFound, "chk-2");
}

TEST(FixturesTest, IncrementalCheckpointReplaysToExpectedCounts) {
  const std::string job = FixturePath("v1/checkpoints/" + kJob);
  ASSERT_OK_AND_ASSIGN(auto first, ReadMetadataFile(Fs(), job + "/chk-1/_metadata"));
  ASSERT_OK_AND_ASSIGN(auto second, ReadMetadataFile(Fs(), job + "/chk-2/_metadata"));
  auto c1 = ReplayCounts(job + "/chk-1", first);
  auto c2 = ReplayCounts(job + "/chk-2", second);
  ASSERT_EQ(c1.size(), 16u);
  ASSERT_EQ(c2.size(), 16u);
  for (int64_t k = 0; k < 16; ++k) {
    const int64_t after1 = k + 1 + (k % 3 == 0 ? 10 : 0);
    EXPECT_EQ(c1[k], after1) << k;
    EXPECT_EQ(c2[k], after1 + (k % 4 == 0 ? 100 : 0)) << k;
  }
}

std::string BufferBytes(const std::string& what, uint32_t subtask, uint32_t channel, int n) {
  std::string out;
  for (int r = 0; r < 3 + n; ++r) {
    base::PutLengthPrefixed(&out, what + "-" + std::to_string(subtask) + "-" +
                                      std::to_string(channel) + "-" + std::to_string(n) + "-" +
                                      std::to_string(r));
  }
  return out;
}

TEST(FixturesTest, UnalignedCheckpointSharesChannelStateFiles) {
  const std::string dir = FixturePath("v1/unaligned/" + kJob + "/chk-5");
  ASSERT_OK_AND_ASSIGN(auto m, ReadMetadataFile(Fs(), dir + "/_metadata"));
  EXPECT_EQ(m.mode(), pb::UNALIGNED);
  EXPECT_TRUE(m.metrics().is_unaligned());
  VerifyAllFiles(dir, m);
  std::map<uint32_t, std::set<std::pair<int, uint32_t>>> users_of_file;  // file -> (op, subtask)
  uint64_t persisted = 0;
  for (int o = 0; o < m.operators_size(); ++o) {
    for (const auto& st : m.operators(o).subtasks()) {
      auto check = [&](const auto& handle, const std::string& what, uint32_t channel) {
        int n = 0;
        uint64_t total = 0;
        for (const auto& slice : handle.buffers()) {
          EXPECT_EQ(m.files(slice.file_index()).kind(), pb::CHANNEL_STATE);
          users_of_file[slice.file_index()].insert({o, st.subtask_index()});
          auto path = ResolveFile(dir, m.files(slice.file_index()));
          auto reader = StateFileReader::Open(Fs(), *path);
          ASSERT_OK(reader);
          auto it = (*reader)->NewIteratorAt(slice.offset(), 1);
          ASSERT_OK(it);
          RecordRef ref;
          ASSERT_TRUE((*it)->Next(&ref).ValueOr(false));
          EXPECT_EQ(ref.section_id, st.subtask_index());
          EXPECT_EQ(ref.bytes, BufferBytes(what, st.subtask_index(), channel, n++));
          total += ref.bytes.size();
        }
        EXPECT_EQ(handle.size_bytes(), total);
        persisted += total;
      };
      for (const auto& h : st.input_channel_state()) check(h, "in", h.channel_index());
      for (const auto& h : st.output_channel_state()) check(h, "out", h.subpartition_index());
    }
  }
  const pb::OperatorState& window = OperatorByUid(m, "window-sum");
  ASSERT_EQ(window.subtasks_size(), 6);
  for (const auto& st : window.subtasks()) EXPECT_EQ(st.input_channel_state_size(), 2);
  EXPECT_EQ(OperatorByUid(m, "events-source").subtasks(0).output_channel_state_size(), 6);
  // Five window subtasks share one file, the sixth has its own; both sources share another.
  std::multiset<size_t> sharing;
  for (const auto& [file, users] : users_of_file) sharing.insert(users.size());
  EXPECT_EQ(sharing, (std::multiset<size_t>{1, 2, 5}));
  EXPECT_EQ(m.metrics().persisted_data(), persisted);
}

TEST(FixturesTest, CorruptMetadataFixturesFailWithDocumentedCodes) {
  struct Case {
    const char* name;
    base::StatusCode code;
    const char* needle;
  };
  const Case cases[] = {
      {"truncated-metadata", base::StatusCode::kCorruption, "truncated"},
      {"flipped-payload-byte", base::StatusCode::kCorruption, "checksum mismatch"},
      {"bad-magic", base::StatusCode::kCorruption, "not a checkpoint metadata file"},
      {"future-version", base::StatusCode::kUnimplemented, "written by a newer version (2)"},
      {"escaping-reference", base::StatusCode::kCorruption, "../../etc/passwd"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = FixturePath(std::string("corrupt/") + c.name + "/_metadata");
    auto m = ReadMetadataFile(Fs(), path);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), c.code) << m.status().ToString();
    EXPECT_NE(m.status().message().find(c.needle), std::string::npos) << m.status().ToString();
    EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().ToString();
  }
}

TEST(FixturesTest, MissingReferencedFileIsNotFoundNamingIt) {
  const std::string dir = FixturePath("corrupt/missing-referenced-file");
  ASSERT_OK_AND_ASSIGN(auto m, ReadMetadataFile(Fs(), dir + "/_metadata"));
  ASSERT_OK_AND_ASSIGN(std::string path, ResolveFile(dir, m.files(0)));
  ASSERT_STATUS(StateFileReader::Open(Fs(), path), kNotFound, "tiny-count-0-keyed.state");
}

TEST(FixturesTest, FlippedBlockByteFailsBothChecksums) {
  const std::string dir = FixturePath("corrupt/block-checksum-mismatch");
  ASSERT_OK_AND_ASSIGN(auto m, ReadMetadataFile(Fs(), dir + "/_metadata"));
  ASSERT_OK_AND_ASSIGN(std::string path, ResolveFile(dir, m.files(0)));
  // The metadata's whole-file checksum catches it...
  ASSERT_OK_AND_ASSIGN(std::string bytes, base::ReadFileToString(Fs(), path));
  EXPECT_EQ(bytes.size(), m.files(0).size_bytes());
  EXPECT_NE(base::Xxh3(bytes), m.files(0).checksum_xxh3());
  // ...and so does the container's block checksum; the footer itself is intact.
  ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(Fs(), path));
  ASSERT_STATUS(reader->VerifyChecksums(), kCorruption, path);
  ASSERT_OK_AND_ASSIGN(auto it, reader->NewIterator());
  RecordRef ref;
  base::Status st;
  while (true) {
    auto more = it->Next(&ref);
    if (!more.ok()) {
      st = more.status();
      break;
    }
    if (!*more) break;
  }
  ASSERT_STATUS(st, kCorruption, path);
}

TEST(FixturesTest, CorruptFixturesDifferFromTheValidBaseOnlyByTheirDefect) {
  // The untouched cases still read: the state file of "bad-magic" verifies, proving that the
  // base snapshot was valid before the defect was applied.
  const std::string dir = FixturePath("corrupt/bad-magic");
  ASSERT_OK_AND_ASSIGN(auto reader, StateFileReader::Open(Fs(), dir + "/tiny-count-0-keyed.state"));
  EXPECT_OK(reader->VerifyChecksums());
  EXPECT_EQ(reader->index().total_records, 200u);
}

}  // namespace
}  // namespace ckpt::format
