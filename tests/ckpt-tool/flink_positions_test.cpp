// positions of Apache Flink snapshots (ops/src/formats/flink/positions.cpp, connector_*.cpp): the
// connector decoders on bytes laid out as Flink's serializers write them, every truncation of
// them and hostile lengths (a Corruption naming the file and offset, never a crash), and
// ComputePositions on a real Flink 1.x snapshot whose FLIP-27 source state is rewritten to hold
// Kafka splits and a Kafka enumerator checkpoint.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "ckpt/base/fs.h"
#include "ckpt/flink/data_output.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/ops/positions.h"
#include "ckpt/ops/snapshot.h"
#include "ckpt/testing/gtest_util.h"
#include "ckpt/testing/temp_dir.h"
#include "formats/flink/connector_common.h"
#include "formats/flink/connector_file.h"
#include "formats/flink/connector_kafka.h"
#include "formats/flink/connector_sink_v2.h"

namespace ckpt::ops {
namespace {

namespace conn = internal::connector;
using flink::DataInput;
using flink::DataOutput;

std::string KafkaSplit(const std::string& topic, int32_t partition, int64_t start, int64_t stop) {
  DataOutput o;
  EXPECT_OK(o.WriteUtf(topic, "topic"));
  o.WriteI32(partition);
  o.WriteI64(start);
  o.WriteI64(stop);
  return o.Release();
}

// SimpleVersionedSerialization.writeVersionAndSerialize.
std::string Versioned(int32_t version, const std::string& bytes) {
  DataOutput o;
  o.WriteI32(version);
  EXPECT_OK(o.WriteLengthPrefixed(bytes, "bytes"));
  return o.Release();
}

void WriteLeI32(DataOutput* o, int32_t v) {
  o->WriteI32(static_cast<int32_t>(__builtin_bswap32(static_cast<uint32_t>(v))));
}

// StringUtils.writeNullableString of an ASCII string.
void WriteStringValue(DataOutput* o, const std::string& s) {
  o->WriteBool(true);
  o->WriteU8(static_cast<uint8_t>(s.size() + 1));  // < 128 in these tests: one varint byte
  for (char c : s) o->WriteU8(static_cast<uint8_t>(c));
}

std::string FileSplit(const std::string& id, const std::string& path, int64_t offset,
                      int64_t length, bool with_position) {
  DataOutput o;
  EXPECT_OK(o.WriteUtf(id, "id"));
  o.WriteBool(true);  // Path: URI present
  WriteStringValue(&o, "file");
  o.WriteBool(false);  // user info
  o.WriteBool(false);  // host
  o.WriteI32(-1);      // port
  WriteStringValue(&o, path);
  o.WriteBool(false);  // query
  o.WriteBool(false);  // fragment
  o.WriteI64(offset);
  o.WriteI64(length);
  o.WriteI64(1795000000000);  // file modification time (ms)
  o.WriteI64(offset + length);  // file size
  o.WriteI32(1);
  EXPECT_OK(o.WriteUtf("localhost", "host"));
  o.WriteBool(with_position);
  if (with_position) {
    o.WriteI64(4096);
    o.WriteI64(7);
  }
  return o.Release();
}

std::string LocalRecoverable(const std::string& target, const std::string& temp, int64_t offset) {
  DataOutput o;
  WriteLeI32(&o, 0x1e744b57);
  o.WriteI64(static_cast<int64_t>(__builtin_bswap64(static_cast<uint64_t>(offset))));
  WriteLeI32(&o, static_cast<int32_t>(target.size()));
  WriteLeI32(&o, static_cast<int32_t>(temp.size()));
  o.WriteBytes(target);
  o.WriteBytes(temp);
  return o.Release();
}

// OutputStreamBased{Pending,InProgress}FileRecoverable around a local recoverable.
std::string Wrapped(int32_t magic, const std::string& recoverable) {
  DataOutput o;
  o.WriteI32(magic);
  o.WriteBytes(Versioned(1, recoverable));
  return o.Release();
}

TEST(FlinkPositionsTest, DecodesKafkaPartitionSplit) {
  const std::string b = KafkaSplit("orders", 3, 1234, kKafkaNoStoppingOffset);
  DataInput in(b, "split", 100);
  ASSERT_OK_AND_ASSIGN(SourcePosition p, conn::DecodeKafkaSplit(0, in));
  EXPECT_EQ(p.topic, "orders");
  EXPECT_EQ(p.partition, 3);
  EXPECT_EQ(p.split_id, "orders-3");
  EXPECT_EQ(p.next_offset, 1234);
  EXPECT_FALSE(p.stopping_offset.has_value());

  const std::string bounded = KafkaSplit("t", 0, kKafkaEarliestOffset, 99);
  DataInput in2(bounded, "split");
  ASSERT_OK_AND_ASSIGN(SourcePosition q, conn::DecodeKafkaSplit(0, in2));
  EXPECT_EQ(q.next_offset, kKafkaEarliestOffset);
  EXPECT_EQ(q.stopping_offset, 99);
}

TEST(FlinkPositionsTest, KafkaSplitRejectsOtherVersionsTrailingBytesAndEveryTruncation) {
  const std::string b = KafkaSplit("orders", 3, 1234, 5000);
  DataInput v1(b, "split");
  ASSERT_STATUS(conn::DecodeKafkaSplit(1, v1).status(), kCorruption,
                "unsupported KafkaPartitionSplit version 1");
  const std::string longer = b + "x";
  DataInput trailing(longer, "split", 10);
  ASSERT_STATUS(conn::DecodeKafkaSplit(0, trailing).status(), kCorruption,
                "split: at byte 38: 1 bytes left over");
  for (size_t n = 0; n < b.size(); ++n) {
    DataInput cut(std::string_view(b).substr(0, n), "split");
    EXPECT_FALSE(conn::DecodeKafkaSplit(0, cut).ok()) << n;
  }
}

TEST(FlinkPositionsTest, DecodesEveryKafkaEnumeratorStateVersion) {
  DataOutput v2;
  v2.WriteI32(2);
  EXPECT_OK(v2.WriteUtf("a", "t"));
  v2.WriteI32(0);
  v2.WriteI32(0);  // ASSIGNED
  EXPECT_OK(v2.WriteUtf("a", "t"));
  v2.WriteI32(1);
  v2.WriteI32(1);  // UNASSIGNED_INITIAL
  v2.WriteBool(true);
  DataInput in2(v2.bytes(), "enum");
  ASSERT_OK_AND_ASSIGN(auto s2, conn::DecodeKafkaEnumState(2, in2));
  ASSERT_EQ(s2.size(), 2u);
  EXPECT_EQ(s2[0].origin, PositionOrigin::kEnumeratorAssigned);
  EXPECT_EQ(s2[1].origin, PositionOrigin::kEnumeratorPending);
  EXPECT_EQ(s2[1].split_id, "a-1");

  DataOutput v1;
  v1.WriteI32(1);
  EXPECT_OK(v1.WriteUtf("b", "t"));
  v1.WriteI32(4);
  DataInput in1(v1.bytes(), "enum");
  ASSERT_OK_AND_ASSIGN(auto s1, conn::DecodeKafkaEnumState(1, in1));
  ASSERT_EQ(s1.size(), 1u);
  EXPECT_EQ(s1[0].topic, "b");
  EXPECT_EQ(s1[0].partition, 4);

  DataOutput v0;  // split assignments: split version, subtasks, (subtask, splits)
  v0.WriteI32(0);
  v0.WriteI32(1);
  v0.WriteI32(2);
  v0.WriteI32(1);
  EXPECT_OK(v0.WriteLengthPrefixed(KafkaSplit("c", 5, 10, kKafkaNoStoppingOffset), "split"));
  DataInput in0(v0.bytes(), "enum");
  ASSERT_OK_AND_ASSIGN(auto s0, conn::DecodeKafkaEnumState(0, in0));
  ASSERT_EQ(s0.size(), 1u);
  EXPECT_EQ(s0[0].split_id, "c-5");
  EXPECT_EQ(s0[0].origin, PositionOrigin::kEnumeratorAssigned);

  DataInput bad(v2.bytes(), "enum");
  ASSERT_STATUS(conn::DecodeKafkaEnumState(4, bad).status(), kCorruption,
                "unsupported KafkaSourceEnumState version 4");
}

TEST(FlinkPositionsTest, DecodesConnector5EnumeratorAndWriterStateLayouts) {
  DataOutput v3;  // whole splits: count, split version, (split, status)*, discovery flag
  v3.WriteI32(2);
  v3.WriteI32(0);
  const std::string earliest = KafkaSplit("in", 0, kKafkaEarliestOffset, kKafkaNoStoppingOffset);
  EXPECT_OK(v3.WriteLengthPrefixed(earliest, "split"));
  v3.WriteI32(0);
  EXPECT_OK(v3.WriteLengthPrefixed(KafkaSplit("in", 1, 17, kKafkaNoStoppingOffset), "split"));
  v3.WriteI32(1);
  v3.WriteBool(true);
  DataInput in3(v3.bytes(), "enum");
  ASSERT_OK_AND_ASSIGN(auto s3, conn::DecodeKafkaEnumState(3, in3));
  ASSERT_EQ(s3.size(), 2u);
  EXPECT_EQ(s3[0].origin, PositionOrigin::kEnumeratorAssigned);
  EXPECT_EQ(s3[0].next_offset, kKafkaEarliestOffset);
  EXPECT_EQ(s3[1].origin, PositionOrigin::kEnumeratorPending);
  EXPECT_EQ(s3[1].next_offset, 17);

  DataOutput w;  // prefix, owned subtask, owned subtasks, ownership, precommitted
  EXPECT_OK(w.WriteUtf("tx", "prefix"));
  w.WriteI32(1);
  w.WriteI32(2);
  w.WriteI32(0);
  w.WriteI32(1);
  EXPECT_OK(w.WriteUtf("tx-1-3", "id"));
  w.WriteI64(3);
  DataInput win(w.bytes(), "writer");
  ASSERT_OK_AND_ASSIGN(conn::KafkaWriterState ws, conn::DecodeKafkaWriterState(2, win));
  EXPECT_EQ(ws.transactional_id_prefix, "tx");
  ASSERT_EQ(ws.ongoing.size(), 1u);
  EXPECT_EQ(ws.ongoing[0].transactional_id, "tx-1-3");
  EXPECT_EQ(ws.ongoing[0].checkpoint_id, 3);
}

TEST(FlinkPositionsTest, HostileCountsAndLengthsGiveCorruptionNotAllocation) {
  DataOutput huge;
  huge.WriteI32(0x7FFFFFFF);
  DataInput in(huge.bytes(), "enum");
  ASSERT_STATUS(conn::DecodeKafkaEnumState(2, in).status(), kCorruption,
                "partition count 2147483647 cannot fit");
  DataOutput negative;
  negative.WriteI32(-5);
  DataInput in2(negative.bytes(), "enum");
  ASSERT_STATUS(conn::DecodeKafkaEnumState(1, in2).status(), kCorruption,
                "negative partition count -5");
  DataOutput utf;  // a writeUTF length of 65535 with 2 bytes behind it
  utf.WriteU16(0xFFFF);
  utf.WriteU16(0);
  DataInput in3(utf.bytes(), "split");
  EXPECT_EQ(conn::DecodeKafkaSplit(0, in3).status().code(), base::StatusCode::kCorruption);
  DataOutput pending;  // PendingSplitsCheckpoint claiming 2^31-1 splits
  WriteLeI32(&pending, static_cast<int32_t>(0xDEADBEEF));
  WriteLeI32(&pending, 1);
  WriteLeI32(&pending, 0x7FFFFFFF);
  WriteLeI32(&pending, 0);
  DataInput in4(pending.bytes(), "enum");
  ASSERT_STATUS(conn::DecodeFileEnumState(1, in4).status(), kCorruption,
                "cannot fit");
  DataOutput string_value;  // a StringValue length of 2^28 in a Path
  EXPECT_OK(string_value.WriteUtf("id", "id"));
  string_value.WriteBool(true);
  string_value.WriteBool(true);
  for (uint8_t b : {0x81, 0x80, 0x80, 0x80, 0x01}) string_value.WriteU8(b);
  DataInput in5(string_value.bytes(), "split");
  ASSERT_STATUS(conn::DecodeFileSplit(1, in5).status(), kCorruption,
                "String length exceeds the bytes left");
}

TEST(FlinkPositionsTest, DecodesFileSourceSplitAndEnumeratorCheckpoint) {
  const std::string split = FileSplit("0000000001", "/data/in/part-0", 0, 8192, true);
  DataInput in(split, "split");
  ASSERT_OK_AND_ASSIGN(SourcePosition p, conn::DecodeFileSplit(1, in));
  EXPECT_EQ(p.split_id, "0000000001");
  EXPECT_EQ(p.path, "file:/data/in/part-0");
  EXPECT_EQ(p.split_offset, 0);
  EXPECT_EQ(p.split_length, 8192);
  EXPECT_EQ(p.resume_offset, 4096);
  EXPECT_EQ(p.records_to_skip, 7);
  for (size_t n = 0; n < split.size(); ++n) {
    DataInput cut(std::string_view(split).substr(0, n), "split");
    EXPECT_FALSE(conn::DecodeFileSplit(1, cut).ok()) << n;
  }

  const std::string pending_split = FileSplit("0000000002", "/data/in/part-1", 0, 10, false);
  DataOutput e;
  WriteLeI32(&e, static_cast<int32_t>(0xDEADBEEF));
  WriteLeI32(&e, 1);
  WriteLeI32(&e, 1);
  WriteLeI32(&e, 1);
  WriteLeI32(&e, static_cast<int32_t>(pending_split.size()));
  e.WriteBytes(pending_split);
  const std::string done = "file:/data/in/part-0";
  WriteLeI32(&e, static_cast<int32_t>(done.size()));
  e.WriteBytes(done);
  DataInput ein(e.bytes(), "enum");
  ASSERT_OK_AND_ASSIGN(conn::FileEnumState s, conn::DecodeFileEnumState(1, ein));
  ASSERT_EQ(s.pending.size(), 1u);
  EXPECT_EQ(s.pending[0].origin, PositionOrigin::kEnumeratorPending);
  EXPECT_EQ(s.pending[0].path, "file:/data/in/part-1");
  EXPECT_FALSE(s.pending[0].resume_offset.has_value());
  EXPECT_EQ(s.processed_paths, std::vector<std::string>{done});
}

TEST(FlinkPositionsTest, DecodesKafkaSinkWriterStateAndCommitterState) {
  DataOutput w;
  EXPECT_OK(w.WriteUtf("txn-prefix", "prefix"));
  w.WriteI32(1);
  EXPECT_OK(w.WriteUtf("txn-prefix-0-7", "id"));
  w.WriteI64(7);
  DataInput win(w.bytes(), "writer");
  ASSERT_OK_AND_ASSIGN(conn::KafkaWriterState ws, conn::DecodeKafkaWriterState(2, win));
  EXPECT_EQ(ws.transactional_id_prefix, "txn-prefix");
  ASSERT_EQ(ws.ongoing.size(), 1u);
  EXPECT_EQ(ws.ongoing[0].checkpoint_id, 7);

  DataOutput c;  // KafkaCommittable v1
  c.WriteU16(3);
  c.WriteI64(4242);
  EXPECT_OK(c.WriteUtf("txn-prefix-1-8", "id"));
  DataOutput request;
  request.WriteBytes(Versioned(1, c.bytes()));
  request.WriteI32(0);  // retries
  request.WriteI32(0);  // RECEIVED
  DataOutput subtask;
  subtask.WriteI32(1);  // subtask ID
  subtask.WriteI32(0);  // request list version
  subtask.WriteI32(1);
  EXPECT_OK(subtask.WriteLengthPrefixed(request.bytes(), "request"));
  subtask.WriteI32(1);  // committables
  subtask.WriteI32(0);  // failed
  DataOutput checkpoint;
  checkpoint.WriteI64(8);
  checkpoint.WriteI32(2);  // subtasks
  checkpoint.WriteI32(2);  // subtask list version
  checkpoint.WriteI32(1);
  EXPECT_OK(checkpoint.WriteLengthPrefixed(subtask.bytes(), "subtask"));
  DataOutput collector;
  collector.WriteI32(static_cast<int32_t>(0xb91f252c));
  collector.WriteI32(1);  // checkpoint list version
  collector.WriteI32(1);
  EXPECT_OK(collector.WriteLengthPrefixed(checkpoint.bytes(), "checkpoint"));
  DataInput cin(collector.bytes(), "committer");
  ASSERT_OK_AND_ASSIGN(auto pending, conn::DecodeCommittableCollector(2, cin));
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].checkpoint_id, 8);
  EXPECT_EQ(pending[0].subtask, 1);
  DataInput body = conn::Open(cin, pending[0].committable);
  ASSERT_OK_AND_ASSIGN(SinkTransaction t, conn::DecodeKafkaCommittable(1, body));
  EXPECT_EQ(t.transactional_id, "txn-prefix-1-8");
  EXPECT_EQ(t.producer_id, 4242);
  EXPECT_EQ(t.epoch, 3);
  EXPECT_EQ(t.action, SinkAction::kCommit);
}

