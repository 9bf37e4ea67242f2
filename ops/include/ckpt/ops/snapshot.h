// The plain snapshot model every ops verb, the CLI and the Qt inspector work with: one checkpoint
// or savepoint as read from its `_metadata` (operators, states, subtasks, handles, files, metrics),
// with no protobuf, Qt or CLI types. Loaded by LoadSnapshot. Immutable after loading; safe to
// share between threads for reading.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"

namespace ckpt::ops {

// Enumerations mirror the format's protobuf enums value for value (metadata.proto); kUnspecified
// means "not recorded". The *Name functions return stable lowercase names used in every output.
enum class SnapshotKind { kUnspecified = 0, kCheckpoint = 1, kSavepoint = 2 };
enum class SavepointFormat { kUnspecified = 0, kCanonical = 1, kNative = 2 };
enum class CheckpointType { kUnspecified = 0, kFull = 1, kIncremental = 2 };
enum class PostAction { kUnspecified = 0, kNone = 1, kStop = 2, kTerminate = 3 };
enum class CheckpointingMode {
  kUnspecified = 0,
  kAlignedExactlyOnce = 1,
  kUnaligned = 2,
  kAlignedWithTimeout = 3,
  kAtLeastOnce = 4,
};
enum class ClaimMode { kUnspecified = 0, kNoClaim = 1, kClaim = 2 };
enum class RetentionPolicy {
  kUnspecified = 0,
  kNoExternalized = 1,
  kRetainOnCancellation = 2,
  kDeleteOnCancellation = 3,
};
enum class Partitioning {
  kUnspecified = 0,
  kForward = 1,
  kRebalance = 2,
  kHash = 3,
  kBroadcast = 4,
  kRescale = 5,
};
enum class FileScope { kUnspecified = 0, kExclusive = 1, kShared = 2, kTaskOwned = 3, kExternal = 4 };
enum class FileKind {
  kUnspecified = 0,
  kKeyedState = 1,
  kOperatorState = 2,
  kChannelState = 3,
  kChangelog = 4,
  kRocksDbSst = 5,
  kRocksDbMeta = 6,
  kCoordinatorState = 7,
};
enum class StateKind {
  kUnspecified = 0,
  kValue = 1,
  kList = 2,
  kMap = 3,
  kReducing = 4,
  kAggregating = 5,
  kTimers = 6,
  kOperatorList = 7,
  kOperatorUnion = 8,
  kBroadcast = 9,
};
// Which alternative a keyed-state handle is.
enum class KeyedHandleKind { kKeyGroups, kRocksDb, kChangelog, kEmpty };

std::string_view SnapshotKindName(SnapshotKind v);        // "checkpoint", "savepoint"
std::string_view SavepointFormatName(SavepointFormat v);  // "canonical", "native"
std::string_view CheckpointTypeName(CheckpointType v);    // "full", "incremental"
std::string_view PostActionName(PostAction v);            // "none", "stop", "terminate"
std::string_view CheckpointingModeName(CheckpointingMode v);  // "aligned", "unaligned", ...
std::string_view ClaimModeName(ClaimMode v);              // "no-claim", "claim"
std::string_view RetentionPolicyName(RetentionPolicy v);
std::string_view PartitioningName(Partitioning v);        // "forward", "hash", ...
std::string_view FileScopeName(FileScope v);              // "exclusive", "shared", ...
std::string_view FileKindName(FileKind v);                // "keyed-state", "rocksdb-sst", ...
std::string_view StateKindName(StateKind v);              // "value", "map", "operator-union"...
std::string_view KeyedHandleKindName(KeyedHandleKind v);  // "key-groups", "rocksdb", ...
// Where OperatorInfo::uid comes from.
enum class UidOrigin {
  kRecorded,     // the metadata records it; empty: the operator had no uid (our own format)
  kNotRecorded,  // the metadata does not say (Apache Flink: an ID may or may not come from a
                 // uid, and metadata before v5 stores none): uid is empty and unknown
  kUserUids,     // one of LoadOptions::uids, whose uid hash is the operator's ID
};
std::string_view UidOriginName(UidOrigin v);  // "recorded", "not-recorded", "user-uids"

// True for value/list/map/reducing/aggregating/timers (state partitioned by key group).
bool IsKeyedStateKind(StateKind v);

// One entry of the snapshot's file table (handles refer to files by `index`).
struct SnapshotFile {
  uint32_t index = 0;
  std::string path;           // as recorded (relative for EXCLUSIVE/SHARED/TASK_OWNED)
  std::string resolved_path;  // where it lives on disk; empty if the reference is invalid
  std::string resolve_error;  // why resolved_path is empty (escaping path, unknown scope)
  // True when resolve_error is a symbolic link or non-directory on the way to the file (below
  // the snapshot's own directory): a link or special file in a snapshot (CKPT-F011), never
  // followed.
  bool link_in_path = false;
  FileScope scope = FileScope::kUnspecified;
  FileKind kind = FileKind::kUnspecified;
  uint64_t size_bytes = 0;
  uint64_t checksum_xxh3 = 0;
  std::string compression;            // "none", "zstd" or "" when not recorded
  int64_t created_by_checkpoint_id = 0;
  // The snapshot's own `_metadata`, listed because handles keep their bytes inline in it
  // (Apache Flink's byte-stream handles). Never counted as state: each such handle counts its
  // own inline bytes (KeyedHandle/OperatorHandle/ChannelStateInfo::inline_bytes) and the rest
  // of the file is Snapshot::metadata_own_bytes (docs/sizes.md).
  bool is_metadata = false;
};

// One declared state of an operator; types rendered with format::TypeName.
struct StateInfo {
  std::string name;
  StateKind kind = StateKind::kUnspecified;
  bool keyed = false;
  std::string key_type;        // keyed kinds
  std::string namespace_type;  // keyed kinds
  std::string user_key_type;   // map, broadcast, timers
  std::string value_type;
  uint32_t serializer_version = 0;
  std::string timer_domain;    // timers: "event-time" / "processing-time"
};

// A keyed-state handle of one subtask (canonical key-group container, RocksDB native files, or a
// changelog handle over materialized handles plus log segments).
struct KeyedHandle {
  KeyedHandleKind kind = KeyedHandleKind::kEmpty;
  uint32_t key_group_start = 0;  // inclusive
  uint32_t key_group_end = 0;    // inclusive
  std::vector<uint32_t> file_indexes;     // every file it references (nested ones included)
  std::vector<uint64_t> key_group_records;  // key-groups handle: records per group, parallel
  std::string backend_id;                 // rocksdb
  int64_t materialization_id = 0;         // changelog
  uint32_t changelog_segments = 0;        // changelog
  // Bytes of it stored inline in `_metadata` (Flink byte-stream handles), counted once here.
  uint64_t inline_bytes = 0;
  uint64_t size_bytes = 0;  // sum of the sizes of the files it references (shared files count
                            // fully for every handle referencing them) plus inline_bytes
};

// One operator state partition (a declared operator state's entries in one subtask).
struct OperatorPartition {
  std::string state_name;
  StateKind distribution = StateKind::kUnspecified;
  uint64_t entry_count = 0;
};
struct OperatorHandle {
  uint32_t file_index = 0;
  std::vector<OperatorPartition> partitions;
  uint64_t inline_bytes = 0;  // bytes stored inline in `_metadata` (file_index names it)
};

// In-flight data of one input channel or output subpartition (unaligned checkpoints).
struct ChannelStateInfo {
  bool input = true;        // input channel (gate, channel) or output (partition, subpartition)
  uint32_t gate_or_partition = 0;
  uint32_t channel_or_subpartition = 0;
  uint32_t buffer_count = 0;
  uint64_t size_bytes = 0;
  std::vector<uint32_t> file_indexes;  // distinct, ascending
  uint64_t inline_bytes = 0;  // bytes stored inline in `_metadata`
};

// A pending file of a two-phase-commit sink: a closed file (pending_path) renamed to final_path
// on commit, or on an object store an uncompleted multipart upload of final_path (upload_id,
// part_etags; pending_path empty) completed on commit.
struct Committable {
  std::string pending_path;
  std::string final_path;
  uint64_t size_bytes = 0;
  uint64_t checksum_xxh3 = 0;
  int64_t checkpoint_id = 0;
  std::string upload_id = {};
  std::vector<std::string> part_etags = {};

