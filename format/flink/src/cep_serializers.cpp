// See cep_serializers.h. Wire formats (flink-cep):
//   EventId        := i32 id, i64 timestamp
//   DeweyNumber    := i32 n, i32 digit{n}                       → "1.0.2"
//   NodeId         := u8 0 (null) | u8 1, EventId, StringValue page name
//   SharedBufferEdge := NodeId target, DeweyNumber version
//   SharedBufferNode (snapshot V2) := i32 n, (i32 ref count, SharedBufferEdge){n}
//   Lockable<E>    := i32 ref count, E
//   NFAState (outer snapshot version 1) := states partial, states completed
//     states       := i32 n, computation state{n}
//     computation state := StringValue state name, NodeId previous entry, DeweyNumber version,
//                          i64 start timestamp, u8 0 | u8 1 EventId start event
#include "cep_serializers.h"

#include "ckpt/base/json_quote.h"
#include "ckpt/flink/value_decoder.h"

namespace ckpt::flink::internal {
namespace {

using base::Status;

enum class Cep { kNone, kEventId, kDewey, kNodeId, kEdge, kNode, kLockable, kNfaState };

Cep CepOf(const std::string& c) {
  if (c == "org.apache.flink.cep.nfa.sharedbuffer.EventId$EventIdSerializer$EventIdSerializerSnapshot") return Cep::kEventId;
  if (c == "org.apache.flink.cep.nfa.DeweyNumber$DeweyNumberSerializer$DeweyNumberSerializerSnapshot") return Cep::kDewey;
  if (c == "org.apache.flink.cep.nfa.sharedbuffer.NodeId$NodeIdSerializer$NodeIdSerializerSnapshot") return Cep::kNodeId;
  if (c == "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferEdge$SharedBufferEdgeSerializer$"
           "SharedBufferEdgeSerializerSnapshot") {
    return Cep::kEdge;
  }
  if (c == "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferNodeSerializerSnapshotV2") return Cep::kNode;
  if (c == "org.apache.flink.cep.nfa.sharedbuffer.LockableTypeSerializerSnapshot") return Cep::kLockable;
  if (c == "org.apache.flink.cep.nfa.NFAStateSerializerSnapshot") return Cep::kNfaState;
  return Cep::kNone;
}

Status EventId(DataInput& in, std::string* json) {
  CKPT_ASSIGN_OR_RETURN(int32_t id, in.ReadI32());
  CKPT_ASSIGN_OR_RETURN(int64_t ts, in.ReadI64());
  *json += "{\"id\":" + std::to_string(id) + ",\"timestamp\":" + std::to_string(ts) + "}";
  return Status::OK();
}

Status Dewey(DataInput& in, std::string* json) {
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("Dewey number length", 4));
  std::string digits;
  for (uint32_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(int32_t d, in.ReadI32());
    digits += (i ? "." : "") + std::to_string(d);
  }
  base::AppendJsonQuoted(digits, json);
  return Status::OK();
}

Status StringValue(DataInput& in, std::string* json) {
  SerializerSnapshot s;
  s.class_name = "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot";
  return DecodeValueJson(s, in, json);
}

Status NodeId(DataInput& in, std::string* json) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t present, in.ReadU8());
  if (present == 0) {
    *json += "null";
    return Status::OK();
  }
  if (present != 1) return in.Error(at, "NodeId presence byte " + std::to_string(present));
  *json += "{\"event_id\":";
  CKPT_RETURN_IF_ERROR(EventId(in, json));
  *json += ",\"page\":";
  CKPT_RETURN_IF_ERROR(StringValue(in, json));
  *json += "}";
  return Status::OK();
}

Status Edge(DataInput& in, std::string* json) {
  *json += "{\"target\":";
  CKPT_RETURN_IF_ERROR(NodeId(in, json));
  *json += ",\"version\":";
  CKPT_RETURN_IF_ERROR(Dewey(in, json));
  *json += "}";
  return Status::OK();
}