TEST(FlinkPositionsTest, DecodesFileSinkBucketStateAndCommittable) {
  DataOutput id;
  WriteLeI32(&id, 7);
  id.WriteBytes("dt=2026");
  DataOutput b;
  b.WriteI32(0x1e764b79);
  b.WriteBytes(Versioned(1, id.bytes()));
  EXPECT_OK(b.WriteUtf("file:/out/dt=2026", "path"));
  b.WriteI64(1700000000000);
  b.WriteBool(true);
  b.WriteBytes(Versioned(1, Wrapped(static_cast<int32_t>(0xb3a4073d),
                                    LocalRecoverable("/out/dt=2026/part-0-3",
                                                     "/out/dt=2026/.part-0-3.inprogress.u1",
                                                     512))));
  DataInput bin(b.bytes(), "bucket");
  ASSERT_OK_AND_ASSIGN(conn::FileBucketState s, conn::DecodeFileBucketState(3, bin));
  EXPECT_EQ(s.bucket_id, "dt=2026");
  EXPECT_EQ(s.bucket_path, "file:/out/dt=2026");
  ASSERT_EQ(s.files.size(), 1u);
  EXPECT_EQ(s.files[0].action, SinkAction::kResume);
  EXPECT_EQ(s.files[0].final_path, "/out/dt=2026/part-0-3");
  EXPECT_EQ(s.files[0].pending_path, "/out/dt=2026/.part-0-3.inprogress.u1");
  EXPECT_EQ(s.files[0].size_bytes, 512u);

  DataOutput c;
  c.WriteI32(0x1e765c80);
  c.WriteBool(true);
  c.WriteBytes(Versioned(1, Wrapped(0x2c853c89, LocalRecoverable("/out/part-1-0",
                                                                 "/out/.part-1-0.inprogress.u2",
                                                                 99))));
  c.WriteBool(false);
  DataInput cin(c.bytes(), "committable");
  ASSERT_OK_AND_ASSIGN(auto txs, conn::DecodeFileCommittable(1, cin));
  ASSERT_EQ(txs.size(), 1u);
  EXPECT_EQ(txs[0].action, SinkAction::kCommit);
  EXPECT_EQ(txs[0].final_path, "/out/part-1-0");
  EXPECT_EQ(txs[0].size_bytes, 99u);
  for (size_t n = 0; n < c.size(); ++n) {
    DataInput cut(std::string_view(c.bytes()).substr(0, n), "committable");
    EXPECT_FALSE(conn::DecodeFileCommittable(1, cut).ok()) << n;
  }
}

