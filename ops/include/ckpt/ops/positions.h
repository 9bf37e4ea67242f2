// positions: where each source of a snapshot resumes reading when the snapshot is restored, and
// what each transactional sink commits or aborts then. Decodes the operator and coordinator
// state of the connectors Flink users run (the FLIP-27 Kafka source and its enumerator, the
// legacy FlinkKafkaConsumer, the exactly-once KafkaSink and FlinkKafkaProducer, FileSource and
// FileSink) and of this engine's own sources and two-phase-commit sink. Reads only the operator
// state streams and `_metadata`'s coordinator state through the Fs seam; stateless; thread-safe
// given a thread-safe Fs; cancellable through Progress. docs/positions.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/progress.h"
#include "ckpt/base/result.h"
#include "ckpt/ops/finding.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

// Which connector's state an operator's positions were decoded from.
enum class ConnectorKind {
  kKafkaSource,         // FLIP-27 KafkaSource (reader splits + enumerator)
  kFlinkKafkaConsumer,  // legacy FlinkKafkaConsumer(Base) union state
  kKafkaSink,           // KafkaSink (writer state, committables)
  kFlinkKafkaProducer,  // legacy FlinkKafkaProducer (TwoPhaseCommitSinkFunction state)
  kFileSource,          // FLIP-27 FileSource (reader splits + enumerator)
  kFileSink,            // FileSink / StreamingFileSink (bucket states, committables)
  kEngineSequence,      // this engine's sequence source
  kEngineFileSource,    // this engine's text-file / directory source
  kEngineFileSink,      // this engine's two-phase-commit file sink
};
std::string_view ConnectorKindName(ConnectorKind k);  // "kafka-source", "file-sink", ...

// Where a position was recorded.
enum class PositionOrigin {
  kReader,                // a subtask's source reader (its split state)
  kEnumeratorAssigned,    // the enumerator's assigned partitions / splits
  kEnumeratorPending,     // the enumerator's not-yet-assigned partitions / splits
  kUnion,                 // union operator state (FlinkKafkaConsumer): every subtask has all
};
std::string_view PositionOriginName(PositionOrigin o);  // "reader", "enumerator-assigned", ...

// Special Kafka start offsets (KafkaPartitionSplit): the reader resolves these when it starts.
inline constexpr int64_t kKafkaLatestOffset = -1;
inline constexpr int64_t kKafkaEarliestOffset = -2;
inline constexpr int64_t kKafkaCommittedOffset = -3;
inline constexpr int64_t kKafkaNoStoppingOffset = INT64_MIN;

// One split (a Kafka partition, a file range, a sequence range) and where reading resumes.
struct SourcePosition {
  PositionOrigin origin = PositionOrigin::kReader;
  int32_t subtask = -1;       // reader: the subtask holding it; -1 for enumerator/union
  std::string split_id;       // the connector's split ID ("topic-3", a file split's ID, ...)
  // Kafka: topic and partition; the offset of the next record read (or a kKafka* special).
  std::string topic;
  int32_t partition = -1;
  std::optional<int64_t> next_offset;
  std::optional<int64_t> stopping_offset;  // unset when unbounded (kKafkaNoStoppingOffset)
  // Files: the path and the byte range of the split; reading resumes at `resume_offset`, then
  // skips `records_to_skip` records (Flink's CheckpointedPosition).
  std::string path;
  std::optional<int64_t> split_offset;
  std::optional<int64_t> split_length;
  std::optional<int64_t> resume_offset;
  std::optional<int64_t> records_to_skip;
  // Engine sequence source: the next value emitted and the end of the range (exclusive).
  std::optional<int64_t> next_value;
  std::optional<int64_t> end_value;
};

// What a restore does with one transaction or pending file of a transactional sink.
enum class SinkAction { kCommit, kAbort, kResume };
std::string_view SinkActionName(SinkAction a);  // "commit", "abort", "resume"

struct SinkTransaction {
  int32_t subtask = -1;       // -1 when the state does not say
  SinkAction action = SinkAction::kCommit;
  int64_t checkpoint_id = 0;  // 0 when the state does not say
  // Kafka: the transactional ID and the producer's ID and epoch (-1 when not recorded).
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t epoch = -1;
  // Files: the pending (or in-progress) file and the final file it becomes.
  std::string pending_path;
  std::string final_path;
  std::optional<uint64_t> size_bytes;
};

struct SinkPositions {
  std::string transactional_id_prefix;  // Kafka sinks ("" when not recorded)
  std::vector<std::string> bucket_ids;  // FileSink: buckets with state
  std::vector<SinkTransaction> transactions;
};

struct OperatorPositions {
  std::string id_hex;
  std::string name;  // OperatorLabel
  std::string uid;
  ConnectorKind connector = ConnectorKind::kKafkaSource;
  std::vector<SourcePosition> splits;  // reader splits by subtask, then enumerator, then union
  // FileSource enumerator: paths already processed (continuous monitoring).
  std::vector<std::string> processed_paths;
  std::optional<SinkPositions> sink;   // set for sinks
};

struct PositionsReport {
  std::vector<OperatorPositions> operators;  // snapshot order; only operators with connectors
  // Operator states that look like a connector's but could not be decoded (CKPT-C001, naming
  // the file, state and offset), and other notes; sorted.
  std::vector<Finding> findings;
};

// The positions of every connector of a loaded snapshot. An operator whose state belongs to no
// known connector is left out. A connector state that cannot be decoded becomes a finding, not
// an error; Corruption/IOError only when a state file cannot be read at all (naming it);
// Cancelled.
base::Result<PositionsReport> ComputePositions(base::Fs& fs, const Snapshot& snapshot,
                                               const base::Progress& progress = {});

// How far one Kafka partition (or file, or sequence split) advanced from snapshot A to B.
struct PositionAdvance {
  std::string operator_id_hex;
  std::string operator_name;
  std::string key;  // "topic/partition", a file path, or a split ID
  std::optional<int64_t> from;  // A's resume offset; unset when the split is new in B
  std::optional<int64_t> to;    // B's; unset when the split is gone in B
  // The operator's connector (B's, else A's): with kEngineFileSource an offset of -1 is a
  // finished file.
  ConnectorKind connector = ConnectorKind::kKafkaSource;
  // True when `key` is a Kafka topic/partition: negative offsets are then the kKafka* specials.
  bool kafka = false;
  // True when `offset` (from or to) is the engine file source's finished-file marker (-1).
  bool IsDone(int64_t offset) const {
    return connector == ConnectorKind::kEngineFileSource && offset == -1;
  }
  // to - from when both are set and neither is a Kafka special offset.
  std::optional<int64_t> delta() const {
    if (!from || !to || *from < 0 || *to < 0) return std::nullopt;
    return *to - *from;
  }
};

// Split by split (reader and union positions; the enumerator's only where no reader has the
// split), operators paired by ID. Sorted by operator, then key.
std::vector<PositionAdvance> ComparePositions(const PositionsReport& a,
                                              const PositionsReport& b);

}  // namespace ckpt::ops
