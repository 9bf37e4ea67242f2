// See extra_serializers.h. Layouts (Flink's source):
//  KryoSerializerSnapshot (versions 1, 2): UTF type class, then three LinkedOptionalMaps (Kryo
//    registrations, default serializers, default serializer classes): i64 header, i32 n, n times
//    (UTF name, bool + i32-framed key, bool + i32-framed value).
//  AvroSerializerSnapshot version 2: UTF runtime type class, UTF writer schema (JSON). Version 1
//    (Flink 1.7-1.8): the schema alone, or (Flink 1.7.0) the class then the schema; told apart
//    by whether the first string is JSON.
//  StreamElementSerializer values: u8 tag; 0 record (i64 timestamp, value), 1 record (value),
//    2 watermark (i64), 3 latency marker (i64 marked time, i64 operator id lower, upper, i32
//    subtask), 4 watermark status (i32: 0 active, -1 idle), 5 record attributes (bool backlog),
//    6 internal watermark (i32 subpartition, i64 timestamp).
//  JavaSerializer values: one java.io.ObjectOutputStream (header and one object), unframed.
#include "extra_serializers.h"

#include "avro_decoder.h"
#include "cep_serializers.h"
#include "ckpt/base/json_quote.h"
#include "ckpt/flink/java_serialization.h"
#include "ckpt/flink/value_decoder.h"

namespace ckpt::flink::internal {
namespace {

using base::Status;

constexpr int64_t kLinkedOptionalMapHeader = 0x4f2c69a3d70LL;

bool IsKryo(const std::string& c) { return c.ends_with("runtime.kryo.KryoSerializerSnapshot"); }
bool IsAvro(const std::string& c) { return c.ends_with("avro.typeutils.AvroSerializerSnapshot"); }

Status SkipOptionalMaps(DataInput& in, int maps, const std::string& owner) {
  for (int m = 0; m < maps; ++m) {
    const uint64_t at = in.offset();
    CKPT_ASSIGN_OR_RETURN(int64_t header, in.ReadI64());
    if (header != kLinkedOptionalMapHeader) return in.Error(at, owner + ": optional map without its header");
    CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("optional map size", 4));
    for (uint32_t i = 0; i < n; ++i) {
      CKPT_RETURN_IF_ERROR(in.ReadUtf().status());
      for (int part = 0; part < 2; ++part) {
        CKPT_ASSIGN_OR_RETURN(bool present, in.ReadBool());
        if (present) CKPT_RETURN_IF_ERROR(in.ReadLengthPrefixed().status());
      }
    }
  }
  return Status::OK();
}

std::string Hex16(uint64_t hi, uint64_t lo) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(hi),
                static_cast<unsigned long long>(lo));
  return buf;
}

Status StreamElement(const SerializerSnapshot& s, DataInput& in, std::string* json) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t tag, in.ReadU8());
  switch (tag) {
    case 0:
    case 1: {
      std::string ts;
      if (tag == 0) {
        CKPT_ASSIGN_OR_RETURN(int64_t t, in.ReadI64());
        ts = std::to_string(t);
      }
      *json += "{\"record\":";
      CKPT_RETURN_IF_ERROR(DecodeValueJson(s.nested[0], in, json));
      if (!ts.empty()) *json += ",\"timestamp\":" + ts;
      *json += "}";
      return Status::OK();
    }
    case 2: {
      CKPT_ASSIGN_OR_RETURN(int64_t t, in.ReadI64());
      *json += "{\"watermark\":" + std::to_string(t) + "}";
      return Status::OK();
    }
    case 3: {
      CKPT_ASSIGN_OR_RETURN(int64_t marked, in.ReadI64());
      CKPT_ASSIGN_OR_RETURN(int64_t lower, in.ReadI64());
      CKPT_ASSIGN_OR_RETURN(int64_t upper, in.ReadI64());
      CKPT_ASSIGN_OR_RETURN(int32_t subtask, in.ReadI32());
      // OperatorID's hex form: the upper part, then the lower (AbstractID.toString).
      *json += "{\"latency_marker\":{\"marked_time\":" + std::to_string(marked) + ",\"operator_id\":\"" +
               Hex16(static_cast<uint64_t>(upper), static_cast<uint64_t>(lower)) +
               "\",\"subtask\":" + std::to_string(subtask) + "}}";
      return Status::OK();
    }
    case 4: {
      CKPT_ASSIGN_OR_RETURN(int32_t status, in.ReadI32());
      *json += "{\"watermark_status\":";
      *json += status == 0 ? "\"ACTIVE\"" : status == -1 ? "\"IDLE\"" : std::to_string(status);
      *json += "}";
      return Status::OK();
    }
    case 5: {
      CKPT_ASSIGN_OR_RETURN(bool backlog, in.ReadBool());
      *json += std::string("{\"record_attributes\":{\"backlog\":") + (backlog ? "true" : "false") + "}}";
      return Status::OK();
    }
    case 6: {
      CKPT_ASSIGN_OR_RETURN(int32_t sub, in.ReadI32());
      CKPT_ASSIGN_OR_RETURN(int64_t t, in.ReadI64());
      *json += "{\"watermark\":" + std::to_string(t) + ",\"subpartition\":" + std::to_string(sub) + "}";
      return Status::OK();
    }
    default:
      return in.Error(at, "stream element tag " + std::to_string(tag) + " (0-6 expected)");
  }
}

}  // namespace

