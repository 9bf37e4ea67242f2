// Apache Flink metadata in the format's protobuf: handles mapped to their closest counterpart
// (key groups, RocksDB, changelog), operator-state names declared from the operator handles,
// the file table and snapshot-wide facts from formats/flink/files.h (shared with the plain model).
#include "formats/flink/translate.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "formats/flink/files.h"

namespace ckpt::ops::internal {
namespace {

using Tag = flink::KeyedHandle::Tag;

class Translator {
 public:
  Translator(const flink::Metadata& md, const std::string& dir)
      : md_(md), dir_(dir), files_(md, dir) {}

  pb::CheckpointMetadata Run() {
    const FlinkSummary summary = SummarizeFlinkMetadata(md_, dir_);
    out_.set_format_version(md_.version);
    out_.set_engine_name("Apache Flink");
    out_.set_checkpoint_id(md_.checkpoint_id);
    if (!summary.job_id_hex.empty()) out_.set_job_id(HexBytes(summary.job_id_hex));
    size_t subtask_count = 0;
    for (const auto& op : md_.operators) subtask_count += op.subtasks.size();
    out_.mutable_files()->Reserve(
        static_cast<int>(std::min<size_t>(2 * subtask_count + 1, 1u << 20)));
    out_.mutable_operators()->Reserve(static_cast<int>(md_.operators.size()));
    for (const auto& op : md_.operators) {
      pb::OperatorState* os = out_.add_operators();
      os->set_operator_id(std::string(reinterpret_cast<const char*>(op.id), 16));
      os->set_parallelism(static_cast<uint32_t>(op.parallelism));
      os->set_max_parallelism(static_cast<uint32_t>(op.max_parallelism));
      os->set_fully_finished(op.fully_finished);
      if (op.coordinator.type == flink::StreamHandle::Type::kByteStream) {
        os->mutable_coordinator_state()->set_inline_data(op.coordinator.data);
        os->mutable_coordinator_state()->set_size_bytes(op.coordinator.data.size());
      }
      std::map<std::string, pb::StateKind> op_states;
      os->mutable_subtasks()->Reserve(
          static_cast<int>(op.subtasks.size() + op.finished_subtasks.size()));
      for (const auto& st : op.subtasks) {
        pb::SubtaskState* ps = os->add_subtasks();
        ps->set_subtask_index(static_cast<uint32_t>(st.index));
        for (const flink::KeyedHandle* kh : {&st.managed_keyed, &st.raw_keyed}) {
          if (kh->is_null()) continue;
          Keyed(*kh, ps->add_keyed_state());
        }
        for (const auto* oh : {&st.managed_operator, &st.raw_operator}) {
          if (!oh->has_value()) continue;
          pb::OperatorStateHandle* p = ps->add_operator_state();
          p->set_file_index(files_.Add((*oh)->delegate, FileKind::kOperatorState));
          for (const auto& e : (*oh)->states) {
            pb::OperatorStatePartition* part = p->add_partitions();
            part->set_state_name(e.name);
            const pb::StateKind kind =
                e.mode == flink::DistributionMode::kUnion       ? pb::STATE_OPERATOR_UNION
                : e.mode == flink::DistributionMode::kBroadcast ? pb::STATE_BROADCAST
                                                                : pb::STATE_OPERATOR_LIST;
            part->set_distribution(kind);
            part->mutable_entry_offsets()->Reserve(static_cast<int>(e.offsets.size()));
            for (int64_t off : e.offsets) part->add_entry_offsets(static_cast<uint64_t>(off));
            if (op_states.find(e.name) == op_states.end()) op_states.emplace(e.name, kind);
          }
        }
        for (const auto& c : st.input_channels) {
          pb::InputChannelStateHandle* h = ps->add_input_channel_state();
          h->set_gate_index(static_cast<uint32_t>(c.gate_or_partition));
          h->set_channel_index(static_cast<uint32_t>(c.channel_or_subpartition));
          h->set_size_bytes(static_cast<uint64_t>(c.state_size));
          AddBuffers(c, h->mutable_buffers());
        }
        for (const auto& c : st.result_subpartitions) {
          pb::ResultSubpartitionStateHandle* h = ps->add_output_channel_state();
          h->set_partition_index(static_cast<uint32_t>(c.gate_or_partition));
          h->set_subpartition_index(static_cast<uint32_t>(c.channel_or_subpartition));
          h->set_size_bytes(static_cast<uint64_t>(c.state_size));
          AddBuffers(c, h->mutable_buffers());
        }
      }
      for (int32_t idx : op.finished_subtasks) {
        pb::SubtaskState* ps = os->add_subtasks();
        ps->set_subtask_index(static_cast<uint32_t>(idx));
        ps->set_finished(true);
      }
      for (const auto& [name, kind] : op_states) {
        pb::StateDescriptor* d = os->add_states();
        d->set_name(name);
        d->set_kind(kind);
      }
    }
    for (const auto& e : files_.entries()) {
      pb::FileEntry* fe = out_.add_files();
      fe->set_path(e.path);
      fe->set_scope(static_cast<pb::FileScope>(e.scope));
      fe->set_kind(static_cast<pb::FileKind>(e.kind));
      fe->set_size_bytes(e.size_bytes);
      fe->set_created_by_checkpoint_id(md_.checkpoint_id);
    }
    out_.set_kind(static_cast<pb::SnapshotKind>(summary.kind));
    out_.set_savepoint_format(static_cast<pb::SavepointFormat>(summary.savepoint_format));
    out_.set_post_action(static_cast<pb::SavepointPostAction>(summary.post_action));
    out_.set_checkpoint_type(static_cast<pb::CheckpointType>(summary.checkpoint_type));
    if (summary.unaligned) out_.mutable_metrics()->set_is_unaligned(true);
    for (const auto& [k, v] : summary.properties) (*out_.mutable_properties())[k] = v;
    out_.mutable_metrics()->set_num_subtasks(summary.num_subtasks);
    return std::move(out_);
  }