Status ComputationStates(DataInput& in, std::string* json) {
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("computation state count", 15));
  *json += "[";
  for (uint32_t i = 0; i < n; ++i) {
    if (i) *json += ",";
    *json += "{\"state\":";
    CKPT_RETURN_IF_ERROR(StringValue(in, json));
    *json += ",\"previous_entry\":";
    CKPT_RETURN_IF_ERROR(NodeId(in, json));
    *json += ",\"version\":";
    CKPT_RETURN_IF_ERROR(Dewey(in, json));
    CKPT_ASSIGN_OR_RETURN(int64_t start, in.ReadI64());
    *json += ",\"start_timestamp\":" + std::to_string(start) + ",\"start_event\":";
    const uint64_t at = in.offset();
    CKPT_ASSIGN_OR_RETURN(uint8_t has_start, in.ReadU8());
    if (has_start == 1) {
      CKPT_RETURN_IF_ERROR(EventId(in, json));
    } else if (has_start == 0) {
      *json += "null";
    } else {
      return in.Error(at, "start event presence byte " + std::to_string(has_start));
    }
    *json += "}";
  }
  *json += "]";
  return Status::OK();
}

}  // namespace

bool IsCepComposite(const std::string& c) {
  const Cep k = CepOf(c);
  return k == Cep::kNodeId || k == Cep::kEdge || k == Cep::kNode || k == Cep::kLockable || k == Cep::kNfaState;
}

bool IsCepSimple(const std::string& c) {
  const Cep k = CepOf(c);
  return k == Cep::kEventId || k == Cep::kDewey;
}

bool CepOuterVersionKnown(const std::string& c, int32_t outer_version) {
  switch (CepOf(c)) {
    case Cep::kNfaState:  // later versions may carry outer bytes of their own
    case Cep::kNodeId:
    case Cep::kEdge:
      return outer_version == 1;
    default:
      return true;
  }
}

bool IsCepDecodable(const SerializerSnapshot& s) {
  if (!s.decoded) return false;
  switch (CepOf(s.class_name)) {
    case Cep::kNone: return false;
    case Cep::kEventId:
    case Cep::kDewey: return true;
    case Cep::kNodeId: return s.nested.size() == 1;
    case Cep::kEdge: return s.nested.size() == 2;
    case Cep::kNode: return s.nested.size() == 1;
    case Cep::kLockable: return s.nested.size() == 1;
    case Cep::kNfaState: return s.nested.size() == 3;
  }
  return false;
}

Status DecodeCepValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json) {
  switch (CepOf(s.class_name)) {
    case Cep::kEventId: return EventId(in, json);
    case Cep::kDewey: return Dewey(in, json);
    case Cep::kNodeId: return NodeId(in, json);
    case Cep::kEdge: return Edge(in, json);
    case Cep::kNode: {
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("shared buffer edge count", 9));
      *json += "{\"edges\":[";
      for (uint32_t i = 0; i < n; ++i) {
        if (i) *json += ",";
        CKPT_ASSIGN_OR_RETURN(int32_t refs, in.ReadI32());
        *json += "{\"ref_count\":" + std::to_string(refs) + ",\"edge\":";
        CKPT_RETURN_IF_ERROR(Edge(in, json));
        *json += "}";
      }
      *json += "]}";
      return Status::OK();
    }
    case Cep::kLockable: {
      CKPT_ASSIGN_OR_RETURN(int32_t refs, in.ReadI32());
      *json += "{\"ref_count\":" + std::to_string(refs) + ",\"element\":";
      CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[0], in, json));
      *json += "}";
      return Status::OK();
    }
    case Cep::kNfaState:
      *json += "{\"partial_matches\":";
      CKPT_RETURN_IF_ERROR(ComputationStates(in, json));
      *json += ",\"completed_matches\":";
      CKPT_RETURN_IF_ERROR(ComputationStates(in, json));
      *json += "}";
      return Status::OK();
    case Cep::kNone:
      break;
  }
  return in.Error("serializer " + s.class_name + " is not a CEP serializer");
}

}  // namespace ckpt::flink::internal
