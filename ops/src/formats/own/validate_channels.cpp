// validate --deep over the reference engine's channel state: each handle's bytes, read within
// the byte stream of its logical channel (the consumer's input part, then the producer's output
// part; FORMAT.md §8), are whole frames of well-formed stream elements. The check dump makes
// when it decodes the in-flight records, so the two agree on every snapshot.
#include <optional>
#include <string>

#include "ckpt/format/channel_stream.h"
#include "ckpt/format/operator_id.h"
#include "ckpt/format/stream_element.h"
#include "formats/own/channel_peers.h"
#include "formats/own/validate_groups.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops::internal {
namespace {

constexpr const char* kChannelCheckEngine = "ckpt-engine";

// The first defect of `s`'s frames that begin in the handle's bytes, "" if none.
std::string FirstChannelDefect(const ChannelStream& s) {
  format::Value key, value;
  int64_t timestamp = 0, watermark = 0;
  std::string defect;
  size_t failed_at = 0;
  const base::Status st = format::ForEachStreamFrame(
      s.stream, s.origin(), s.origin() + s.own_bytes,
      [&](const format::StreamFrameAt& f) -> base::Status {
        std::string_view element = f.element;
        base::Result<uint8_t> tag =
            format::DecodeStreamElement(&element, &key, &value, &timestamp, &watermark);
        if (!tag.ok()) {
          defect = s.Place(f.offset) + ": " + tag.status().message();
        } else if (!element.empty()) {
          defect = s.Place(f.offset) + ": " + std::to_string(element.size()) +
                   " bytes after the element in its frame";
        }
        return defect.empty() ? base::Status::OK() : base::Status::Corruption(defect);
      },
      &failed_at);
  if (!st.ok() && defect.empty()) defect = s.Place(failed_at) + ": " + st.message();
  return defect;
}

// Checks one handle; its buffers that cannot be read are the file rules' to report.
base::Status CheckChannelHandle(ValidateContext& ctx, const Snapshot& snapshot,
                                const ChannelPeers& peers, const pb::OperatorState& os,
                                uint32_t subtask, const pb::InputChannelStateHandle* input,
                                const pb::ResultSubpartitionStateHandle* output,
                                Location at) {
  const ChannelBuffers& buffers = input != nullptr ? input->buffers() : output->buffers();
  const std::string channel =
      input != nullptr
          ? "input " + std::to_string(input->gate_index()) + "/" +
                std::to_string(input->channel_index())
          : "output " + std::to_string(output->partition_index()) + "/" +
                std::to_string(output->subpartition_index());
  base::Result<std::string> own = ReadChannelBuffers(ctx.fs(), snapshot, buffers, channel);
  if (!own.ok()) {
    if (own.status().code() == base::StatusCode::kIOError) return own.status();
    return base::Status::OK();
  }
  base::Result<ChannelStream> s = ReadChannelStream(ctx.fs(), snapshot, peers, os.operator_id(),
                                                    subtask, input, output, channel,
                                                    std::move(own).value());
  if (!s.ok()) {
    if (s.status().code() == base::StatusCode::kIOError) return s.status();
    return base::Status::OK();
  }
  const std::string defect = FirstChannelDefect(*s);
  if (defect.empty()) return base::Status::OK();
  if (!buffers.empty() && buffers.Get(0).file_index() < snapshot.files.size()) {
    at.file = PathFromSnapshot(snapshot.files[buffers.Get(0).file_index()]);
  }
  ctx.Add("CKPT-D001", at, defect);
  return base::Status::OK();
}

}  // namespace

base::Status DeepCheckChannelState(ValidateContext& ctx, const Snapshot& snapshot) {
  if (snapshot.engine_name != kChannelCheckEngine) return base::Status::OK();  // opaque bytes
  const pb::CheckpointMetadata& md = RawMetadata(snapshot);
  std::optional<ChannelPeers> peers;
  for (const pb::OperatorState& os : md.operators()) {
    Location base_at;
    base_at.operator_id =
        format::OperatorId::FromBytes(os.operator_id()).ValueOr(format::OperatorId()).ToHex();
    for (const auto& info : snapshot.operators) {
      if (info.id_hex == base_at.operator_id) base_at = OperatorLocation(info);
    }
    for (const pb::SubtaskState& st : os.subtasks()) {
      if (st.input_channel_state_size() == 0 && st.output_channel_state_size() == 0) continue;
      if (ctx.progress().cancelled()) return base::Status::Cancelled("validate --deep cancelled");
      if (!peers) peers.emplace(md);
      Location at = base_at;
      at.subtask = st.subtask_index();
      for (const auto& h : st.input_channel_state()) {
        CKPT_RETURN_IF_ERROR(
            CheckChannelHandle(ctx, snapshot, *peers, os, st.subtask_index(), &h, nullptr, at));
      }
      for (const auto& h : st.output_channel_state()) {
        CKPT_RETURN_IF_ERROR(
            CheckChannelHandle(ctx, snapshot, *peers, os, st.subtask_index(), nullptr, &h, at));
      }
    }
  }
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
