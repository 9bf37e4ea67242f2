// The state changes of Apache Flink's changelog state backend (FLIP-158, DSTL): the files the
// filesystem changelog storage writes (FsStateChangelogWriter, StateChangeFormat) and the change
// records the changelog keyed backend logs into them (AbstractStateChangeLogger). A file is one
// byte (1 = the rest is Snappy-framed) and then change sets back to back; a changelog handle
// names a change set by its offset in the uncompressed stream after that byte. A change set is
// i32 n groups, then per group i32 n changes, i32 key group (-1 = metadata), and n times
// (i32 length, bytes). A change is u8 operation, then for METADATA (8) i32 meta-info version,
// a StateMetaInfoSnapshot, [key/value state: bool TTL + Java-serialized StateTtlConfig,
// bool default + the default value], i16 state id, u8 backend state type; for the others i16
// state id, then the scope (key, namespace; none for priority queues) and the operation's data.
// Pure functions; thread-safe. docs/flink-format.md documents the grammar.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"
#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/metadata.h"

namespace ckpt::flink {

// StateChangeOperation codes as the released changelog backend writes them (Flink 1.15+; the
// harness's 1.20 and 2.x files carry METADATA as 8). A timer poll is logged as REMOVE_ELEMENT of
// the polled timer.
enum class ChangeOp : uint8_t {
  kClear = 0,
  kSet = 1,
  kSetInternal = 2,
  kAdd = 3,
  kMergeNamespaces = 4,
  kAddElement = 5,
  kAddOrUpdateElement = 6,
  kRemoveElement = 7,
  kMetadata = 8,
};

// The name of an operation ("SET", "ADD_ELEMENT", ...).
std::string_view ChangeOpName(ChangeOp op);

// One change set of a changelog file: the changes at uncompressed stream offset `offset` of
// `file_bytes` (the whole file). Corruption "<file>: at byte <n>: ..." (for a compressed file the
// offset is in the decompressed stream, said so).
base::Result<std::vector<StateChange>> ReadChangeSet(std::string_view file_bytes, int64_t offset,
                                                     const std::string& file);

// A METADATA change: the state it registers under `state_id`.
struct ChangelogStateMeta {
  StateMetaInfo info;
  int16_t state_id = 0;
  bool ttl = false;              // the state has a TTL config (its values are TTL-wrapped)
  bool has_default = false;      // a default value was logged
};

// Decodes a METADATA change (`change` starts with the operation byte 8). `where` names it in
// errors. Unimplemented if a default value is present whose serializer this reader cannot
// decode (its length is then unknown).
base::Result<ChangelogStateMeta> ReadChangelogMetadata(std::string_view change, const std::string& where);

}  // namespace ckpt::flink