TEST(FlinkPositionsTest, DecodesLegacyConsumerKryoTuple) {
  const std::string cls =
      "org.apache.flink.streaming.connectors.kafka.internals.KafkaTopicPartition";
  DataOutput o;
  o.WriteU8(1);  // unregistered class, by name
  o.WriteU8(0);  // name ID 0
  // Kryo writes a name of 64+ characters with a UTF-8 length prefix: chars + 1, flagged.
  const uint32_t n = static_cast<uint32_t>(cls.size()) + 1;
  o.WriteU8(static_cast<uint8_t>(0x80 | 0x40 | (n & 0x3F)));
  o.WriteU8(static_cast<uint8_t>(n >> 6));
  o.WriteBytes(cls);
  o.WriteU8(1);  // reference marker: a new object
  o.WriteU8(0x7F);  // cachedHash -64, zig-zag
  o.WriteU8(6);  // partition 3, zig-zag
  o.WriteU8(1);  // reference marker of the topic
  o.WriteBytes("event");
  o.WriteU8(static_cast<uint8_t>('s' | 0x80));  // "events", ASCII, last byte flagged
  o.WriteI64(41);
  DataInput in(o.bytes(), "union");
  ASSERT_OK_AND_ASSIGN(SourcePosition p, conn::DecodeLegacyConsumerOffset(in));
  EXPECT_EQ(p.origin, PositionOrigin::kUnion);
  EXPECT_EQ(p.topic, "events");
  EXPECT_EQ(p.partition, 3);
  EXPECT_EQ(p.next_offset, 42);  // the last record read was 41
  for (size_t k = 0; k < o.size(); ++k) {
    DataInput cut(std::string_view(o.bytes()).substr(0, k), "union");
    EXPECT_FALSE(conn::DecodeLegacyConsumerOffset(cut).ok()) << k;
  }
}

