#include "formats/own/channel_peers.h"

#include <map>

#include "ckpt/base/bounds.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/state_file_reader.h"

namespace ckpt::ops::internal {
namespace {

std::string ChannelPeerLabel(bool output, uint32_t a, uint32_t b, const std::string& operator_id,
                             uint32_t subtask) {
  return std::string(output ? "output " : "input ") + std::to_string(a) + "/" +
         std::to_string(b) + " of operator " +
         format::OperatorId::FromBytes(operator_id).ValueOr(format::OperatorId()).ToHex() +
         " subtask " + std::to_string(subtask);
}

}  // namespace

ChannelPeers::ChannelPeers(const pb::CheckpointMetadata& metadata) : metadata_(metadata) {
  if (metadata.has_job_graph() && format::ChannelLayoutIsBounded(metadata.job_graph())) {
    layout_ = std::make_unique<format::ChannelLayout>(metadata.job_graph());
  }
}

const pb::SubtaskState* ChannelPeers::Subtask(const std::string& operator_id,
                                              uint32_t subtask) const {
  for (const pb::OperatorState& os : metadata_.operators()) {
    if (os.operator_id() != operator_id) continue;
    for (const pb::SubtaskState& st : os.subtasks()) {
      if (st.subtask_index() == subtask) return &st;
    }
  }
  return nullptr;
}

ChannelPeer ChannelPeers::OutputFeeding(const std::string& operator_id, uint32_t subtask,
                                        const pb::InputChannelStateHandle& h) const {
  ChannelPeer peer;
  if (layout_ == nullptr) return peer;
  const auto in = layout_->InputOf(operator_id, subtask, h.channel_index());
  if (!in || std::get<2>(in->first) != h.gate_index()) return peer;
  const format::ChannelLayout::Edge* edge = layout_->FindEdge(in->first);
  const std::optional<uint32_t> target = layout_->TargetOf(in->first, in->second, subtask);
  if (edge == nullptr || !target) return peer;
  const std::string& producer = std::get<0>(in->first);
  peer.label = ChannelPeerLabel(true, edge->writer_index, *target, producer, in->second);
  const pb::SubtaskState* st = Subtask(producer, in->second);
  if (st == nullptr) return peer;
  for (const pb::ResultSubpartitionStateHandle& o : st->output_channel_state()) {
    if (o.partition_index() == edge->writer_index && o.subpartition_index() == *target) {
      peer.buffers = &o.buffers();
    }
  }
  return peer;
}

ChannelPeer ChannelPeers::InputFedBy(const std::string& operator_id, uint32_t subtask,
                                     const pb::ResultSubpartitionStateHandle& h) const {
  ChannelPeer peer;
  if (layout_ == nullptr) return peer;
  const format::ChannelLayout::Edge* edge = layout_->WriterEdge(operator_id, h.partition_index());
  if (edge == nullptr) return peer;
  for (uint32_t d = 0; d < edge->to_parallelism; ++d) {
    const std::optional<uint32_t> target = layout_->TargetOf(edge->key, subtask, d);
    if (!target || *target != h.subpartition_index()) continue;
    const std::optional<uint32_t> channel = layout_->ChannelOf(edge->key, subtask, d);
    if (!channel) return peer;
    const std::string& consumer = std::get<1>(edge->key);
    const uint32_t gate = std::get<2>(edge->key);
    peer.label = ChannelPeerLabel(false, gate, *channel, consumer, d);
    const pb::SubtaskState* st = Subtask(consumer, d);
    if (st == nullptr) return peer;
    for (const pb::InputChannelStateHandle& i : st->input_channel_state()) {
      if (i.gate_index() == gate && i.channel_index() == *channel) peer.buffers = &i.buffers();
    }
    return peer;
  }
  return peer;
}

base::Result<std::string> ReadChannelBuffer(base::Fs& fs, const Snapshot& snapshot,
                                            const pb::FileSlice& slice, const std::string& channel,
                                            uint32_t index) {
  if (slice.file_index() >= snapshot.files.size()) {
    return base::Status::Corruption(snapshot.metadata_path + ": channel " + channel + " buffer " +
                                    std::to_string(index) + " names file #" +
                                    std::to_string(slice.file_index()) +
                                    ", beyond the file table");
  }
  const SnapshotFile& f = snapshot.files[slice.file_index()];
  if (f.resolved_path.empty()) {
    return base::Status::Corruption(snapshot.metadata_path + ": file #" +
                                    std::to_string(slice.file_index()) + ": " + f.resolve_error);
  }
  CKPT_ASSIGN_OR_RETURN(auto reader, format::StateFileReader::Open(fs, f.resolved_path));
  CKPT_ASSIGN_OR_RETURN(auto it, reader->NewIteratorAt(slice.offset(), 1));
  format::RecordRef rec;
  CKPT_ASSIGN_OR_RETURN(bool more, it->Next(&rec));
  // A slice covers one record: its length prefix plus its bytes (FORMAT.md "Logical offsets").
  uint64_t prefix = 1;
  for (uint64_t v = rec.bytes.size(); v >= 0x80; v >>= 7) ++prefix;
  if (!more || rec.logical_offset != slice.offset() ||
      rec.bytes.size() + prefix != slice.length()) {
    return base::Status::Corruption(reader->path() + ": channel " + channel + " buffer " +
                                    std::to_string(index) + " at logical offset " +
                                    std::to_string(slice.offset()) + " is not one record of " +
                                    std::to_string(slice.length()) + " logical bytes");
  }
  return std::string(rec.bytes);
}

base::Result<std::string> ReadChannelBuffers(base::Fs& fs, const Snapshot& snapshot,
                                             const ChannelBuffers& buffers,
                                             const std::string& channel) {
  std::string out;
  uint32_t index = 0;
  for (const pb::FileSlice& slice : buffers) {
    CKPT_ASSIGN_OR_RETURN(std::string b, ReadChannelBuffer(fs, snapshot, slice, channel, index));
    out += b;
    ++index;
  }
  return out;
}

std::string ChannelStream::Place(size_t at) const {
  std::string w = "channel " + channel;
  if (!peer_label.empty()) {
    w += std::string(peer_first ? " (after " : " (continued by ") + peer_label + ")";
  }
  if (at >= origin()) {
    return w + " at byte " + std::to_string(at - origin()) + " of its in-flight data";
  }
  return w + " at byte " + std::to_string(at) + " of the in-flight data of " + peer_label;
}

base::Result<ChannelStream> ReadChannelStream(base::Fs& fs, const Snapshot& snapshot,
                                              const ChannelPeers& peers,
                                              const std::string& operator_id, uint32_t subtask,
                                              const pb::InputChannelStateHandle* input,
                                              const pb::ResultSubpartitionStateHandle* output,
                                              const std::string& channel, std::string own) {
  const ChannelPeer peer = input != nullptr ? peers.OutputFeeding(operator_id, subtask, *input)
                                            : peers.InputFedBy(operator_id, subtask, *output);
  std::string peer_bytes;
  if (peer.buffers != nullptr) {
    CKPT_ASSIGN_OR_RETURN(peer_bytes, ReadChannelBuffers(fs, snapshot, *peer.buffers, peer.label));
  }
  ChannelStream s;
  s.channel = channel;
  s.file = ChannelFilePath(snapshot, input != nullptr ? input->buffers() : output->buffers());
  s.peer_label = peer.label;
  s.peer_first = output != nullptr;
  s.own_bytes = own.size();
  s.stream = s.peer_first ? peer_bytes + own : own + peer_bytes;
  return s;
}

std::string ChannelFilePath(const Snapshot& snapshot, const ChannelBuffers& buffers) {
  if (buffers.empty() || buffers.Get(0).file_index() >= snapshot.files.size()) return "";
  return snapshot.files[buffers.Get(0).file_index()].resolved_path;
}

}  // namespace ckpt::ops::internal
