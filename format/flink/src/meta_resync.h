// Where a serializer snapshot this reader does not understand ends, inside the meta information
// of a keyed or operator backend (current layout, StateMetaInfoSnapshotReadersWriters v6).
//
// Flink writes a TypeSerializerSnapshot there without a length frame (StateMetaInfoSnapshot's
// CurrentWriterImpl: UTF key, then TypeSerializerSnapshotSerializationUtil's proxy version, class
// name, snapshot version and the class's own bytes), so an unknown class's bytes can only be
// passed by finding what must follow them: another serializer entry of the same state, the next
// state's header, the broadcast list's i16 count, or the end of the meta information (which the
// caller knows from the handle: the first key-group offset, or the first operator-state offset).
// The frames Flink does write (the Pojo field snapshots' LinkedOptionalMap frames, and the
// offset-indexed "serializers with resilience" of meta version 5 and earlier) need no search.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::flink::internal {

// What may follow the unknown snapshot.
struct SnapshotFollow {
  // Serializer keys this state still lists (its serializer count says more follow); empty when
  // the snapshot is the state's last.
  std::vector<std::string> keys_left;
  int states_left = 0;        // states after this one in the same list
  bool list_follows = false;  // after this list: an i16-counted list of states, then the end
  // Whether the end of `bytes` is the end of the meta information (false where other data
  // follows it, as in a changelog METADATA change).
  bool end_bounded = true;
};

// True if a StateMetaInfoSnapshot header plausibly starts at `p`: UTF name, i32 backend type
// 0..3, i32 option count 0..64, then an option key Flink writes (KEYED_STATE_TYPE,
// OPERATOR_STATE_DISTRIBUTION_MODE) or, without options, an i32 serializer count 1..8 and a
// serializer entry.
bool StateHeaderAt(std::string_view bytes, size_t p);

// True if a serializer entry starts at `p`: UTF `key`, i32 proxy version 2, UTF class name.
bool SerializerEntryAt(std::string_view bytes, size_t p, std::string_view key);

// The first position >= `from` where what `follow` allows starts; bytes.size() when only the end
// of the meta information may follow and `follow.end_bounded`; npos if none.
size_t FindSnapshotEnd(std::string_view bytes, size_t from, const SnapshotFollow& follow);

// The serializer keys Flink writes (StateMetaInfoSnapshot.CommonSerializerKeys).
const std::vector<std::string>& SerializerKeys();

}  // namespace ckpt::flink::internal
