// flink-connector-kafka's SimpleVersionedSerializers (DataOutputStream bytes): the FLIP-27
// split and enumerator state, and the KafkaSink writer state and committable.
#include "formats/flink/connector_kafka.h"

#include "formats/flink/connector_common.h"

namespace ckpt::ops::internal::connector {

using base::Status;

namespace {

std::optional<int64_t> StoppingOffset(int64_t v) {
  if (v == kKafkaNoStoppingOffset) return std::nullopt;
  return v;
}

}  // namespace

base::Result<SourcePosition> DecodeKafkaSplit(int32_t version, flink::DataInput& in) {
  if (version != 0) return UnsupportedVersion(in, "KafkaPartitionSplit", version);
  SourcePosition p;
  CKPT_ASSIGN_OR_RETURN(p.topic, in.ReadUtf());
  CKPT_ASSIGN_OR_RETURN(p.partition, in.ReadI32());
  CKPT_ASSIGN_OR_RETURN(int64_t start, in.ReadI64());
  CKPT_ASSIGN_OR_RETURN(int64_t stop, in.ReadI64());
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a KafkaPartitionSplit"));
  // KafkaPartitionSplit accepts an offset >= 0 or one of its three special values only.
  if (start < kKafkaCommittedOffset) {
    return in.Error("KafkaPartitionSplit starting offset " + std::to_string(start) +
                    " is neither an offset nor a special value");
  }
  p.split_id = p.topic + "-" + std::to_string(p.partition);
  p.next_offset = start;
  p.stopping_offset = StoppingOffset(stop);
  return p;
}

base::Result<std::vector<SourcePosition>> DecodeKafkaEnumState(int32_t version,
                                                                 flink::DataInput& in) {
  std::vector<SourcePosition> out;
  auto add = [&](std::string topic, int32_t partition, PositionOrigin origin) {
    SourcePosition p;
    p.origin = origin;
    p.split_id = topic + "-" + std::to_string(partition);
    p.topic = std::move(topic);
    p.partition = partition;
    out.push_back(std::move(p));
  };
  if (version == 0) {
    // SerdeUtils.serializeSplitAssignments: split serializer version, then per subtask its
    // length-prefixed splits.
    CKPT_ASSIGN_OR_RETURN(int32_t split_version, in.ReadI32());
    CKPT_ASSIGN_OR_RETURN(uint32_t subtasks, in.ReadCount("subtask count", 8));
    for (uint32_t i = 0; i < subtasks; ++i) {
      CKPT_RETURN_IF_ERROR(in.ReadI32().status());
      CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("split count", 4));
      for (uint32_t j = 0; j < n; ++j) {
        const uint64_t at = in.offset() + 4;
        CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadLengthPrefixed());
        flink::DataInput split(b, in.file(), at);
        CKPT_ASSIGN_OR_RETURN(SourcePosition p, DecodeKafkaSplit(split_version, split));
        add(p.topic, p.partition, PositionOrigin::kEnumeratorAssigned);
      }
    }
  } else if (version == 1 || version == 2) {
    CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("partition count", version == 1 ? 6 : 10));
    for (uint32_t i = 0; i < n; ++i) {
      CKPT_ASSIGN_OR_RETURN(std::string topic, in.ReadUtf());
      CKPT_ASSIGN_OR_RETURN(int32_t partition, in.ReadI32());
      PositionOrigin origin = PositionOrigin::kEnumeratorAssigned;
      if (version == 2) {
        const uint64_t at = in.offset();
        CKPT_ASSIGN_OR_RETURN(int32_t status, in.ReadI32());
        // AssignmentStatus: 0 ASSIGNED, 1 UNASSIGNED_INITIAL.
        if (status != 0 && status != 1) {
          return in.Error(at, "unknown partition assignment status " + std::to_string(status));
        }
        if (status == 1) origin = PositionOrigin::kEnumeratorPending;
      }
      add(std::move(topic), partition, origin);
    }
    if (version == 2) CKPT_RETURN_IF_ERROR(in.ReadBool().status());  // initial discovery done
  } else if (version == 3) {
    // Partitions as whole splits (with their starting offsets): count, split serializer version,
    // then per split its length-prefixed bytes and assignment status; the discovery flag.
    CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("split count", 8));
    CKPT_ASSIGN_OR_RETURN(int32_t split_version, in.ReadI32());
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t at = in.offset() + 4;
      CKPT_ASSIGN_OR_RETURN(std::string_view b, in.ReadLengthPrefixed());
      flink::DataInput split(b, in.file(), at);
      CKPT_ASSIGN_OR_RETURN(SourcePosition p, DecodeKafkaSplit(split_version, split));
      const uint64_t status_at = in.offset();
      CKPT_ASSIGN_OR_RETURN(int32_t status, in.ReadI32());
      if (status != 0 && status != 1) {
        return in.Error(status_at, "unknown partition assignment status " + std::to_string(status));
      }
      p.origin =
          status == 1 ? PositionOrigin::kEnumeratorPending : PositionOrigin::kEnumeratorAssigned;
      out.push_back(std::move(p));
    }
    CKPT_RETURN_IF_ERROR(in.ReadBool().status());
  } else {
    return UnsupportedVersion(in, "KafkaSourceEnumState", version);
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a KafkaSourceEnumState"));
  return out;
}

