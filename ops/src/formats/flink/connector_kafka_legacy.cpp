// The legacy Kafka connector (FlinkKafkaConsumerBase, FlinkKafkaProducer) stores TypeSerializer
// bytes, not SimpleVersionedSerializer bytes. The consumer's KafkaTopicPartition goes through
// Kryo (FieldSerializer, fields in name order: ints `cachedHash`, `partition` as zig-zag varints,
// String `topic`; Flink's Kryo tracks references); each element is written after a Kryo reset.
#include <cstring>

#include "formats/flink/connector_common.h"
#include "formats/flink/connector_kafka.h"

namespace ckpt::ops::internal::connector {

using base::Status;

namespace {

constexpr const char* kKafkaTopicPartitionClasses[] = {
    "org.apache.flink.streaming.connectors.kafka.internals.KafkaTopicPartition",
};

// KafkaTopicPartitionStateSentinel.
constexpr int64_t kSentinelNotSet = -915623761776LL;
constexpr int64_t kSentinelEarliest = -915623761775LL;
constexpr int64_t kSentinelLatest = -915623761774LL;
constexpr int64_t kSentinelGroup = -915623761773LL;

// Kryo's varint: 7-bit groups, least significant first, high bit = more (at most 5 bytes).
base::Result<uint32_t> ReadKryoVarint(flink::DataInput& in) {
  uint32_t v = 0;
  for (int i = 0; i < 5; ++i) {
    CKPT_ASSIGN_OR_RETURN(uint8_t b, in.ReadU8());
    v |= static_cast<uint32_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return v;
  }
  return in.Error("overlong Kryo varint");
}

// Output.writeString: ASCII (last byte | 0x80), or a flagged UTF-8 length (chars + 1, 0 = null)
// followed by Kryo's UTF-8-like char encoding (1 to 3 bytes per UTF-16 unit).
base::Result<std::optional<std::string>> ReadKryoString(flink::DataInput& in) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint8_t b, in.ReadU8());
  std::string s;
  if ((b & 0x80) == 0) {
    s.push_back(static_cast<char>(b));
    while (true) {
      CKPT_ASSIGN_OR_RETURN(uint8_t c, in.ReadU8());
      s.push_back(static_cast<char>(c & 0x7F));
      if (c & 0x80) return std::optional<std::string>(std::move(s));
    }
  }
  uint32_t n = b & 0x3F;
  if (b & 0x40) {
    for (int shift = 6; shift <= 27; shift += 7) {
      CKPT_ASSIGN_OR_RETURN(uint8_t c, in.ReadU8());
      n |= static_cast<uint32_t>(c & 0x7F) << shift;
      if ((c & 0x80) == 0) break;
    }
  }
  if (n == 0) return std::optional<std::string>();
  if (n - 1 > in.remaining()) return in.Error(at, "Kryo string length exceeds the bytes left");
  for (uint32_t i = 0; i + 1 < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(uint8_t c, in.ReadU8());
    uint32_t unit = c;
    if ((c >> 4) == 12 || (c >> 4) == 13) {
      CKPT_ASSIGN_OR_RETURN(uint8_t c2, in.ReadU8());
      unit = ((c & 0x1Fu) << 6) | (c2 & 0x3Fu);
    } else if ((c >> 4) == 14) {
      CKPT_ASSIGN_OR_RETURN(uint8_t c2, in.ReadU8());
      CKPT_ASSIGN_OR_RETURN(uint8_t c3, in.ReadU8());
      unit = ((c & 0x0Fu) << 12) | ((c2 & 0x3Fu) << 6) | (c3 & 0x3Fu);
    } else if (c >= 0x80) {
      return in.Error("invalid byte in a Kryo string");
    }
    if (unit < 0x80) {
      s.push_back(static_cast<char>(unit));
    } else if (unit < 0x800) {
      s.push_back(static_cast<char>(0xC0 | (unit >> 6)));
      s.push_back(static_cast<char>(0x80 | (unit & 0x3F)));
    } else {
      s.push_back(static_cast<char>(0xE0 | (unit >> 12)));
      s.push_back(static_cast<char>(0x80 | ((unit >> 6) & 0x3F)));
      s.push_back(static_cast<char>(0x80 | (unit & 0x3F)));
    }
  }
  return std::optional<std::string>(std::move(s));
}

base::Result<SinkTransaction> ReadTransactionState(flink::DataInput& in, SinkAction action) {
  SinkTransaction t;
  t.action = action;
  CKPT_ASSIGN_OR_RETURN(bool has_id, in.ReadBool());
  if (has_id) {
    CKPT_ASSIGN_OR_RETURN(t.transactional_id, in.ReadUtf());
  }
  CKPT_ASSIGN_OR_RETURN(t.producer_id, in.ReadI64());
  CKPT_ASSIGN_OR_RETURN(t.epoch, in.ReadI16());
  CKPT_RETURN_IF_ERROR(in.ReadI64().status());  // transaction start time
  return t;
}

