// StreamTask: restore of an unaligned checkpoint's in-flight data (channel state).
// Edges whose parallelism is unchanged get their channels' buffers back verbatim (indexes
// translated through the old and new ChannelLayout). HASH and REBALANCE edges whose parallelism
// changed are redistributed (Flink's channel-state rescaling for keyed and round-robin edges):
// for every old pair (upstream u, downstream d) of the edge, the consumer's persisted input
// (d's channel from u) followed by the producer's persisted output (u's subpartition for d) is
// one contiguous run of whole frames; each record frame goes to the new subtask owning its key
// group (HASH), or each run as a whole to new subtask (u x old downstream parallelism + d) mod
// new parallelism (REBALANCE; the same d when the downstream parallelism is unchanged).
// Watermark frames are dropped (they are regenerated). The new producer does not replay output
// state of a redistributed edge: its consumers took it. Other rescaled edges carrying in-flight
// data were refused by RestorePlan. Upstream data is held back until every replayed buffer has
// been processed, so no new record overtakes a replayed one on another channel.
#include "ckpt/engine/checkpoint/restore_plan.h"
#include "ckpt/engine/record.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/channel_layout.h"
#include "record_writer.h"
#include "stream_element_codec.h"
#include "stream_task.h"

namespace ckpt::engine::runtime {
namespace {

using format::ChannelLayout;

using EdgeKey = ChannelLayout::EdgeKey;

bool Redistributed(const ChannelLayout::Edge& now, const ChannelLayout::Edge* was) {
  return was != nullptr && (was->from_parallelism != now.from_parallelism ||
                            was->to_parallelism != now.to_parallelism);
}

// Appends the record frames of `run` that belong to new subtask `subtask` to `out`.
base::Status RouteFrames(const std::string& run, const ChannelLayout::Edge& edge, uint32_t subtask,
                         const std::string& where, std::string* out) {
  std::string_view rest = run;
  Record record;
  std::string key;
  while (true) {
    const std::string_view before = rest;
    std::string_view element;
    base::Result<bool> more = format::NextStreamFrame(&rest, &element);
    if (!more.ok()) return more.status().WithContext(where + ": in-flight data");
    if (!*more) break;
    const std::string_view frame = before.substr(0, before.size() - rest.size());
    int64_t watermark = 0;
    CKPT_ASSIGN_OR_RETURN(uint8_t tag, DecodeElement(&element, &record, &watermark));
    if (tag != kRecordTag) continue;  // watermarks are regenerated after the restore
    key.clear();
    CKPT_RETURN_IF_ERROR(EncodeRecordKey(record.key, &key));
    const uint32_t group = KeyGroupOfEncodedKey(key, edge.target_max_parallelism);
    if (format::SubtaskForKeyGroup(edge.target_max_parallelism, edge.to_parallelism, group) ==
        subtask) {
      out->append(frame);
    }
  }
  return base::Status::OK();
}

}  // namespace

base::Status StreamTask::RestoreChannelState() {
  const RestorePlan& plan = *env_->restore;
  const uint32_t n = inbox_->num_channels();
  const ChannelLayout old_layout(plan.metadata().job_graph());
  const ChannelLayout new_layout(env_->graph);
  const format::OperatorId head = drivers_.front()->ctx()->operator_id();
  const format::OperatorId tail = drivers_.back()->ctx()->operator_id();
  const std::string head_bytes = head.ToBytes();
  const std::string tail_bytes = tail.ToBytes();
  uint32_t restored = 0;

  // This subtask's own channel state (head: inputs; tail: outputs), as it was persisted.
  std::vector<RestorePlan::RestoredChannel> own;
  CKPT_ASSIGN_OR_RETURN(own, plan.ReadChannelState(head, subtask_));
  if (drivers_.size() > 1) {
    CKPT_ASSIGN_OR_RETURN(std::vector<RestorePlan::RestoredChannel> t,
                          plan.ReadChannelState(tail, subtask_));
    for (auto& c : t) {
      if (c.output) own.push_back(std::move(c));
    }
  }
  const auto& writers = writer_output_.writers();
  for (const RestorePlan::RestoredChannel& c : own) {
    const std::string where = name_ + ": restored channel state for " +
                              (c.output ? "output subpartition " : "input channel ") +
                              std::to_string(c.index_a) + "/" + std::to_string(c.index_b);
    if (c.output) {
      const ChannelLayout::Edge* was = old_layout.WriterEdge(tail_bytes, c.index_a);
      const ChannelLayout::Edge* now = was ? new_layout.FindEdge(was->key) : nullptr;
      if (now == nullptr) {
        return base::Status::InvalidArgument(where + ", an edge this job no longer has");
      }
      if (Redistributed(*now, was)) continue;  // the consumers take it
      if (now->writer_index >= writers.size() ||
          c.index_b >= writers[now->writer_index]->num_targets()) {
        return base::Status::InvalidArgument(where + ", which this task does not have");
      }
      for (const std::string& b : c.buffers) {
        writers[now->writer_index]->RestoreBuffer(c.index_b, NewUnpooledBuffer(b));
      }
      continue;
    }
    std::optional<std::pair<EdgeKey, uint32_t>> from = old_layout.InputOf(head_bytes, subtask_, c.index_b);
    const ChannelLayout::Edge* was = from ? old_layout.FindEdge(from->first) : nullptr;
    const ChannelLayout::Edge* now = was ? new_layout.FindEdge(was->key) : nullptr;
    if (now == nullptr) {
      return base::Status::InvalidArgument(where + ", an edge this job no longer has");
    }
    if (Redistributed(*now, was)) continue;  // gathered below, with every old subtask's
    std::optional<uint32_t> channel = new_layout.ChannelOf(now->key, from->second, subtask_);
    if (!channel || *channel >= n || inbox_->channel_input(*channel) != c.index_a) {
      return base::Status::InvalidArgument(where + ", which this task does not have");
    }
    for (const std::string& b : c.buffers) {
      inbox_->RestoreBuffer(*channel, NewUnpooledBuffer(b));
      ++restored;
    }
  }

  // Redistributed edges into this chain's head: every old (u, d) run, routed.
  for (const ChannelLayout::Edge& now : new_layout.edges()) {
    if (std::get<1>(now.key) != head_bytes) continue;
    const ChannelLayout::Edge* was = old_layout.FindEdge(now.key);
    if (!Redistributed(now, was)) continue;
    CKPT_ASSIGN_OR_RETURN(format::OperatorId from_op,
                          format::OperatorId::FromBytes(std::get<0>(now.key)));
    // Old consumers' inputs of this edge and old producers' outputs, by old subtask.
    std::map<uint32_t, std::vector<RestorePlan::RestoredChannel>> inputs, outputs;
    for (uint32_t d = 0; d < was->to_parallelism; ++d) {
      CKPT_ASSIGN_OR_RETURN(inputs[d], plan.ReadChannelState(head, d));
    }
    for (uint32_t u = 0; u < was->from_parallelism; ++u) {
      CKPT_ASSIGN_OR_RETURN(outputs[u], plan.ReadChannelState(from_op, u));
    }
    for (uint32_t u = 0; u < was->from_parallelism; ++u) {
      for (uint32_t d = 0; d < was->to_parallelism; ++d) {
        const std::optional<uint32_t> in_ch = old_layout.ChannelOf(was->key, u, d);
        const std::optional<uint32_t> target = old_layout.TargetOf(was->key, u, d);
        if (!in_ch || !target) continue;
        std::string run;
        for (const auto& c : inputs[d]) {
          if (!c.output && c.index_b == *in_ch) {
            for (const std::string& b : c.buffers) run += b;
          }
        }
        for (const auto& c : outputs[u]) {
          if (c.output && c.index_a == was->writer_index && c.index_b == *target) {
            for (const std::string& b : c.buffers) run += b;
          }
        }
        if (run.empty()) continue;
        std::string mine;
        if (now.partitioning == pb::HASH) {
          CKPT_RETURN_IF_ERROR(RouteFrames(
              run, now, subtask_,
              name_ + ": in-flight data of old subtasks " + std::to_string(u) + " -> " +
                  std::to_string(d),
              &mine));
        } else {
          const uint32_t to = now.to_parallelism == was->to_parallelism
                                  ? d
                                  : (u * was->to_parallelism + d) % now.to_parallelism;
          if (to == subtask_) mine = std::move(run);
        }
        if (mine.empty()) continue;
        const uint32_t new_u = u % now.from_parallelism;
        std::optional<uint32_t> channel = new_layout.ChannelOf(now.key, new_u, subtask_);
        if (!channel || *channel >= n) {
          return base::Status::Internal(name_ + ": no input channel for redistributed data");
        }
        inbox_->RestoreBuffer(*channel, NewUnpooledBuffer(mine));
        ++restored;
      }
    }
  }
  // Replayed buffers are queued first; upstream data follows once they are all processed.
  holding_upstream_ = n > 0 && restored > 0;
  if (n > 0 && !holding_upstream_) inbox_->HoldUpstream(false);
  return base::Status::OK();
}

}  // namespace ckpt::engine::runtime