TEST(FlinkPositionsTest, DecodesLegacyProducerStateWithAndWithoutNullFlag) {
  auto txn = [](DataOutput* o, const std::string& id, int64_t pid, int16_t epoch) {
    o->WriteBool(true);
    EXPECT_OK(o->WriteUtf(id, "id"));
    o->WriteI64(pid);
    o->WriteU16(static_cast<uint16_t>(epoch));
    o->WriteI64(1700000000000);
  };
  for (bool flagged : {false, true}) {
    DataOutput o;
    if (flagged) o.WriteBool(true);
    txn(&o, "sink-0-5", 11, 1);
    o.WriteI32(1);
    txn(&o, "sink-0-4", 10, 1);
    o.WriteBool(false);
    DataInput in(o.bytes(), "state");
    ASSERT_OK_AND_ASSIGN(auto txs, conn::DecodeLegacyProducerState(in));
    ASSERT_EQ(txs.size(), 2u) << flagged;
    EXPECT_EQ(txs[0].action, SinkAction::kAbort);
    EXPECT_EQ(txs[0].transactional_id, "sink-0-5");
    EXPECT_EQ(txs[1].action, SinkAction::kCommit);
    EXPECT_EQ(txs[1].producer_id, 10);
  }
}

// The table-state fixture (Flink 1.x) has a FLIP-27 DataGen source: its SourceReaderState holds
// NumberSequenceSplits, which are neither Kafka's nor the file source's.
const char kSourceFixture[] = "flink/table-state";
const char kSourceUid[] = "datagen-source-uid";

