// Stable lowercase names of the snapshot model's enumerations (used by every renderer and in
// golden files, so they never change once released).
#include "ckpt/format/state_kind.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops {

std::string_view SnapshotKindName(SnapshotKind v) {
  switch (v) {
    case SnapshotKind::kCheckpoint: return "checkpoint";
    case SnapshotKind::kSavepoint: return "savepoint";
    case SnapshotKind::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view SavepointFormatName(SavepointFormat v) {
  switch (v) {
    case SavepointFormat::kCanonical: return "canonical";
    case SavepointFormat::kNative: return "native";
    case SavepointFormat::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view CheckpointTypeName(CheckpointType v) {
  switch (v) {
    case CheckpointType::kFull: return "full";
    case CheckpointType::kIncremental: return "incremental";
    case CheckpointType::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view PostActionName(PostAction v) {
  switch (v) {
    case PostAction::kNone: return "none";
    case PostAction::kStop: return "stop";
    case PostAction::kTerminate: return "terminate";
    case PostAction::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view CheckpointingModeName(CheckpointingMode v) {
  switch (v) {
    case CheckpointingMode::kAlignedExactlyOnce: return "aligned";
    case CheckpointingMode::kUnaligned: return "unaligned";
    case CheckpointingMode::kAlignedWithTimeout: return "aligned-with-timeout";
    case CheckpointingMode::kAtLeastOnce: return "at-least-once";
    case CheckpointingMode::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view ClaimModeName(ClaimMode v) {
  switch (v) {
    case ClaimMode::kNoClaim: return "no-claim";
    case ClaimMode::kClaim: return "claim";
    case ClaimMode::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view RetentionPolicyName(RetentionPolicy v) {
  switch (v) {
    case RetentionPolicy::kNoExternalized: return "no-externalized";
    case RetentionPolicy::kRetainOnCancellation: return "retain-on-cancellation";
    case RetentionPolicy::kDeleteOnCancellation: return "delete-on-cancellation";
    case RetentionPolicy::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view PartitioningName(Partitioning v) {
  switch (v) {
    case Partitioning::kForward: return "forward";
    case Partitioning::kRebalance: return "rebalance";
    case Partitioning::kHash: return "hash";
    case Partitioning::kBroadcast: return "broadcast";
    case Partitioning::kRescale: return "rescale";
    case Partitioning::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view FileScopeName(FileScope v) {
  switch (v) {
    case FileScope::kExclusive: return "exclusive";
    case FileScope::kShared: return "shared";
    case FileScope::kTaskOwned: return "task-owned";
    case FileScope::kExternal: return "external";
    case FileScope::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view FileKindName(FileKind v) {
  switch (v) {
    case FileKind::kKeyedState: return "keyed-state";
    case FileKind::kOperatorState: return "operator-state";
    case FileKind::kChannelState: return "channel-state";
    case FileKind::kChangelog: return "changelog";
    case FileKind::kRocksDbSst: return "rocksdb-sst";
    case FileKind::kRocksDbMeta: return "rocksdb-meta";
    case FileKind::kCoordinatorState: return "coordinator-state";
    case FileKind::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view StateKindName(StateKind v) {
  switch (v) {
    case StateKind::kValue: return "value";
    case StateKind::kList: return "list";
    case StateKind::kMap: return "map";
    case StateKind::kReducing: return "reducing";
    case StateKind::kAggregating: return "aggregating";
    case StateKind::kTimers: return "timers";
    case StateKind::kOperatorList: return "operator-list";
    case StateKind::kOperatorUnion: return "operator-union";
    case StateKind::kBroadcast: return "broadcast";
    case StateKind::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view KeyedHandleKindName(KeyedHandleKind v) {
  switch (v) {
    case KeyedHandleKind::kKeyGroups: return "key-groups";
    case KeyedHandleKind::kRocksDb: return "rocksdb";
    case KeyedHandleKind::kChangelog: return "changelog";
    case KeyedHandleKind::kEmpty: break;
  }
  return "empty";
}

bool IsKeyedStateKind(StateKind v) {
  // The enums mirror each other value for value (snapshot.h).
  return format::IsKeyedStateKind(static_cast<pb::StateKind>(v));
}

}  // namespace ckpt::ops
