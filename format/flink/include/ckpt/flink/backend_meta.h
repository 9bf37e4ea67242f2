// Keyed-state meta information of a Flink keyed backend: the KeyedBackendSerializationProxy at
// the head of every heap / canonical key-group stream and in a RocksDB snapshot's meta handle.
// Names each state with its kind and serializer snapshots (class names and versions), and
// whether key groups are Snappy-compressed. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/base/result.h"

namespace ckpt::flink {

struct LogicalType;

// A TypeSerializerSnapshot as written by TypeSerializerSnapshotSerializationUtil: its class and
// version, and the nested snapshots of composite serializers (tuple fields, list element, map
// key and value, TTL wrapper, ...). `decoded` is false when the class's own bytes are not
// understood (they were skipped to the next known position).
struct SerializerSnapshot {
  std::string class_name;
  int32_t version = 0;
  std::string outer;  // composite: the outer snapshot's leading string (tuple/pojo class), if any
  std::vector<SerializerSnapshot> nested;
  bool decoded = true;
  int32_t outer_version = 0;  // composite: the outer snapshot's version
  // RowSerializerSnapshot: whether rows carry their RowKind (2 bits ahead of the null mask): not
  // before outer version 3, always at 3, as its outer snapshot's boolean from version 4 on.
  bool row_has_kind = true;
  // Pojo (PojoSerializerSnapshot): the field names, one per `nested` entry, in serialization
  // order; `outer` is the Pojo class. `pojo_subclasses`: registered or seen subclasses (their
  // instances are serialized by other serializers).
  std::vector<std::string> field_names = {};
  int32_t pojo_subclasses = 0;
  // Table runtime serializers (logical_type.h): RowDataSerializer's field types; the data type of
  // ExternalSerializer, DecimalData, TimestampData, ArrayData and MapData serializers.
  std::vector<std::shared_ptr<const LogicalType>> logical_types = {};
  // AvroSerializerSnapshot: the writer schema (JSON); `outer` is the runtime type. Kryo: `outer`
  // is the type class.
  std::string schema = {};

  // "LongSerializer", "Tuple2<LongSerializer, StringSerializer>" ...: the short display name.
  std::string DisplayName() const;
};

// One registered state (StateMetaInfoSnapshot).
struct StateMetaInfo {
  enum class BackendType { kKeyValue = 0, kOperator = 1, kBroadcast = 2, kPriorityQueue = 3 };
  std::string name;
  BackendType backend_type = BackendType::kKeyValue;
  std::vector<std::pair<std::string, std::string>> options;  // e.g. KEYED_STATE_TYPE=VALUE
  std::vector<std::pair<std::string, SerializerSnapshot>> serializers;  // VALUE_SERIALIZER, ...

  std::string Option(const std::string& key) const;                 // "" if absent
  const SerializerSnapshot* Serializer(const std::string& key) const;  // nullptr if absent
};

struct KeyedBackendMeta {
  int32_t version = 0;  // KeyedBackendSerializationProxy version (6 in Flink 1.8+)
  bool compressed = false;  // key groups written through Snappy
  SerializerSnapshot key_serializer;
  std::vector<StateMetaInfo> states;  // in kvStateId order
  uint64_t size_bytes = 0;            // how many bytes the meta information took
};

// The OperatorBackendSerializationProxy at the head of an operator-state stream (versions 5, 6):
// list/union states, then broadcast states.
struct OperatorBackendMeta {
  int32_t version = 0;
  std::vector<StateMetaInfo> states;
  std::vector<StateMetaInfo> broadcast_states;
  uint64_t size_bytes = 0;
  bool compressed = false;  // v6: the state entries were written through Snappy
};

class DataInput;

// One StateMetaInfoSnapshot at `in`'s cursor (current writer layout: name, backend type, options,
// serializer snapshots), as a changelog METADATA change holds it. `bytes` is the whole buffer `in`
// reads, starting at file offset `base_offset` (bounds the skip of an unknown serializer
// snapshot).
base::Result<StateMetaInfo> ReadStateMetaInfo(DataInput& in, std::string_view bytes,
                                              uint64_t base_offset);

// `bytes`: the operator-state stream, or better its meta information only (up to the first
// state entry's offset), which bounds an unknown serializer snapshot of the last state.
base::Result<OperatorBackendMeta> ReadOperatorBackendMeta(std::string_view bytes,
                                                          const std::string& file);

// The meta information of a key-group (or operator-state) stream: its bytes up to the smallest
// positive offset in `offsets` (Flink writes the proxy, then the key groups / state entries);
// the whole stream if no offset is positive.
std::string_view StreamMetaBytes(std::string_view stream, const std::vector<int64_t>& offsets);

// Decodes the proxy at the start of `bytes`. `file` and `base_offset` locate it in errors
// (Corruption "<file>: at byte <n>: ..."). A serializer snapshot of a class this reader does not
// understand (a user's own serializer) is kept with its class name and `decoded` false, and its
// bytes are passed by finding what follows them (Flink writes no length frame there): the next
// serializer entry or state header, or — for the last state's last serializer — the end of
// `bytes`, so pass the meta information's bytes only (KeyGroupStreamMeta) where more follows.
base::Result<KeyedBackendMeta> ReadKeyedBackendMeta(std::string_view bytes, const std::string& file,
                                                    uint64_t base_offset = 0);

}  // namespace ckpt::flink