TEST(FlinkPositionsTest, SnapshotWithoutConnectorStateHasNoPositionsAndNoFindings) {
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(),
                                                testing::FixturePath(kSourceFixture)));
  ASSERT_OK_AND_ASSIGN(PositionsReport r, ComputePositions(base::Fs::Default(), s));
  EXPECT_TRUE(r.operators.empty());
  EXPECT_TRUE(r.findings.empty()) << (r.findings.empty() ? "" : r.findings[0].message);
}

// Rewrites the source's reader state: subtask i holds `splits[i]` (raw split bytes, version 0),
// and its coordinator the given enumerator checkpoint; writes the snapshot to `dir`.
void WriteKafkaSnapshot(const std::string& dir, const std::vector<std::string>& splits,
                        const std::string& enum_state) {
  auto md = flink::ReadFlinkMetadata(base::Fs::Default(),
                                     testing::FixturePath(kSourceFixture) + "/_metadata");
  ASSERT_OK(md);
  bool found = false;
  for (auto& op : md->operators) {
    if (op.uid != kSourceUid) continue;
    found = true;
    for (auto& st : op.subtasks) {
      ASSERT_TRUE(st.managed_operator.has_value());
      auto& h = *st.managed_operator;
      ASSERT_EQ(h.delegate.type, flink::StreamHandle::Type::kByteStream);
      ASSERT_EQ(h.states.size(), 1u);
      ASSERT_EQ(h.states[0].name, "SourceReaderState");
      ASSERT_FALSE(h.states[0].offsets.empty());
      const int64_t first = h.states[0].offsets[0];
      std::string data = h.delegate.data.substr(0, static_cast<size_t>(first));
      ASSERT_LT(static_cast<size_t>(st.index), splits.size());
      DataOutput el;
      EXPECT_OK(el.WriteLengthPrefixed(Versioned(0, splits[static_cast<size_t>(st.index)]), "el"));
      h.states[0].offsets = {static_cast<int64_t>(data.size())};
      data += el.bytes();
      h.delegate.data = data;
      h.delegate.size = static_cast<int64_t>(data.size());
    }
    DataOutput coord;
    coord.WriteI32(1);  // coordinator serde version
    coord.WriteBytes(Versioned(2, enum_state));
    op.coordinator.type = flink::StreamHandle::Type::kByteStream;
    op.coordinator.handle_name = "coordinator";
    op.coordinator.data = coord.bytes();
    op.coordinator.size = static_cast<int64_t>(coord.size());
  }
  ASSERT_TRUE(found);
  std::filesystem::create_directories(dir);
  ASSERT_OK(flink::WriteFlinkMetadata(base::Fs::Default(), *md, dir + "/_metadata"));
}

