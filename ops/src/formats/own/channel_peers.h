// Private to ckpt::ops: the two ends of a logical channel in the reference engine's channel
// state. A consumer's input channel (edge, upstream subtask u, downstream subtask d) and the
// producer's output subpartition of the same (edge, u, d) persist one byte stream between them:
// the input part, then the output part, whole frames over both (FORMAT.md §8), so a reader of
// either end reads the other end too. Ends are matched with the channel layout of the snapshot's
// job graph (format/channel_layout.h), the indexes the engine restores by. Shared by dump and
// validate --deep. Not thread-safe (one per reader).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ckpt/base/fs.h"
#include "ckpt/base/result.h"
#include "ckpt/format/channel_layout.h"
#include "ckpt/format/proto.h"
#include "ckpt/ops/snapshot.h"

namespace ckpt::ops::internal {

using ChannelBuffers = google::protobuf::RepeatedPtrField<pb::FileSlice>;

// The other end of a channel-state handle; `buffers` null when the snapshot persisted nothing
// there (or its job graph does not say where it is).
struct ChannelPeer {
  const ChannelBuffers* buffers = nullptr;
  // Names the other end for messages, e.g. "output 0/1 of operator <hex> subtask 0".
  std::string label;
};

class ChannelPeers {
 public:
  // `metadata` must outlive this object.
  explicit ChannelPeers(const pb::CheckpointMetadata& metadata);

  // The producer's output subpartition feeding input channel `h` of subtask `subtask` of the
  // operator `operator_id` (16 bytes; the chain's head).
  ChannelPeer OutputFeeding(const std::string& operator_id, uint32_t subtask,
                            const pb::InputChannelStateHandle& h) const;
  // The consumer's input channel fed by output subpartition `h` of subtask `subtask` of the
  // operator `operator_id` (the chain's tail).
  ChannelPeer InputFedBy(const std::string& operator_id, uint32_t subtask,
                         const pb::ResultSubpartitionStateHandle& h) const;

 private:
  const pb::SubtaskState* Subtask(const std::string& operator_id, uint32_t subtask) const;

  const pb::CheckpointMetadata& metadata_;
  // Null when the snapshot has no job graph or one too large to lay out.
  std::unique_ptr<format::ChannelLayout> layout_;
};

// One channel-state buffer: the CHANNEL_STATE record `slice` covers, read from the snapshot's
// file table. Corruption naming the file, `channel` and the buffer's `index` when the slice is
// not exactly one record; NotFound/IOError from opening the file.
base::Result<std::string> ReadChannelBuffer(base::Fs& fs, const Snapshot& snapshot,
                                            const pb::FileSlice& slice, const std::string& channel,
                                            uint32_t index);
// Every buffer of a handle, concatenated in order (ReadChannelBuffer's errors).
base::Result<std::string> ReadChannelBuffers(base::Fs& fs, const Snapshot& snapshot,
                                             const ChannelBuffers& buffers,
                                             const std::string& channel);
// A handle's bytes within the byte stream of its logical channel (input part, then output
// part), with the other end's bytes read.
struct ChannelStream {
  std::string channel;      // the handle, e.g. "input 0/1"
  std::string file;         // its CHANNEL_STATE file (resolved path)
  std::string peer_label;   // the other end ("" when the job graph does not say)
  bool peer_first = false;  // an output handle: the consumer's input part comes first
  size_t own_bytes = 0;
  std::string stream;

  // Where the handle's bytes begin in `stream`.
  size_t origin() const { return peer_first ? stream.size() - own_bytes : 0; }
  // "<channel> (continued by <peer>) at byte N of its in-flight data", or of the peer's when
  // `at` lies in the peer's part: for messages.
  std::string Place(size_t at) const;
};

// The stream of input handle `input` or output handle `output` (exactly one non-null) of
// subtask `subtask` of operator `operator_id`, whose bytes `own` were read already; reads the
// other end's buffers (ReadChannelBuffers' errors).
base::Result<ChannelStream> ReadChannelStream(base::Fs& fs, const Snapshot& snapshot,
                                              const ChannelPeers& peers,
                                              const std::string& operator_id, uint32_t subtask,
                                              const pb::InputChannelStateHandle* input,
                                              const pb::ResultSubpartitionStateHandle* output,
                                              const std::string& channel, std::string own);

// The resolved path of the file a handle's buffers are in ("" when it has none or the reference
// is invalid): errors about the handle's bytes name it.
std::string ChannelFilePath(const Snapshot& snapshot, const ChannelBuffers& buffers);

}  // namespace ckpt::ops::internal
