#include "ckpt/ops/in_flight.h"

#include <map>
#include <tuple>

#include "ckpt/base/bounds.h"
#include "ckpt/format/channel_layout.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/ops/operator_label.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

std::string Label(const Snapshot& snapshot, const std::string& id_hex) {
  for (const OperatorInfo& info : snapshot.operators) {
    if (info.id_hex != id_hex) continue;
    return OperatorLabel(info.name, info.uid, id_hex);
  }
  return id_hex;
}

bool HasChannelState(const pb::CheckpointMetadata& md) {
  for (const pb::OperatorState& os : md.operators()) {
    for (const pb::SubtaskState& st : os.subtasks()) {
      if (st.input_channel_state_size() > 0 || st.output_channel_state_size() > 0) return true;
    }
  }
  return false;
}

uint64_t ChannelStateBytes(const pb::CheckpointMetadata& md) {
  uint64_t bytes = 0;
  for (const pb::OperatorState& os : md.operators()) {
    for (const pb::SubtaskState& st : os.subtasks()) {
      for (const auto& h : st.input_channel_state()) bytes += h.size_bytes();
      for (const auto& h : st.output_channel_state()) bytes += h.size_bytes();
    }
  }
  return bytes;
}

}  // namespace

InFlightByEdge ComputeInFlightByEdge(const Snapshot& snapshot) {
  InFlightByEdge report;
  const pb::CheckpointMetadata& md = RawMetadata(snapshot);
  if (!HasChannelState(md)) return report;
  if (!format::ChannelLayoutIsBounded(md.job_graph())) {
    report.unattributed_bytes = ChannelStateBytes(md);
    return report;
  }
  const format::ChannelLayout layout(md.job_graph());
  std::map<format::ChannelLayout::EdgeKey, EdgeInFlight> by_edge;
  for (const pb::OperatorState& os : md.operators()) {
    for (const pb::SubtaskState& st : os.subtasks()) {
      for (const pb::InputChannelStateHandle& h : st.input_channel_state()) {
        auto in = layout.InputOf(os.operator_id(), st.subtask_index(), h.channel_index());
        if (!in || std::get<2>(in->first) != h.gate_index()) {
          report.unattributed_bytes += h.size_bytes();
          continue;
        }
        EdgeInFlight& e = by_edge[in->first];
        e.input_bytes += h.size_bytes();
        e.input_buffers += static_cast<uint64_t>(h.buffers_size());
      }
      for (const pb::ResultSubpartitionStateHandle& h : st.output_channel_state()) {
        const format::ChannelLayout::Edge* edge =
            layout.WriterEdge(os.operator_id(), h.partition_index());
        if (edge == nullptr || h.subpartition_index() >= edge->to_parallelism) {
          report.unattributed_bytes += h.size_bytes();
          continue;
        }
        EdgeInFlight& e = by_edge[edge->key];
        e.output_bytes += h.size_bytes();
        e.output_buffers += static_cast<uint64_t>(h.buffers_size());
      }
    }
  }
  for (const format::ChannelLayout::Edge& edge : layout.edges()) {
    auto it = by_edge.find(edge.key);
    if (it == by_edge.end()) continue;
    EdgeInFlight e = it->second;
    e.source_id_hex =
        format::OperatorId::FromBytes(std::get<0>(edge.key)).ValueOr(format::OperatorId()).ToHex();
    e.target_id_hex =
        format::OperatorId::FromBytes(std::get<1>(edge.key)).ValueOr(format::OperatorId()).ToHex();
    e.source = Label(snapshot, e.source_id_hex);
    e.target = Label(snapshot, e.target_id_hex);
    e.target_input = std::get<2>(edge.key);
    for (const EdgeInfo& info : snapshot.edges) {
      if (info.source_id_hex == e.source_id_hex && info.target_id_hex == e.target_id_hex &&
          info.target_input == e.target_input) {
        e.partitioning = info.partitioning;
      }
    }
    report.edges.push_back(std::move(e));
  }
  return report;
}

}  // namespace ckpt::ops