std::string EnumV2(const std::string& topic, std::vector<std::pair<int32_t, int32_t>> parts) {
  DataOutput o;
  o.WriteI32(static_cast<int32_t>(parts.size()));
  for (auto [p, status] : parts) {
    EXPECT_OK(o.WriteUtf(topic, "topic"));
    o.WriteI32(p);
    o.WriteI32(status);
  }
  o.WriteBool(true);
  return o.Release();
}

TEST(FlinkPositionsTest, ComputesKafkaSourcePositionsOfReadersAndEnumerator) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("kafka-savepoint");
  WriteKafkaSnapshot(dir,
                     {KafkaSplit("orders", 0, 100, kKafkaNoStoppingOffset),
                      KafkaSplit("orders", 1, 250, kKafkaNoStoppingOffset)},
                     EnumV2("orders", {{0, 0}, {1, 0}, {2, 1}}));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  ASSERT_OK_AND_ASSIGN(PositionsReport r, ComputePositions(base::Fs::Default(), s));
  EXPECT_TRUE(r.findings.empty()) << (r.findings.empty() ? "" : r.findings[0].message);
  ASSERT_EQ(r.operators.size(), 1u);
  const OperatorPositions& op = r.operators[0];
  EXPECT_EQ(op.connector, ConnectorKind::kKafkaSource);
  EXPECT_EQ(op.uid, kSourceUid);
  ASSERT_EQ(op.splits.size(), 5u);
  EXPECT_EQ(op.splits[0].origin, PositionOrigin::kReader);
  EXPECT_EQ(op.splits[0].subtask, 0);
  EXPECT_EQ(op.splits[0].next_offset, 100);
  EXPECT_EQ(op.splits[1].subtask, 1);
  EXPECT_EQ(op.splits[1].next_offset, 250);
  EXPECT_EQ(op.splits[4].origin, PositionOrigin::kEnumeratorPending);
  EXPECT_EQ(op.splits[4].split_id, "orders-2");
}