  bool is_upload() const { return !upload_id.empty(); }
  // What holds the bytes until commit: pending_path, or "upload <id> of <final_path>".
  std::string PendingName() const {
    return is_upload() ? "upload " + upload_id + " of " + final_path : pending_path;
  }
};

// Flink REST names; durations in ms, sizes in bytes.
struct SubtaskMetrics {
  int64_t ack_timestamp = 0;
  int64_t end_to_end_duration = 0;
  uint64_t state_size = 0;
  uint64_t checkpointed_size = 0;
  int64_t sync_duration = 0;
  int64_t async_duration = 0;
  int64_t alignment_duration = 0;
  int64_t start_delay = 0;
  uint64_t processed_data = 0;
  uint64_t persisted_data = 0;
  bool unaligned_checkpoint = false;
};

struct SubtaskInfo {
  uint32_t index = 0;
  bool finished = false;
  std::vector<KeyedHandle> keyed;
  std::vector<OperatorHandle> operator_state;
  std::vector<ChannelStateInfo> channels;
  std::vector<Committable> committables;
  SubtaskMetrics metrics;
  // Its share of the files it references: a file referenced by N subtasks counts 1/N here
  // (docs/sizes.md), so the subtasks of an operator never add up to more than the operator;
  // plus the bytes its handles keep inline in `_metadata`.
  uint64_t state_bytes = 0;
};

struct CoordinatorInfo {
  bool is_inline = false;
  std::optional<uint32_t> file_index;
  uint64_t size_bytes = 0;
  std::string type;  // format::TypeName, empty if not recorded
};

// One operator: from the job graph, from the operator states, or both.
struct OperatorInfo {
  std::string id_hex;  // 32 lowercase hex digits; Flink's "uid hash"
  std::string uid;     // empty: had none (uid_origin kRecorded) or unknown (kNotRecorded)
  UidOrigin uid_origin = UidOrigin::kRecorded;
  std::string name;
  std::string kind;    // catalog kind, e.g. "keyed-sum"
  std::string spec_id;
  uint32_t parallelism = 0;
  uint32_t max_parallelism = 0;
  uint32_t chain_index = 0;
  uint32_t position_in_chain = 0;
  bool in_job_graph = false;  // listed in the metadata's job graph
  bool has_state = false;     // has an OperatorState entry
  bool fully_finished = false;
  std::vector<StateInfo> states;
  std::vector<SubtaskInfo> subtasks;  // ordered by index
  std::optional<CoordinatorInfo> coordinator;
  // Sizes (docs/sizes.md): every distinct file the operator references counted once, however
  // many subtasks or handles share it, plus the bytes its handles and coordinator keep inline
  // in `_metadata` (never the whole `_metadata`).
  uint64_t total_bytes = 0;         // full size
  uint64_t checkpointed_bytes = 0;  // of those, what this snapshot wrote (IsCheckpointedFile)
};

struct EdgeInfo {
  std::string source_id_hex;
  std::string target_id_hex;
  Partitioning partitioning = Partitioning::kUnspecified;
  uint32_t target_input = 0;
};

struct RestoreInfo {
  std::string path;
  int64_t checkpoint_id = 0;
  SnapshotKind kind = SnapshotKind::kUnspecified;
  ClaimMode claim_mode = ClaimMode::kUnspecified;
  bool allow_non_restored_state = false;
};

struct CheckpointMetrics {
  int64_t trigger_timestamp = 0;
  int64_t latest_ack_timestamp = 0;
  int64_t end_to_end_duration = 0;
  uint64_t state_size = 0;         // full size
  uint64_t checkpointed_size = 0;  // what this checkpoint uploaded
  uint64_t processed_data = 0;
  uint64_t persisted_data = 0;
  uint32_t num_subtasks = 0;
  uint32_t num_acknowledged_subtasks = 0;
  bool is_unaligned = false;
  int64_t alignment_timeout = 0;
};

// Opaque handle on the decoded metadata, for ops' own sources (ops/src/model/snapshot_raw.h).
struct SnapshotRaw;

struct Snapshot {
  std::string dir;            // the snapshot directory as given (not canonicalized)
  std::string metadata_path;  // <dir>/_metadata
  uint64_t metadata_size_bytes = 0;  // the `_metadata` file's size on disk
  // Bytes of state kept inline in `_metadata` (coordinator state, Flink byte-stream handles),
  // each handle once; they are counted in their operators' sizes and in full_size_bytes.
  uint64_t inline_state_bytes = 0;
  uint32_t format_version = 0;
  std::string engine_name;
  std::string engine_version;
  std::string job_id_hex;
  std::string job_name;
  int64_t checkpoint_id = 0;
  SnapshotKind kind = SnapshotKind::kUnspecified;
  SavepointFormat savepoint_format = SavepointFormat::kUnspecified;
  CheckpointType checkpoint_type = CheckpointType::kUnspecified;
  PostAction post_action = PostAction::kUnspecified;
  CheckpointingMode mode = CheckpointingMode::kUnspecified;
  RetentionPolicy retention = RetentionPolicy::kUnspecified;
  std::optional<RestoreInfo> restored_from;
  int64_t trigger_timestamp_ms = 0;
  int64_t completion_timestamp_ms = 0;
  // Job-graph operators in topological order, then operators that have state but are missing
  // from the job graph (in metadata order).
  std::vector<OperatorInfo> operators;
  std::vector<EdgeInfo> edges;
  std::vector<SnapshotFile> files;
  CheckpointMetrics metrics;
  std::vector<std::pair<std::string, std::string>> properties;  // sorted by key
  uint64_t total_file_bytes = 0;  // sum of the file table's sizes
  // The size model (docs/sizes.md), computed from the file table and handles, never from the
  // writer's metrics: every distinct referenced file once (never `_metadata` itself), plus the
  // inline state bytes.
  uint64_t full_size_bytes = 0;          // all state the snapshot references
  uint64_t checkpointed_size_bytes = 0;  // the part this snapshot itself wrote

