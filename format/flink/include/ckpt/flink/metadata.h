// The decoded content of an Apache Flink `_metadata` file (metadata versions 2-7), as plain
// values: what Flink's MetadataV2..V7 serializers write, nothing inferred. Produced by
// ReadFlinkMetadata (metadata_reader.h); docs/flink-format.md is the byte grammar. Immutable
// values; safe to share for reading.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/flink/checkpoint_properties.h"

namespace ckpt::flink {

inline constexpr uint32_t kMetadataMagic = 0x4960672D;
inline constexpr uint32_t kMasterStateMagic = 0xC96B1696;
inline constexpr uint32_t kMinVersion = 2;
inline constexpr uint32_t kMaxVersion = 7;

struct KeyGroupsHandle;

// A StreamStateHandle (the bytes of one state object: inline or in a file).
struct StreamHandle {
  enum class Type {
    kNull = 0,
    kByteStream = 1,     // tag 1: inline bytes
    kFile = 2,           // tag 2: absolute path
    kRelativeFile = 6,   // tag 6: relative to the directory holding _metadata
    kKeyGroups = 3,      // tag 3 nested in a stream position (legacy)
    kSegmentFile = 15,   // tag 15: a segment of a file-merging physical file
    kEmptySegment = 16,  // tag 16
  };
  Type type = Type::kNull;
  std::string handle_name;   // byte stream
  std::string data;          // byte stream: the inline bytes
  std::string path;          // file: as written; relative: as written; segment: physical path
  int64_t size = 0;          // state size in bytes (byte stream: data.size())
  int64_t start_pos = 0;     // segment: offset of the segment in the physical file
  int32_t segment_scope = 0; // segment: 0 EXCLUSIVE, 1 SHARED
  std::string logical_file_id;               // segment
  std::shared_ptr<const KeyGroupsHandle> nested;  // tag 3 in a stream position
  uint64_t metadata_offset = 0;  // where the handle's tag is in _metadata

  bool is_null() const { return type == Type::kNull; }
  bool is_file() const {
    return type == Type::kFile || type == Type::kRelativeFile || type == Type::kSegmentFile;
  }
};

// KeyGroupRangeOffsets + delegate (keyed tags 3, 7, 12).
struct KeyGroupsHandle {
  int32_t start = 0;  // first key group
  int32_t count = 0;  // number of key groups
  std::vector<int64_t> offsets;  // offset of each key group's section in the delegate
  StreamHandle delegate;
  std::string state_handle_id;  // tag 12 only
};

struct LocalPathHandle {
  std::string local_path;  // RocksDB file name: 000010.sst, MANIFEST-000005, ...
  StreamHandle handle;
};

// One changed entry of an in-memory changelog increment (tag 9).
struct StateChange {
  int32_t key_group = 0;  // -1: metadata change
  std::string bytes;
};

struct KeyedHandle {
  enum class Tag : uint8_t {
    kNull = 0,
    kKeyGroups = 3,
    kIncremental = 5,
    kSavepointKeyGroups = 7,
    kChangelog = 8,
    kChangelogBytes = 9,
    kChangelogFile = 10,
    kIncrementalV2 = 11,
    kKeyGroupsV2 = 12,
    kChangelogFileV2 = 13,
    kChangelogV2 = 14,
  };
  Tag tag = Tag::kNull;
  int32_t kg_start = 0;
  int32_t kg_count = 0;
  std::string state_handle_id;
  uint64_t metadata_offset = 0;
  // kKeyGroups, kKeyGroupsV2, kSavepointKeyGroups
  std::shared_ptr<const KeyGroupsHandle> key_groups;
  // kIncremental, kIncrementalV2
  int64_t checkpoint_id = 0;
  std::string backend_id;
  int64_t checkpointed_size = -1;  // also changelog handles; -1 = unknown (legacy tag 5)
  StreamHandle meta;
  std::vector<LocalPathHandle> shared_files;
  std::vector<LocalPathHandle> private_files;
  // kChangelog, kChangelogV2
  std::vector<KeyedHandle> materialized;
  std::vector<KeyedHandle> non_materialized;
  int64_t materialization_id = 0;
  // kChangelogBytes
  int64_t from_sequence = 0;
  int64_t to_sequence = 0;
  std::vector<StateChange> changes;
  // kChangelogFile, kChangelogFileV2
  std::vector<std::pair<int64_t, StreamHandle>> handles_and_offsets;  // (offset, handle)
  int64_t state_size = 0;
  std::string storage_identifier;