TEST(FlinkPositionsTest, UndecodableSplitOfAKafkaSourceIsAFindingNamingStateSubtaskAndOffset) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("kafka-savepoint");
  std::string cut = KafkaSplit("orders", 1, 250, kKafkaNoStoppingOffset);
  cut.resize(cut.size() - 3);
  WriteKafkaSnapshot(dir, {KafkaSplit("orders", 0, 100, kKafkaNoStoppingOffset), cut},
                     EnumV2("orders", {{0, 0}, {1, 0}}));
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  ASSERT_OK_AND_ASSIGN(PositionsReport r, ComputePositions(base::Fs::Default(), s));
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.rule_id, "CKPT-C001");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.location.subtask, 1u);
  EXPECT_NE(f.location.file.find("_metadata"), std::string::npos) << f.location.file;
  EXPECT_NE(f.message.find("'SourceReaderState' of subtask 1"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("at byte"), std::string::npos) << f.message;
  ASSERT_EQ(r.operators.size(), 1u);
  EXPECT_EQ(r.operators[0].splits.size(), 3u);  // subtask 0's split and the enumerator's two
}

TEST(FlinkPositionsTest, UndecodableEnumeratorCheckpointIsAFindingNamingTheCoordinator) {
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("kafka-savepoint");
  DataOutput garbage;
  garbage.WriteI32(5);  // five partitions in three bytes
  garbage.WriteBytes("abc");
  WriteKafkaSnapshot(dir,
                     {KafkaSplit("orders", 0, 100, kKafkaNoStoppingOffset),
                      KafkaSplit("orders", 1, 250, kKafkaNoStoppingOffset)},
                     garbage.bytes());
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir));
  ASSERT_OK_AND_ASSIGN(PositionsReport r, ComputePositions(base::Fs::Default(), s));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].rule_id, "CKPT-C001");
  EXPECT_NE(r.findings[0].message.find("coordinator"), std::string::npos) << r.findings[0].message;
  EXPECT_NE(r.findings[0].message.find("partition count 5 cannot fit"), std::string::npos)
      << r.findings[0].message;
  ASSERT_EQ(r.operators.size(), 1u);
  EXPECT_EQ(r.operators[0].splits.size(), 2u);  // the readers' splits still reported
}

// The real snapshots of fixtures/flink-connectors (Flink 1.20.5 and 2.3.0, made by the interop
// harness) against their truth.json: every source position and every pending transaction / file
// the harness recorded, and no finding.
class FlinkConnectorTruthTest : public ::testing::TestWithParam<const char*> {};

std::vector<const OperatorPositions*> OfKind(const PositionsReport& r, ConnectorKind k) {
  std::vector<const OperatorPositions*> out;
  for (const auto& op : r.operators) {
    if (op.connector == k) out.push_back(&op);
  }
  return out;
}

const SourcePosition* FindSplit(const std::vector<const OperatorPositions*>& ops,
                                PositionOrigin origin, const std::string& topic,
                                int32_t partition, const std::string& path) {
  for (const auto* op : ops) {
    for (const auto& p : op->splits) {
      if (p.origin != origin) continue;
      if (!topic.empty() && p.topic == topic && p.partition == partition) return &p;
      if (!path.empty() && p.path == path) return &p;
    }
  }
  return nullptr;
}

