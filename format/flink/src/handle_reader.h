// Private to ckpt::flink: decoding of state handles (stream, keyed, operator, channel) from a
// `_metadata` DataInput, version-aware.
#pragma once

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/metadata.h"

namespace ckpt::flink::internal {

// How deeply state handles may nest (a handle inside a handle): deeper is refused on read and
// never written.
inline constexpr int kMaxHandleDepth = 8;

class HandleReader {
 public:
  HandleReader(DataInput& in, uint32_t version) : in_(in), version_(version) {}

  DataInput& in() { return in_; }
  uint32_t version() const { return version_; }

  base::Result<StreamHandle> ReadStreamHandle();
  base::Result<KeyedHandle> ReadKeyedHandle();
  base::Result<OperatorHandle> ReadOperatorHandle();
  // The same, decoding into a default-constructed `*h` in place (no moves of the large handle
  // structs: the metadata of 10,000 subtasks is read with these).
  base::Status ReadStreamHandleInto(StreamHandle* h);
  base::Status ReadKeyedHandleInto(KeyedHandle* h);
  base::Status ReadOperatorHandleInto(OperatorHandle* h);
  base::Result<ChannelHandle> ReadChannelHandle(bool input);

 private:
  base::Result<std::shared_ptr<const KeyGroupsHandle>> ReadKeyGroupsBody(bool with_id);
  base::Result<std::vector<LocalPathHandle>> ReadLocalPathList();
  base::Status ReadChannelV1Body(ChannelHandle* c);

  DataInput& in_;
  uint32_t version_;
  int depth_ = 0;  // nesting of changelog / key-group handles (bounded against hostile input)
};

}  // namespace ckpt::flink::internal