base::Result<bool> ReadExtraSnapshot(DataInput& in, SerializerSnapshot* s) {
  if (IsCepSimple(s->class_name)) return true;  // EventId, DeweyNumber: nothing of their own
  if (IsKryo(s->class_name)) {
    CKPT_ASSIGN_OR_RETURN(s->outer, in.ReadUtf());
    CKPT_RETURN_IF_ERROR(SkipOptionalMaps(in, 3, s->class_name + " of " + s->outer));
    return true;
  }
  if (IsAvro(s->class_name)) {
    CKPT_ASSIGN_OR_RETURN(std::string first, in.ReadUtf());
    const bool first_is_schema = !first.empty() && (first[0] == '{' || first[0] == '"' || first[0] == '[');
    if (s->version == 1 && first_is_schema) {
      s->schema = std::move(first);
    } else {
      s->outer = std::move(first);
      CKPT_ASSIGN_OR_RETURN(s->schema, in.ReadUtf());
    }
    return true;
  }
  return false;
}

SerializerKind ExtraSerializerKind(const SerializerSnapshot& s) {
  const std::string& c = s.class_name;
  if (c.ends_with("StreamElementSerializer$StreamElementSerializerSnapshot") && s.decoded &&
      s.nested.size() == 1) {
    return SerializerKind::kStreamElement;
  }
  if (c.ends_with("JavaSerializer$JavaSerializerSnapshot")) return SerializerKind::kJava;
  if (IsAvro(c) && !s.schema.empty() && CachedAvroSchema(s.schema).ok()) return SerializerKind::kAvro;
  if (IsCepDecodable(s)) return SerializerKind::kCep;
  return SerializerKind::kUnknown;
}

Status DecodeExtraValueJson(const SerializerSnapshot& s, DataInput& in, std::string* json) {
  switch (ExtraSerializerKind(s)) {
    case SerializerKind::kStreamElement:
      return StreamElement(s, in, json);
    case SerializerKind::kJava: {
      CKPT_ASSIGN_OR_RETURN(JavaStream stream, ReadJavaObject(in));
      if (stream.root() == nullptr) return in.Error("Java serialization stream without an object");
      *json += JavaValueToJson(*stream.root());
      return Status::OK();
    }
    case SerializerKind::kAvro: {
      auto schema = CachedAvroSchema(s.schema);
      if (!schema.ok()) {
        return in.Error(s.class_name + " of " + s.outer + ": " + std::string(schema.status().message()));
      }
      return DecodeAvroJson((*schema)->root(), in, json);
    }
    case SerializerKind::kCep:
      return DecodeCepValueJson(s, in, json);
    default:
      return in.Error("serializer " + s.class_name + " is not decodable");
  }
}

}  // namespace ckpt::flink::internal
