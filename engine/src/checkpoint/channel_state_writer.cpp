#include "checkpoint/channel_state_writer.h"

#include <algorithm>

#include "ckpt/format/state_file_writer.h"

namespace ckpt::engine {

ChannelStateFileGroup::ChannelStateFileGroup(base::Fs* fs, CheckpointOptions options,
                                             std::string file_name, uint32_t num_members)
    : fs_(fs), options_(std::move(options)), file_name_(std::move(file_name)),
      num_members_(num_members) {}

void ChannelStateFileGroup::Contribute(ChannelStateContribution contribution) {
  std::vector<ChannelStateContribution> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    members_.push_back(std::move(contribution));
    if (members_.size() < num_members_) return;
    all.swap(members_);
  }
  WriteAndComplete(std::move(all));
}

void ChannelStateFileGroup::WriteAndComplete(std::vector<ChannelStateContribution> members) {
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.subtask < b.subtask; });
  std::vector<ChannelStateResult> results(members.size());
  bool any = false;
  for (const auto& m : members) {
    for (const auto& c : m.channels) any = any || !c.buffers.empty();
  }
  base::Status st;
  if (any) {
    const std::string path = base::JoinPath(options_.snapshot_dir, file_name_);
    format::StateFileWriterOptions wo;
    wo.kind = pb::CHANNEL_STATE;
    base::Result<std::unique_ptr<format::StateFileWriter>> w =
        format::StateFileWriter::Create(*fs_, path, wo);
    st = w.status();
    bool first_with_data = true;
    for (size_t i = 0; st.ok() && i < members.size(); ++i) {
      const ChannelStateContribution& m = members[i];
      ChannelStateResult& r = results[i];
      bool has_data = false;
      for (const auto& c : m.channels) has_data = has_data || !c.buffers.empty();
      if (!has_data) continue;
      r.counts_file = first_with_data;
      first_with_data = false;
      st = (*w)->BeginSection(m.subtask);
      for (const ChannelStateChannel& c : m.channels) {
        if (!st.ok() || c.buffers.empty()) continue;
        google::protobuf::RepeatedPtrField<pb::FileSlice>* slices;
        uint64_t* total;
        uint64_t in_total = 0;
        if (c.output) {
          pb::ResultSubpartitionStateHandle& h = r.output.emplace_back();
          h.set_partition_index(c.index_a);
          h.set_subpartition_index(c.index_b);
          slices = h.mutable_buffers();
        } else {
          pb::InputChannelStateHandle& h = r.input.emplace_back();
          h.set_gate_index(c.index_a);
          h.set_channel_index(c.index_b);
          slices = h.mutable_buffers();
        }
        total = &in_total;
        for (std::string_view b : c.buffers) {
          base::Result<uint64_t> offset = (*w)->Add(b);
          if (!offset.ok()) {
            st = offset.status();
            break;
          }
          pb::FileSlice* s = slices->Add();
          s->set_file_index(0);
          s->set_offset(*offset);
          s->set_length((*w)->logical_offset() - *offset);
          *total += b.size();
        }
        if (c.output) {
          r.output.back().set_size_bytes(in_total);
        } else {
          r.input.back().set_size_bytes(in_total);
        }
        r.persisted_bytes += in_total;
      }
    }
    if (st.ok()) {
      base::Result<format::StateFileSummary> summary = (*w)->Finish();
      st = summary.status();
      if (st.ok()) {
        pb::FileEntry e;
        e.set_path(file_name_);
        e.set_scope(pb::EXCLUSIVE);
        e.set_kind(pb::CHANNEL_STATE);
        e.set_size_bytes(summary->size_bytes);
        e.set_checksum_xxh3(summary->checksum_xxh3);
        e.set_compression(summary->compression);
        e.set_created_by_checkpoint_id(options_.checkpoint_id);
        for (ChannelStateResult& r : results) {
          if (!r.input.empty() || !r.output.empty()) r.file = e;
        }
      }
    } else if (w.ok()) {
      (*w)->Abandon();
    }
    if (!st.ok()) st = st.WithContext("writing channel state " + path);
  }
  for (size_t i = 0; i < members.size(); ++i) {
    if (st.ok()) {
      members[i].done(std::move(results[i]));
    } else {
      members[i].done(st);
    }
  }
}

std::shared_ptr<ChannelStateFileGroup> ChannelStateFiles::GroupFor(
    base::Fs* fs, const CheckpointOptions& options, const std::string& head_operator_hex,
    uint32_t subtask, uint32_t parallelism) {
  const uint32_t g = subtask / max_per_file_;
  const uint32_t first = g * max_per_file_;
  const uint32_t members = std::min(parallelism, first + max_per_file_) - first;
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_tuple(options.checkpoint_id, head_operator_hex, g);
  auto it = groups_.find(key);
  if (it != groups_.end()) return it->second;
  auto group = std::make_shared<ChannelStateFileGroup>(
      fs, options, head_operator_hex + "-channel-state-" + std::to_string(g) + ".state", members);
  groups_.emplace(key, group);
  return group;
}

void ChannelStateFiles::Forget(int64_t checkpoint_id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = groups_.begin(); it != groups_.end();) {
    if (std::get<0>(it->first) <= checkpoint_id) {
      it = groups_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace ckpt::engine
