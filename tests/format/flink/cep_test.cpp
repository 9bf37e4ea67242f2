// Flink CEP's state serializers (NFAState, the SharedBuffer's nodes with their edges, Lockable,
// NodeId, EventId, DeweyNumber): snapshots in a keyed meta information stream and values, built
// byte by byte from flink-cep's serializers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/value_decoder.h"
#include "ckpt/testing/gtest_util.h"
#include "java_bytes.h"

namespace ckpt::flink {
namespace {

using java_bytes::I16;
using java_bytes::I32;
using java_bytes::I64;
using java_bytes::Utf;

const char kCepEventId[] = "org.apache.flink.cep.nfa.sharedbuffer.EventId$EventIdSerializer$EventIdSerializerSnapshot";
const char kCepDewey[] = "org.apache.flink.cep.nfa.DeweyNumber$DeweyNumberSerializer$DeweyNumberSerializerSnapshot";
const char kCepNodeId[] = "org.apache.flink.cep.nfa.sharedbuffer.NodeId$NodeIdSerializer$NodeIdSerializerSnapshot";
const char kCepEdge[] =
    "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferEdge$SharedBufferEdgeSerializer$SharedBufferEdgeSerializerSnapshot";
const char kCepNode[] = "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferNodeSerializerSnapshotV2";
const char kCepLockable[] = "org.apache.flink.cep.nfa.sharedbuffer.LockableTypeSerializerSnapshot";
const char kCepNfa[] = "org.apache.flink.cep.nfa.NFAStateSerializerSnapshot";
const char kCepMap[] = "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot";
const char kCepLong[] = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
const char kCepVoid[] = "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";

std::string CepByte(uint8_t b) { return std::string(1, static_cast<char>(b)); }

// A nested (versioned) snapshot: class, version, its bytes.
std::string CepSimple(const char* cls) { return Utf(cls) + I32(1); }
// CompositeTypeSerializerSnapshot: magic, outer version, nested delegate (magic, version, n, ...).
std::string CepComposite(const char* cls, int32_t outer_version, const std::vector<std::string>& nested) {
  std::string s = Utf(cls) + I32(1) + I32(0x000DE704) + I32(outer_version) + I32(0x001457FD) + I32(1) +
                  I32(static_cast<int32_t>(nested.size()));
  for (const auto& n : nested) s += n;
  return s;
}
std::string CepNodeIdSnap() { return CepComposite(kCepNodeId, 1, {CepSimple(kCepEventId)}); }

std::string CepStateMeta(const std::string& name, const std::string& kind, const std::string& value_snapshot) {
  return Utf(name) + I32(0) + I32(1) + Utf("KEYED_STATE_TYPE") + Utf(kind) + I32(2) + Utf("NAMESPACE_SERIALIZER") +
         I32(2) + CepSimple(kCepVoid) + Utf("VALUE_SERIALIZER") + I32(2) + value_snapshot;
}

// The states CepOperator registers, with `nfa_outer` the NFAState snapshot's outer version.
std::string CepMeta(int32_t nfa_outer) {
  const std::string nfa = CepComposite(kCepNfa, nfa_outer, {CepSimple(kCepDewey), CepNodeIdSnap(), CepSimple(kCepEventId)});
  const std::string nodes = CepComposite(
      kCepMap, 1,
      {CepNodeIdSnap(),
       CepComposite(kCepLockable, 1,
                 {CepComposite(kCepNode, 1, {CepComposite(kCepEdge, 1, {CepNodeIdSnap(), CepSimple(kCepDewey)})})})});
  const std::string entries = CepComposite(kCepMap, 1, {CepSimple(kCepEventId), CepComposite(kCepLockable, 1, {CepSimple(kCepLong)})});
  return I32(6) + CepByte(0) + I32(2) + CepSimple(kCepLong) + I16(3) + CepStateMeta("nfaStateName", "VALUE", nfa) +
         CepStateMeta("sharedBuffer-nodes", "MAP", nodes) + CepStateMeta("sharedBuffer-entries", "MAP", entries);
}

base::Result<std::string> CepDecode(const SerializerSnapshot& s, const std::string& bytes) {
  DataInput in(bytes, "cep", 10);
  std::string json;
  CKPT_RETURN_IF_ERROR(DecodeValueJson(s, in, &json));
  if (!in.at_end()) return base::Status::Corruption("trailing bytes");
  return json;
}

std::string CepStr(const std::string& s) { return CepByte(static_cast<uint8_t>(s.size() + 1)) + s; }  // StringValue, ASCII
std::string CepEventIdBytes(int32_t id, int64_t ts) { return I32(id) + I64(ts); }
std::string CepNodeIdBytes(int32_t id, int64_t ts, const std::string& page) { return CepByte(1) + CepEventIdBytes(id, ts) + CepStr(page); }
std::string CepDeweyBytes(std::vector<int32_t> d) {
  std::string s = I32(static_cast<int32_t>(d.size()));
  for (int32_t x : d) s += I32(x);
  return s;
}

TEST(FlinkCepTest, NfaStateWithPartialAndCompletedMatches) {
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(CepMeta(1), "cep"));
  ASSERT_EQ(meta.states.size(), 3u);
  const SerializerSnapshot& nfa = *meta.states[0].Serializer("VALUE_SERIALIZER");
  EXPECT_EQ(nfa.DisplayName(), "NFAStateSerializerSnapshot<DeweyNumber, NodeId<EventId>, EventId>");
  ASSERT_TRUE(CanDecode(nfa));
  const std::string value = I32(1) + CepStr("middle") + CepNodeIdBytes(4, 1000, "start") + CepDeweyBytes({1, 0}) + I64(900) +
                            CepByte(1) + CepEventIdBytes(3, 900) +  // one partial match
                            I32(1) + CepStr("$endState$") + CepByte(0) + CepDeweyBytes({2}) + I64(-1) + CepByte(0);
  EXPECT_EQ(*CepDecode(nfa, value),
            "{\"partial_matches\":[{\"state\":\"middle\",\"previous_entry\":{\"event_id\":{\"id\":4,\"timestamp\":1000},"
            "\"page\":\"start\"},\"version\":\"1.0\",\"start_timestamp\":900,\"start_event\":{\"id\":3,\"timestamp\":900}}],"
            "\"completed_matches\":[{\"state\":\"$endState$\",\"previous_entry\":null,\"version\":\"2\","
            "\"start_timestamp\":-1,\"start_event\":null}]}");
  ASSERT_STATUS(CepDecode(nfa, value.substr(0, 20)), kCorruption, "cep: at byte");
  std::string flipped = value;
  flipped[4 + 7] = 7;  // the previous entry's presence byte
  ASSERT_STATUS(CepDecode(nfa, flipped), kCorruption, "cep: at byte 21: NodeId presence byte 7");
}

TEST(FlinkCepTest, SharedBufferNodesEdgesAndLockableEntries) {
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(CepMeta(1), "cep"));
  const SerializerSnapshot& nodes = *meta.states[1].Serializer("VALUE_SERIALIZER");
  ASSERT_TRUE(CanDecode(nodes));
  // MapSerializer: i32 n, (key, bool isNull, value): NodeId → Lockable<SharedBufferNode>.
  const std::string node_map = I32(1) + CepNodeIdBytes(4, 1000, "middle") + CepByte(0) + I32(2) + I32(1) + I32(1) +
                               CepNodeIdBytes(3, 900, "start") + CepDeweyBytes({1, 0});
  EXPECT_EQ(*CepDecode(nodes, node_map),
            "[[{\"event_id\":{\"id\":4,\"timestamp\":1000},\"page\":\"middle\"},{\"ref_count\":2,\"element\":"
            "{\"edges\":[{\"ref_count\":1,\"edge\":{\"target\":{\"event_id\":{\"id\":3,\"timestamp\":900},"
            "\"page\":\"start\"},\"version\":\"1.0\"}}]}}]]");
  const SerializerSnapshot& entries = *meta.states[2].Serializer("VALUE_SERIALIZER");
  ASSERT_TRUE(CanDecode(entries));
  EXPECT_EQ(*CepDecode(entries, I32(1) + CepEventIdBytes(3, 900) + CepByte(0) + I32(1) + I64(42)),
            "[[{\"id\":3,\"timestamp\":900},{\"ref_count\":1,\"element\":42}]]");
}

TEST(FlinkCepTest, AnUnknownNfaOuterVersionIsPassedNotGuessed) {
  ASSERT_OK_AND_ASSIGN(KeyedBackendMeta meta, ReadKeyedBackendMeta(CepMeta(2), "cep"));
  ASSERT_EQ(meta.states.size(), 3u);
  EXPECT_FALSE(CanDecode(*meta.states[0].Serializer("VALUE_SERIALIZER")));
  EXPECT_TRUE(CanDecode(*meta.states[2].Serializer("VALUE_SERIALIZER")));
}

}  // namespace
}  // namespace ckpt::flink