 private:
  static std::string HexBytes(const std::string& hex) {
    auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    std::string bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      bytes.push_back(static_cast<char>(nib(hex[i]) * 16 + nib(hex[i + 1])));
    }
    return bytes;
  }

  void AddBuffers(const flink::ChannelHandle& c,
                  google::protobuf::RepeatedPtrField<pb::FileSlice>* buffers) {
    const uint32_t file = files_.Add(c.delegate, FileKind::kChannelState);
    if (c.offsets.empty()) {
      pb::FileSlice* s = buffers->Add();
      s->set_file_index(file);
      s->set_length(static_cast<uint64_t>(c.state_size));
      return;
    }
    for (int64_t off : c.offsets) {
      pb::FileSlice* s = buffers->Add();
      s->set_file_index(file);
      s->set_offset(static_cast<uint64_t>(off));
    }
  }

  void Keyed(const flink::KeyedHandle& h, pb::KeyedStateHandle* dst) {
    pb::KeyedStateHandle& out = *dst;
    const auto start = static_cast<uint32_t>(h.kg_start);
    const auto end = static_cast<uint32_t>(h.kg_start + h.kg_count - 1);
    switch (h.tag) {
      case Tag::kKeyGroups:
      case Tag::kKeyGroupsV2:
      case Tag::kSavepointKeyGroups: {
        pb::KeyGroupsStateHandle* kg = out.mutable_key_groups();
        kg->set_key_group_start(start);
        kg->set_key_group_end(end);
        kg->set_file_index(files_.Add(h.key_groups->delegate, FileKind::kKeyedState));
        break;
      }
      case Tag::kIncremental:
      case Tag::kIncrementalV2: {
        pb::RocksDbStateHandle* r = out.mutable_rocksdb();
        r->set_key_group_start(start);
        r->set_key_group_end(end);
        r->set_backend_id(h.backend_id);
        if (!h.meta.is_null()) {
          pb::RocksDbFile* f = r->add_meta_files();
          f->set_local_name("_meta");
          f->set_file_index(files_.Add(h.meta, FileKind::kRocksDbMeta));
        }
        for (const auto* list : {&h.shared_files, &h.private_files}) {
          for (const auto& lp : *list) {
            const bool sst = lp.local_path.size() > 4 &&
                             lp.local_path.compare(lp.local_path.size() - 4, 4, ".sst") == 0;
            pb::RocksDbFile* f = sst ? r->add_sst_files() : r->add_meta_files();
            f->set_local_name(lp.local_path);
            f->set_file_index(
                files_.Add(lp.handle, sst ? FileKind::kRocksDbSst : FileKind::kRocksDbMeta));
          }
        }
        break;
      }
      case Tag::kChangelog:
      case Tag::kChangelogV2: {
        pb::ChangelogStateHandle* c = out.mutable_changelog();
        c->set_key_group_start(start);
        c->set_key_group_end(end);
        c->set_materialization_id(h.materialization_id);
        for (const auto& m : h.materialized) Keyed(m, c->add_materialized());
        for (const auto& d : h.non_materialized) AddSegments(d, c);
        break;
      }
      case Tag::kChangelogBytes:
      case Tag::kChangelogFile:
      case Tag::kChangelogFileV2: {
        pb::ChangelogStateHandle* c = out.mutable_changelog();
        c->set_key_group_start(start);
        c->set_key_group_end(end);
        AddSegments(h, c);
        break;
      }
      case Tag::kNull:
        break;
    }
  }

  void AddSegments(const flink::KeyedHandle& d, pb::ChangelogStateHandle* c) {
    if (d.tag == Tag::kChangelogBytes) {
      pb::ChangelogSegment* s = c->add_segments();
      s->mutable_slice()->set_file_index(files_.Add(flink::StreamHandle{}, FileKind::kChangelog));
      s->set_from_sequence(static_cast<uint64_t>(d.from_sequence));
      s->set_to_sequence(static_cast<uint64_t>(d.to_sequence));
      return;
    }
    for (const auto& [offset, handle] : d.handles_and_offsets) {
      pb::ChangelogSegment* s = c->add_segments();
      s->mutable_slice()->set_file_index(files_.Add(handle, FileKind::kChangelog));
      s->mutable_slice()->set_offset(static_cast<uint64_t>(offset));
    }
  }

  const flink::Metadata& md_;
  std::string dir_;
  FlinkFileTable files_;
  pb::CheckpointMetadata out_;
};

}  // namespace

pb::CheckpointMetadata TranslateFlinkMetadata(const flink::Metadata& md, const std::string& dir) {
  return Translator(md, dir).Run();
}

}  // namespace ckpt::ops::internal