  bool is_null() const { return tag == Tag::kNull; }
  int32_t kg_end() const { return kg_start + kg_count - 1; }
};

// OperatorStateHandle.Mode ordinal.
enum class DistributionMode : uint8_t { kSplitDistribute = 0, kUnion = 1, kBroadcast = 2 };

struct OperatorStateEntry {
  std::string name;
  DistributionMode mode = DistributionMode::kSplitDistribute;
  std::vector<int64_t> offsets;  // one per list element (broadcast: one per map)
};

// Operator tags 4 and 17.
struct OperatorHandle {
  uint8_t tag = 0;  // 0 null, 4 partitionable, 17 file-merging segment
  std::vector<OperatorStateEntry> states;
  std::string task_owned_dir;  // tag 17
  std::string shared_dir;      // tag 17
  bool is_empty = false;       // tag 17
  StreamHandle delegate;
  uint64_t metadata_offset = 0;
};

// One input channel's or result subpartition's in-flight data (unaligned checkpoints).
struct ChannelHandle {
  bool input = true;   // input channel (gate, channel) or result subpartition
  bool merged = false; // v6 merged handle (several channels of one subtask in one object)
  int32_t subtask_index = 0;
  int32_t gate_or_partition = 0;      // not merged
  int32_t channel_or_subpartition = 0;  // not merged
  std::vector<int64_t> offsets;       // not merged: buffer offsets in the delegate
  int64_t state_size = 0;
  StreamHandle delegate;
  std::string serialized_channel_offsets;  // merged: opaque (Java serialization of the offsets)
};

struct SubtaskState {
  int32_t index = 0;
  std::optional<OperatorHandle> managed_operator;
  std::optional<OperatorHandle> raw_operator;
  KeyedHandle managed_keyed;
  KeyedHandle raw_keyed;
  std::vector<ChannelHandle> input_channels;
  std::vector<ChannelHandle> result_subpartitions;
  std::optional<int64_t> ref_checkpoint_id;  // v7
  int64_t v2_duration = -1;  // v2: the legacy "duration" field as written (writer round trip)
};

struct OperatorState {
  std::string name;  // v5+ ("" = absent)
  std::string uid;   // v5+ ("" = absent)
  uint8_t id[16] = {};  // lowerPart then upperPart, big-endian: the uid hash bytes
  int32_t parallelism = 0;
  int32_t max_parallelism = 0;
  StreamHandle coordinator;  // v3+: null or byte stream
  bool fully_finished = false;
  std::vector<SubtaskState> subtasks;     // in file order
  std::vector<int32_t> finished_subtasks;  // indexes recorded as FINISHED
  uint64_t metadata_offset = 0;
  // The writer's round trip (metadata_writer.h): v2's unused "chain length" field as written,
  // and the order of the subtask entries (v3+: the index field of each entry as written,
  // negative = finished, so subtasks and finished_subtasks interleave as they did; empty or
  // inconsistent: ascending subtask index).
  int32_t v2_chain_length = 1;
  std::vector<int32_t> entry_order;

  std::string IdHex() const;  // 32 lowercase hex digits
};

struct MasterState {
  int32_t version = 0;
  std::string name;
  std::string payload;  // opaque (MasterTriggerRestoreHook serializer)
};

struct Metadata {
  std::string path;        // the _metadata file
  std::string dir;         // the directory holding it (base of relative handles)
  uint64_t size_bytes = 0;
  uint32_t version = 0;
  int64_t checkpoint_id = 0;
  std::vector<MasterState> master_states;
  std::vector<OperatorState> operators;  // in file order
  // v4+: the Java-serialized CheckpointProperties trailer.
  uint64_t trailer_offset = 0;
  uint64_t trailer_size = 0;
  std::optional<CheckpointProperties> properties;
  // v4+, when properties is empty: why, as "<path>: at byte N: ..." ("truncated: ..." for a
  // missing or cut trailer, "trailing bytes ..." for bytes after it). See PropertiesStatus.
  std::string properties_error;
  std::string trailer;  // v4+: the trailer's bytes as read (the writer copies them back)
};

}  // namespace ckpt::flink