base::Result<std::vector<SinkTransaction>> ReadProducerState(flink::DataInput in,
                                                             bool nullable_pending) {
  std::vector<SinkTransaction> out;
  bool has_pending = true;
  if (nullable_pending) {
    CKPT_ASSIGN_OR_RETURN(has_pending, in.ReadBool());
  }
  if (has_pending) {
    CKPT_ASSIGN_OR_RETURN(SinkTransaction t, ReadTransactionState(in, SinkAction::kAbort));
    out.push_back(std::move(t));
  }
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("pending commit transaction count", 19));
  for (uint32_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(SinkTransaction t, ReadTransactionState(in, SinkAction::kCommit));
    out.push_back(std::move(t));
  }
  CKPT_ASSIGN_OR_RETURN(bool has_context, in.ReadBool());
  if (has_context) {
    // KafkaTransactionContext: the transactional IDs this subtask may use.
    CKPT_ASSIGN_OR_RETURN(uint32_t ids, in.ReadCount("transactional ID count", 2));
    for (uint32_t i = 0; i < ids; ++i) CKPT_RETURN_IF_ERROR(in.ReadUtf().status());
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a FlinkKafkaProducer state"));
  return out;
}

}  // namespace

base::Result<SourcePosition> DecodeLegacyConsumerOffset(flink::DataInput& in) {
  const uint64_t at = in.offset();
  CKPT_ASSIGN_OR_RETURN(uint32_t class_id, ReadKryoVarint(in));
  if (class_id == 0) return in.Error(at, "null KafkaTopicPartition");
  if (class_id == 1) {  // unregistered class: name ID, then (first use) the class name
    CKPT_RETURN_IF_ERROR(ReadKryoVarint(in).status());
    const uint64_t name_at = in.offset();
    CKPT_ASSIGN_OR_RETURN(std::optional<std::string> name, ReadKryoString(in));
    bool known = false;
    for (const char* c : kKafkaTopicPartitionClasses) known |= name && *name == c;
    if (!known) {
      return in.Error(name_at, "Kryo class '" + name.value_or("null") +
                                   "' is not KafkaTopicPartition");
    }
  }
  // Flink's Kryo tracks references: a marker (1: a new object) ahead of each object.
  auto marker = [&in]() -> Status {
    const uint64_t m_at = in.offset();
    CKPT_ASSIGN_OR_RETURN(uint32_t m, ReadKryoVarint(in));
    if (m != 1) {
      return in.Error(m_at, "Kryo reference marker " + std::to_string(m) + ", not a new object");
    }
    return Status::OK();
  };
  CKPT_RETURN_IF_ERROR(marker());
  CKPT_RETURN_IF_ERROR(ReadKryoVarint(in).status());  // cachedHash
  CKPT_ASSIGN_OR_RETURN(uint32_t zigzag, ReadKryoVarint(in));
  SourcePosition p;
  p.origin = PositionOrigin::kUnion;
  p.partition = static_cast<int32_t>((zigzag >> 1) ^ (~(zigzag & 1) + 1));
  CKPT_RETURN_IF_ERROR(marker());
  CKPT_ASSIGN_OR_RETURN(std::optional<std::string> topic, ReadKryoString(in));
  if (!topic) return in.Error("KafkaTopicPartition without a topic");
  p.topic = *topic;
  CKPT_ASSIGN_OR_RETURN(int64_t offset, in.ReadI64());
  // FlinkKafkaConsumer stores the offset of the last record emitted, reading resumes at the next
  // one; or a KafkaTopicPartitionStateSentinel (OFFSET_NOT_SET stays unset).
  switch (offset) {
    case kSentinelEarliest: p.next_offset = kKafkaEarliestOffset; break;
    case kSentinelLatest: p.next_offset = kKafkaLatestOffset; break;
    case kSentinelGroup: p.next_offset = kKafkaCommittedOffset; break;
    case kSentinelNotSet: break;
    default:
      if (offset < 0) {
        return in.Error("negative KafkaTopicPartition offset " + std::to_string(offset));
      }
      p.next_offset = offset + 1;
  }
  p.split_id = p.topic + "-" + std::to_string(p.partition);
  return p;
}

base::Result<std::vector<SinkTransaction>> DecodeLegacyProducerState(flink::DataInput& in) {
  // StateSerializer writes a presence flag ahead of the open transaction only when its snapshot
  // says so (outer version 3+); the bytes decide which layout this is.
  auto plain = ReadProducerState(in, false);
  if (plain.ok()) return plain;
  auto flagged = ReadProducerState(in, true);
  if (flagged.ok()) return flagged;
  return plain.status();
}

}  // namespace ckpt::ops::internal::connector