  std::shared_ptr<const SnapshotRaw> raw;  // never null after LoadSnapshot

  // The operator whose id_hex, uid or name equals `ref` (in that order of preference; hex is
  // matched case-insensitively). NotFound listing candidates; InvalidArgument if a name is
  // ambiguous.
  base::Result<const OperatorInfo*> FindOperator(std::string_view ref) const;
  // Number of subtasks with state, over all operators.
  size_t subtask_state_count() const;
  // The bytes of `_metadata` that are not inline state of an operator (the job graph, handles,
  // properties, master state): what `_metadata` adds on its own line of every size listing, so
  // that the operators' sizes plus this equal the bytes on disk when no file is shared.
  uint64_t metadata_own_bytes() const {
    return metadata_size_bytes > inline_state_bytes ? metadata_size_bytes - inline_state_bytes : 0;
  }
};

// True if `file` counts toward the checkpointed size of a snapshot with `checkpoint_id`: it was
// created by that checkpoint (or is EXCLUSIVE and records no creator).
bool IsCheckpointedFile(const SnapshotFile& file, int64_t checkpoint_id);

// Loads the snapshot at `path` (a snapshot directory or its `_metadata` file) through
// ckpt::format: envelope, checksum and structure are checked by the format reader.
// NotFound if there is no `_metadata`; Corruption (naming the file) for a damaged one;
// Unimplemented for a newer format version; IOError if it cannot be read.
base::Result<Snapshot> LoadSnapshot(base::Fs& fs, const std::string& path);

// What LoadSnapshot reads besides `_metadata`.
struct LoadOptions {
  // Apache Flink snapshots: the keyed-state meta information at the head of one state file per
  // operator (state names, kinds and serializers of StateInfo). False: `_metadata` only, so keyed
  // states are not listed (what ls needs; a 10,000-subtask `_metadata` lists in milliseconds).
  // Our own format keeps its states in `_metadata` and is unaffected.
  bool state_meta = true;
  // Uids the user's job sets (ckpt-tool --uids): an operator whose metadata records no uid and
  // whose ID is the uid hash of one of them (format::OperatorId::FromUid, Flink's
  // StreamGraphHasherV2: murmur3_x64_128 of the UTF-8 uid, seed 0) gets it as its uid
  // (UidOrigin::kUserUids), which OperatorLabel shows when the operator has no name. Uids
  // matching no operator are ignored.
  std::vector<std::string> uids;
};

// Gives the operators of `snapshot` their uids from `uids` as LoadOptions::uids does.
void NameOperatorsByUids(const std::vector<std::string>& uids, Snapshot* snapshot);

// The uids in `text`: a job spec (JSON, docs/job-spec.md: every operator's "uid") or one uid per
// line (surrounding blanks trimmed; empty lines and lines starting with '#' skipped). `what`
// names the source in errors. InvalidArgument for a job spec that does not parse, or a list
// with no uid.
base::Result<std::vector<std::string>> ParseUidList(std::string_view text, const std::string& what);
base::Result<Snapshot> LoadSnapshot(base::Fs& fs, const std::string& path, const LoadOptions& options);

}  // namespace ckpt::ops