TEST_P(FlinkConnectorTruthTest, PositionsMatchTheHarnessGroundTruth) {
  const std::string dir = testing::FixturePath(std::string("flink-connectors/") + GetParam());
  std::ifstream truth_file(dir + "/truth.json");
  ASSERT_TRUE(truth_file.good()) << dir;
  const nlohmann::json truth = nlohmann::json::parse(truth_file);
  ASSERT_OK_AND_ASSIGN(Snapshot s, LoadSnapshot(base::Fs::Default(), dir + "/snapshot"));
  ASSERT_OK_AND_ASSIGN(PositionsReport r, ComputePositions(base::Fs::Default(), s));
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  size_t checked = 0;
  for (const auto& op : truth["operators"]) {
    const std::string kind = op["connector"];
    if (kind == "kafka-source" || kind == "flink-kafka-consumer") {
      const bool legacy = kind == "flink-kafka-consumer";
      auto ops =
          OfKind(r, legacy ? ConnectorKind::kFlinkKafkaConsumer : ConnectorKind::kKafkaSource);
      ASSERT_EQ(ops.size(), 1u) << kind;
      EXPECT_EQ(ops[0]->id_hex, op["operator_id"]);
      for (const auto& part : op["partitions"]) {
        const SourcePosition* p =
            FindSplit(ops, legacy ? PositionOrigin::kUnion : PositionOrigin::kReader, part["topic"],
                      part["partition"].get<int32_t>(), "");
        ASSERT_NE(p, nullptr) << part.dump();
        EXPECT_EQ(p->next_offset, part["next_offset"].get<int64_t>()) << part.dump();
        ++checked;
      }
    } else if (kind == "kafka-sink" || kind == "flink-kafka-producer") {
      const bool legacy = kind == "flink-kafka-producer";
      auto ops = OfKind(r, legacy ? ConnectorKind::kFlinkKafkaProducer : ConnectorKind::kKafkaSink);
      ASSERT_FALSE(ops.empty()) << kind;
      std::set<std::tuple<std::string, int64_t, int16_t>> commits;
      bool prefix = false;
      for (const auto* o : ops) {
        prefix |= o->sink && o->sink->transactional_id_prefix == op["transactional_id_prefix"];
        for (const auto& t : o->sink->transactions) {
          // Transactions with a producer ID: the committer's committables (KafkaSink) or the
          // pending-commit transactions (FlinkKafkaProducer).
          if (t.action == SinkAction::kCommit && t.producer_id >= 0) {
            commits.emplace(t.transactional_id, t.producer_id, t.epoch);
          }
        }
      }
      if (!legacy) {
        EXPECT_TRUE(prefix) << "transactional ID prefix of " << kind;
      }
      std::set<std::tuple<std::string, int64_t, int16_t>> expected;
      for (const auto& t : op["pending_transactions"]) {
        expected.emplace(t["transactional_id"], t["producer_id"].get<int64_t>(),
                         t["epoch"].get<int16_t>());
      }
      EXPECT_EQ(commits, expected) << kind;
      checked += expected.size();
    } else if (kind == "file-source") {
      auto ops = OfKind(r, ConnectorKind::kFileSource);
      ASSERT_EQ(ops.size(), 1u);
      for (const auto& f : op["files"]) {
        const std::string uri = f["uri"];
        const std::string status = f["status"];
        const SourcePosition* reader = FindSplit(ops, PositionOrigin::kReader, "", -1, uri);
        const SourcePosition* pending =
            FindSplit(ops, PositionOrigin::kEnumeratorPending, "", -1, uri);
        const auto& done = ops[0]->processed_paths;
        if (status == "in-progress") {
          ASSERT_NE(reader, nullptr) << uri;
          // TextLineInputFormat checkpoints no byte offset (-1) and the lines read.
          EXPECT_EQ(reader->records_to_skip, f["next_line"].get<int64_t>()) << uri;
        } else if (status == "unstarted") {
          EXPECT_TRUE(reader != nullptr || pending != nullptr) << uri;
          if (reader) {
            EXPECT_EQ(reader->records_to_skip.value_or(0), 0) << uri;
          }
        } else {  // read to the end: processed, held by no split
          EXPECT_EQ(reader, nullptr) << uri;
          EXPECT_EQ(pending, nullptr) << uri;
          EXPECT_NE(std::find(done.begin(), done.end(), uri), done.end()) << uri;
        }
        ++checked;
      }
    } else if (kind == "file-sink") {
      auto ops = OfKind(r, ConnectorKind::kFileSink);
      ASSERT_FALSE(ops.empty());
      std::set<std::tuple<std::string, std::string, uint64_t>> commits;
      for (const auto* o : ops) {
        for (const auto& t : o->sink->transactions) {
          if (t.action == SinkAction::kCommit) {
            commits.emplace(t.final_path, t.pending_path, t.size_bytes.value_or(0));
          }
        }
      }
      std::set<std::tuple<std::string, std::string, uint64_t>> expected;
      for (const auto& f : op["pending_files"]) {
        expected.emplace(f["final_path"], f["in_progress_path"], f["bytes"].get<uint64_t>());
      }
      EXPECT_EQ(commits, expected);
      checked += expected.size();
    }
  }
  EXPECT_GT(checked, 0u) << "the truth file names no position";
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, FlinkConnectorTruthTest,
    ::testing::Values("kafka-source-sink-flink1.20-checkpoint",
                      "kafka-source-sink-flink1.20-savepoint",
                      "kafka-source-sink-flink2.3-checkpoint",
                      "kafka-source-sink-flink2.3-savepoint", "legacy-kafka-flink1.20-checkpoint",
                      "legacy-kafka-flink1.20-savepoint", "file-source-sink-flink1.20-checkpoint",
                      "file-source-sink-flink1.20-savepoint",
                      "file-source-sink-flink2.3-checkpoint",
                      "file-source-sink-flink2.3-savepoint"),
    [](const ::testing::TestParamInfo<const char*>& param_info) {
      std::string n = param_info.param;
      for (char& c : n) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return n;
    });

}  // namespace
}  // namespace ckpt::ops
