// Private to ckpt::ops: the Kafka connector's checkpointed bytes (flink-connector-kafka), decoded
// into the positions model. Each decoder reads exactly the bytes of one serialized object and
// fails (Corruption naming the file and byte offset) on anything else, so a success also says
// "these bytes are Kafka's". Pure functions; thread-safe. docs/flink-format.md, "Connector state".
#pragma once

#include <string>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/ops/positions.h"

namespace ckpt::ops::internal::connector {

// KafkaPartitionSplitSerializer v0: UTF topic, i32 partition, i64 start, i64 stop offset.
base::Result<SourcePosition> DecodeKafkaSplit(int32_t version, flink::DataInput& in);

// KafkaSourceEnumStateSerializer v0 (split assignments), v1 (assigned partitions), v2
// (partitions with assignment status, initial-discovery flag), v3 (whole splits with their
// starting offsets and status): enumerator-origin positions.
base::Result<std::vector<SourcePosition>> DecodeKafkaEnumState(int32_t version,
                                                                 flink::DataInput& in);

// KafkaWriterStateSerializer v1 (prefix), v2 (prefix, since connector 4.0 the owned subtask, owned
// subtask count and ownership mode, then the precommitted transactions with checkpoint ID).
struct KafkaWriterState {
  std::string transactional_id_prefix;
  std::vector<SinkTransaction> ongoing;  // precommitted, action kCommit (no producer ID/epoch)
};
base::Result<KafkaWriterState> DecodeKafkaWriterState(int32_t version, flink::DataInput& in);

// KafkaCommittableSerializer v1: i16 epoch, i64 producer ID, UTF transactional ID.
base::Result<SinkTransaction> DecodeKafkaCommittable(int32_t version, flink::DataInput& in);

// FlinkKafkaConsumerBase's union state element, Tuple2<KafkaTopicPartition, Long> through a
// TupleSerializer of (KryoSerializer<KafkaTopicPartition>, LongSerializer): Kryo's class (a
// registered ID, or 1 and the name), its reference marker, then the fields in name order
// (cachedHash, partition: zig-zag varints; topic: reference marker and Kryo string), then the
// offset of the last record read (next_offset is one more).
base::Result<SourcePosition> DecodeLegacyConsumerOffset(flink::DataInput& in);

// TwoPhaseCommitSinkFunction.State of FlinkKafkaProducer (StateSerializer over
// KafkaTransactionState and KafkaTransactionContext): the open transaction (aborted on
// restore) and those pending commit.
base::Result<std::vector<SinkTransaction>> DecodeLegacyProducerState(flink::DataInput& in);

}  // namespace ckpt::ops::internal::connector
