// show --format json: the snapshot model in the JSON vocabulary every verb shares
// (docs/json/README.md, schema docs/json/show.schema.json). MetadataJson keeps protobuf's own
// mapping (proto_json.cpp) for callers that want the raw message.
#include "ckpt/ops/show.h"

#include "ckpt/base/checksum.h"
#include "ckpt/ops/in_flight.h"
#include "model/json_writer.h"
#include "model/proto_json.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

using internal::JsonWriter;

void Enum(JsonWriter& w, std::string_view key, std::string_view name, bool specified) {
  w.Key(key);
  if (specified) {
    w.Str(name);
  } else {
    w.Null();
  }
}

void Files(JsonWriter& w, std::string_view key, const std::vector<uint32_t>& files) {
  w.Key(key).BeginArray();
  for (uint32_t f : files) w.Uint(f);
  w.EndArray();
}

void WriteState(JsonWriter& w, const StateInfo& s) {
  w.BeginObject()
      .Str("name", s.name)
      .Str("kind", StateKindName(s.kind))
      .Bool("keyed", s.keyed)
      .StrOrNull("key_type", s.key_type)
      .StrOrNull("namespace_type", s.namespace_type)
      .StrOrNull("user_key_type", s.user_key_type)
      .StrOrNull("value_type", s.value_type)
      .Uint("serializer_version", s.serializer_version)
      .StrOrNull("timer_domain", s.timer_domain)
      .EndObject();
}