namespace {

// Version 2 as flink-connector-kafka writes it since 4.0 (`extra_ints` 3: owned subtask, owned
// subtask count, transaction ownership), in the 4.0 development line (2: owned subtask, max
// parallelism) and before (0); the same version number for all, so the bytes decide.
base::Result<KafkaWriterState> ReadWriterStateV2(flink::DataInput in, int extra_ints) {
  KafkaWriterState s;
  CKPT_ASSIGN_OR_RETURN(s.transactional_id_prefix, in.ReadUtf());
  for (int i = 0; i < extra_ints; ++i) CKPT_RETURN_IF_ERROR(in.ReadI32().status());
  CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("transaction count", 10));
  for (uint32_t i = 0; i < n; ++i) {
    SinkTransaction t;
    t.action = SinkAction::kCommit;  // precommitted: the committer commits it
    CKPT_ASSIGN_OR_RETURN(t.transactional_id, in.ReadUtf());
    CKPT_ASSIGN_OR_RETURN(t.checkpoint_id, in.ReadI64());
    s.ongoing.push_back(std::move(t));
  }
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a KafkaWriterState"));
  return s;
}

}  // namespace

base::Result<KafkaWriterState> DecodeKafkaWriterState(int32_t version, flink::DataInput& in) {
  if (version < 1 || version > 2) return UnsupportedVersion(in, "KafkaWriterState", version);
  if (version == 1) {
    KafkaWriterState s;
    CKPT_ASSIGN_OR_RETURN(s.transactional_id_prefix, in.ReadUtf());
    CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a KafkaWriterState"));
    return s;
  }
  base::Status first;
  for (int extra : {3, 0, 2}) {
    auto s = ReadWriterStateV2(in, extra);
    if (s.ok()) return s;
    if (first.ok()) first = s.status();
  }
  return first;
}

base::Result<SinkTransaction> DecodeKafkaCommittable(int32_t version, flink::DataInput& in) {
  if (version != 1) return UnsupportedVersion(in, "KafkaCommittable", version);
  SinkTransaction t;
  t.action = SinkAction::kCommit;
  CKPT_ASSIGN_OR_RETURN(t.epoch, in.ReadI16());
  CKPT_ASSIGN_OR_RETURN(t.producer_id, in.ReadI64());
  CKPT_ASSIGN_OR_RETURN(t.transactional_id, in.ReadUtf());
  CKPT_RETURN_IF_ERROR(ExpectEnd(in, "a KafkaCommittable"));
  return t;
}

}  // namespace ckpt::ops::internal::connector