void WriteSubtask(JsonWriter& w, const SubtaskInfo& st) {
  w.BeginObject().Uint("subtask", st.index).Bool("finished", st.finished);
  w.Uint("state_size", st.state_bytes);
  w.Key("keyed_state").BeginArray();
  for (const auto& k : st.keyed) {
    uint64_t records = 0;
    for (uint64_t r : k.key_group_records) records += r;
    w.BeginObject()
        .Str("handle", KeyedHandleKindName(k.kind))
        .Uint("key_group_start", k.key_group_start)
        .Uint("key_group_end", k.key_group_end);
    Files(w, "files", k.file_indexes);
    w.Uint("records", records).Uint("size_bytes", k.size_bytes);
    w.StrOrNull("backend_id", k.backend_id);
    w.Int("materialization_id", k.materialization_id)
        .Uint("changelog_segments", k.changelog_segments)
        .EndObject();
  }
  w.EndArray();
  w.Key("operator_state").BeginArray();
  for (const auto& h : st.operator_state) {
    w.BeginObject().Uint("file", h.file_index).Key("partitions").BeginArray();
    for (const auto& p : h.partitions) {
      w.BeginObject()
          .Str("state", p.state_name)
          .Str("distribution", StateKindName(p.distribution))
          .Uint("entries", p.entry_count)
          .EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
  w.Key("channel_state").BeginArray();
  for (const auto& c : st.channels) {
    w.BeginObject()
        .Str("direction", c.input ? "input" : "output")
        .Uint(c.input ? "gate" : "partition", c.gate_or_partition)
        .Uint(c.input ? "channel" : "subpartition", c.channel_or_subpartition)
        .Uint("buffers", c.buffer_count)
        .Uint("size_bytes", c.size_bytes);
    Files(w, "files", c.file_indexes);
    w.EndObject();
  }
  w.EndArray();
  w.Key("committables").BeginArray();
  for (const auto& c : st.committables) {
    w.BeginObject()
        .Str("pending_path", c.pending_path)
        .Str("final_path", c.final_path)
        .Uint("size_bytes", c.size_bytes)
        .Str("checksum_xxh3", base::ChecksumHex(c.checksum_xxh3))
        .Int("checkpoint_id", c.checkpoint_id);
    if (c.is_upload()) {
      w.Str("upload_id", c.upload_id).Key("part_etags").BeginArray();
      for (const std::string& etag : c.part_etags) w.Str(etag);
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  const auto& m = st.metrics;
  w.Key("metrics")
      .BeginObject()
      .Int("ack_timestamp", m.ack_timestamp)
      .Int("end_to_end_duration", m.end_to_end_duration)
      .Uint("state_size", m.state_size)
      .Uint("checkpointed_size", m.checkpointed_size)
      .Int("sync_duration", m.sync_duration)
      .Int("async_duration", m.async_duration)
      .Int("alignment_duration", m.alignment_duration)
      .Int("start_delay", m.start_delay)
      .Uint("processed_data", m.processed_data)
      .Uint("persisted_data", m.persisted_data)
      .Bool("unaligned_checkpoint", m.unaligned_checkpoint)
      .EndObject();
  w.EndObject();
}

void WriteOperator(JsonWriter& w, const OperatorInfo& op) {
  w.BeginObject()
      .Str("operator_id", op.id_hex)
      .StrOrNull("uid", op.uid)
      .Str("uid_origin", UidOriginName(op.uid_origin))
      .StrOrNull("name", op.name)
      .StrOrNull("kind", op.kind)
      .StrOrNull("spec_id", op.spec_id)
      .Uint("parallelism", op.parallelism)
      .Uint("max_parallelism", op.max_parallelism)
      .Uint("chain_index", op.chain_index)
      .Uint("position_in_chain", op.position_in_chain)
      .Bool("in_job_graph", op.in_job_graph)
      .Bool("has_state", op.has_state)
      .Bool("fully_finished", op.fully_finished)
      .Uint("state_size", op.total_bytes)
      .Uint("checkpointed_size", op.checkpointed_bytes);
  w.Key("states").BeginArray();
  for (const auto& s : op.states) WriteState(w, s);
  w.EndArray();
  w.Key("coordinator");
  if (op.coordinator) {
    const auto& c = *op.coordinator;
    w.BeginObject().Str("location", c.is_inline ? "inline" : "file").Key("file");
    if (c.file_index) {
      w.Uint(*c.file_index);
    } else {
      w.Null();
    }
    w.Uint("size_bytes", c.size_bytes).StrOrNull("type", c.type).EndObject();
  } else {
    w.Null();
  }
  w.Key("subtasks").BeginArray();
  for (const auto& st : op.subtasks) WriteSubtask(w, st);
  w.EndArray();
  w.EndObject();
}

}  // namespace

base::Result<std::string> MetadataJson(const Snapshot& snapshot) {
  std::string json;
  internal::AppendProtoJson(RawMetadata(snapshot), &json);
  return json;
}

std::string SnapshotJson(const Snapshot& s) {
  JsonWriter w;
  w.BeginObject()
      .Str("path", s.dir)
      .Uint("format_version", s.format_version)
      .StrOrNull("engine_name", s.engine_name)
      .StrOrNull("engine_version", s.engine_version)
      .StrOrNull("job_id", s.job_id_hex)
      .StrOrNull("job_name", s.job_name)
      .Int("checkpoint_id", s.checkpoint_id);
  Enum(w, "kind", SnapshotKindName(s.kind), s.kind != SnapshotKind::kUnspecified);
  Enum(w, "format", SavepointFormatName(s.savepoint_format),
       s.savepoint_format != SavepointFormat::kUnspecified);
  Enum(w, "type", CheckpointTypeName(s.checkpoint_type),
       s.checkpoint_type != CheckpointType::kUnspecified);
  Enum(w, "post_action", PostActionName(s.post_action), s.post_action != PostAction::kUnspecified);
  Enum(w, "mode", CheckpointingModeName(s.mode), s.mode != CheckpointingMode::kUnspecified);
  Enum(w, "retention", RetentionPolicyName(s.retention),
       s.retention != RetentionPolicy::kUnspecified);
  w.Key("restored_from");
  if (s.restored_from) {
    const auto& r = *s.restored_from;
    w.BeginObject().Str("path", r.path).Int("checkpoint_id", r.checkpoint_id);
    Enum(w, "kind", SnapshotKindName(r.kind), r.kind != SnapshotKind::kUnspecified);
    Enum(w, "claim_mode", ClaimModeName(r.claim_mode), r.claim_mode != ClaimMode::kUnspecified);
    w.Bool("allow_non_restored_state", r.allow_non_restored_state).EndObject();
  } else {
    w.Null();
  }
  w.Int("trigger_timestamp", s.trigger_timestamp_ms)
      .Int("completion_timestamp", s.completion_timestamp_ms)
      .Uint("state_size", s.full_size_bytes)
      .Uint("checkpointed_size", s.checkpointed_size_bytes)
      .Uint("metadata_size", s.metadata_size_bytes)
      .Uint("metadata_own_size", s.metadata_own_bytes())
      .Uint("inline_state_size", s.inline_state_bytes);
  w.Key("operators").BeginArray();
  for (const auto& op : s.operators) WriteOperator(w, op);
  w.EndArray();
  w.Key("edges").BeginArray();
  const InFlightByEdge in_flight = ComputeInFlightByEdge(s);
  for (const auto& e : s.edges) {
    w.BeginObject()
        .Str("source_operator_id", e.source_id_hex)
        .Str("target_operator_id", e.target_id_hex);
    Enum(w, "partitioning", PartitioningName(e.partitioning),
         e.partitioning != Partitioning::kUnspecified);
    w.Uint("target_input", e.target_input);
    // Unaligned checkpoints: the in-flight bytes persisted on this edge (both ends).
    const EdgeInFlight* f = in_flight.Find(e);
    w.Uint("in_flight_input_bytes", f ? f->input_bytes : 0)
        .Uint("in_flight_output_bytes", f ? f->output_bytes : 0)
        .EndObject();
  }
  w.EndArray();
  w.Key("files").BeginArray();
  for (const auto& f : s.files) {
    w.BeginObject()
        .Uint("index", f.index)
        .Str("path", f.path)
        .Str("scope", FileScopeName(f.scope))
        .Str("kind", FileKindName(f.kind))
        .Uint("size_bytes", f.size_bytes)
        // 0: no checksum / no creator recorded (Apache Flink records neither).
        .StrOrNull("checksum_xxh3", f.checksum_xxh3 != 0 ? base::ChecksumHex(f.checksum_xxh3) : "")
        .StrOrNull("compression", f.compression)
        .Key("created_by_checkpoint_id");
    if (f.created_by_checkpoint_id != 0) {
      w.Int(f.created_by_checkpoint_id);
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  const auto& m = s.metrics;
  // The writer's own numbers, as recorded (Flink REST names); the size model is above. A writer
  // that records metrics records when the checkpoint was triggered or acknowledged; without
  // either (Apache Flink's `_metadata` holds none) the values are unknown: null, never 0.
  const bool recorded = m.trigger_timestamp > 0 || m.latest_ack_timestamp > 0;
  auto ms = [&w](std::string_view key, int64_t v) -> JsonWriter& {
    return v > 0 ? w.Int(key, v) : w.Key(key).Null();
  };
  auto size = [&w, recorded](std::string_view key, uint64_t v) -> JsonWriter& {
    return recorded ? w.Uint(key, v) : w.Key(key).Null();
  };
  w.Key("recorded_metrics").BeginObject();
  ms("trigger_timestamp", m.trigger_timestamp);
  ms("latest_ack_timestamp", m.latest_ack_timestamp);
  ms("end_to_end_duration", m.end_to_end_duration);
  size("state_size", m.state_size);
  size("checkpointed_size", m.checkpointed_size);
  size("processed_data", m.processed_data);
  size("persisted_data", m.persisted_data);
  w.Uint("num_subtasks", m.num_subtasks);
  size("num_acknowledged_subtasks", m.num_acknowledged_subtasks);
  w.Bool("is_unaligned", m.is_unaligned);
  if (recorded) {
    w.Int("alignment_timeout", m.alignment_timeout);
  } else {
    w.Key("alignment_timeout").Null();
  }
  w.EndObject();
  w.Key("properties").BeginObject();
  for (const auto& [k, v] : s.properties) w.Str(k, v);
  w.EndObject();
  w.EndObject();
  return w.str();
}

}  // namespace ckpt::ops
