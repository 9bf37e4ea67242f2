// ckpt-tool show SNAPSHOT: everything the metadata holds, readable; --format json is the same
// in the JSON vocabulary of every verb (docs/json/show.schema.json).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.h"
#include "ckpt/base/text_escape.h"
#include "ckpt/base/checksum.h"
#include "ckpt/ops/in_flight.h"
#include "ckpt/ops/operator_label.h"
#include "ckpt/ops/show.h"
#include "ckpt/ops/snapshot.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct ShowArgs {
  std::string path;
  std::string uids_file;
};

// A value the writer may not have recorded: `text`, or "—" when `known` is false.
std::string KnownOr(bool known, std::string text) {
  return known ? std::move(text) : std::string(kUnknownText);
}

std::string FileList(const std::vector<uint32_t>& indexes) {
  std::string s;
  for (uint32_t i : indexes) s += (s.empty() ? "#" : ", #") + std::to_string(i);
  return s.empty() ? "-" : s;
}

void PrintHeader(const ops::Snapshot& s, std::ostream& out) {
  TextTable t({"FIELD", "VALUE"});
  t.AddRow({"kind", std::string(ops::SnapshotKindName(s.kind))});
  if (s.kind == ops::SnapshotKind::kSavepoint) {
    t.AddRow({"savepoint format", std::string(ops::SavepointFormatName(s.savepoint_format))});
    t.AddRow({"post action", std::string(ops::PostActionName(s.post_action))});
  }
  t.AddRow({"checkpoint type",
            KnownOr(s.checkpoint_type != ops::CheckpointType::kUnspecified,
                    std::string(ops::CheckpointTypeName(s.checkpoint_type)))});
  t.AddRow({"checkpointing mode", KnownOr(s.mode != ops::CheckpointingMode::kUnspecified,
                                          std::string(ops::CheckpointingModeName(s.mode)))});
  t.AddRow({"checkpoint id", std::to_string(s.checkpoint_id)});
  t.AddRow({"job id", KnownOr(!s.job_id_hex.empty(), s.job_id_hex)});
  t.AddRow({"job name", OrDash(s.job_name)});
  t.AddRow({"format version", std::to_string(s.format_version)});
  t.AddRow(
      {"writer", OrDash(s.engine_name + (s.engine_version.empty() ? "" : " " + s.engine_version))});
  t.AddRow({"triggered", IsoTime(s.trigger_timestamp_ms)});
  t.AddRow({"completed", IsoTime(s.completion_timestamp_ms)});
  if (s.kind == ops::SnapshotKind::kCheckpoint) {
    t.AddRow({"retention", std::string(ops::RetentionPolicyName(s.retention))});
  }
  if (s.restored_from) {
    const auto& r = *s.restored_from;
    t.AddRow({"restored from", r.path + " (" + std::string(ops::SnapshotKindName(r.kind)) +
                                   " " + std::to_string(r.checkpoint_id) + ", " +
                                   std::string(ops::ClaimModeName(r.claim_mode)) +
                                   (r.allow_non_restored_state ? ", non-restored state allowed"
                                                               : "") +
                                   ")"});
  } else {
    t.AddRow({"restored from", "-"});
  }
  t.AddRow({"files", std::to_string(s.files.size()) + " (" + SizeText(s.total_file_bytes) + ")"});
  t.AddRow({"full size", SizeText(s.full_size_bytes)});
  t.AddRow({"checkpointed size", SizeText(s.checkpointed_size_bytes)});
  // docs/sizes.md: inline state is in its operators' sizes; the rest of `_metadata` is its own.
  t.AddRow({"_metadata", SizeText(s.metadata_own_bytes()) + " besides " +
                             SizeText(s.inline_state_bytes) + " of inline state (" +
                             SizeText(s.metadata_size_bytes) + " on disk)"});
  t.Print(out);
}

void PrintMetrics(const ops::Snapshot& s, std::ostream& out) {
  const auto& m = s.metrics;
  out << "\nMetrics (as recorded by the writer)\n";
  // A writer that records metrics records when the checkpoint was triggered or acknowledged;
  // without either (Apache Flink's `_metadata` holds no metrics) the sizes are unknown, not 0.
  const bool recorded = m.trigger_timestamp > 0 || m.latest_ack_timestamp > 0;
  TextTable t({"METRIC", "VALUE"}, {false, true});
  t.AddRow({"trigger_timestamp", KnownOr(m.trigger_timestamp > 0, IsoTime(m.trigger_timestamp))});
  t.AddRow({"latest_ack_timestamp",
            KnownOr(m.latest_ack_timestamp > 0, IsoTime(m.latest_ack_timestamp))});
  t.AddRow({"end_to_end_duration",
            KnownOr(m.end_to_end_duration > 0, std::to_string(m.end_to_end_duration) + " ms")});
  t.AddRow({"state_size", KnownOr(recorded, std::to_string(m.state_size))});
  t.AddRow({"checkpointed_size", KnownOr(recorded, std::to_string(m.checkpointed_size))});
  t.AddRow({"processed_data", KnownOr(recorded, std::to_string(m.processed_data))});
  t.AddRow({"persisted_data", KnownOr(recorded, std::to_string(m.persisted_data))});
  t.AddRow({"num_subtasks", std::to_string(m.num_subtasks)});
  t.AddRow({"num_acknowledged_subtasks",
            KnownOr(recorded, std::to_string(m.num_acknowledged_subtasks))});
  t.AddRow({"is_unaligned", m.is_unaligned ? "true" : "false"});
  t.AddRow({"alignment_timeout", KnownOr(recorded, std::to_string(m.alignment_timeout) + " ms")});
  t.Print(out);
}

void PrintJobGraph(const ops::Snapshot& s, std::ostream& out) {
  out << "\nJob graph\n";
  TextTable t({"OPERATOR ID", "UID", "NAME", "KIND", "P", "MAXP", "CHAIN", "IN GRAPH"},
              {false, false, false, false, true, true, false, false});
  bool not_recorded = false;
  for (const auto& op : s.operators) {
    not_recorded |= op.uid_origin == ops::UidOrigin::kNotRecorded;
    t.AddRow({op.id_hex, UidCell(op.uid, op.uid_origin), OrDash(op.name), OrDash(op.kind),
              std::to_string(op.parallelism), std::to_string(op.max_parallelism),
              op.in_job_graph
                  ? std::to_string(op.chain_index) + "." + std::to_string(op.position_in_chain)
                  : "-",
              op.in_job_graph ? "yes" : "no (state only)"});
  }
  t.Print(out);
  out << UidNotRecordedNote(not_recorded);
  if (!s.edges.empty()) {
    auto label = [&s](const std::string& id) {
      for (const auto& op : s.operators) {
        if (op.id_hex == id) return ops::OperatorLabel(op.name, op.uid, id);
      }
      return id;
    };
    // Unaligned checkpoints: the in-flight bytes each edge carries (consumer / producer side).
    const ops::InFlightByEdge in_flight = ops::ComputeInFlightByEdge(s);
    const bool any = !in_flight.edges.empty();
    std::vector<std::string> head = {"FROM", "TO", "PARTITIONING", "INPUT"};
    std::vector<bool> right = {false, false, false, true};
    if (any) {
      head.insert(head.end(), {"IN-FLIGHT IN", "IN-FLIGHT OUT"});
      right.insert(right.end(), {true, true});
    }
    TextTable e(head, right);
    for (const auto& edge : s.edges) {
      std::vector<std::string> row = {label(edge.source_id_hex), label(edge.target_id_hex),
                                      std::string(ops::PartitioningName(edge.partitioning)),
                                      std::to_string(edge.target_input)};
      if (any) {
        const ops::EdgeInFlight* f = in_flight.Find(edge);
        row.push_back(SizeText(f ? f->input_bytes : 0));
        row.push_back(SizeText(f ? f->output_bytes : 0));
      }
      e.AddRow(row);
    }
    out << "\n";
    e.Print(out);
  }
}

void PrintOperator(const ops::OperatorInfo& op, std::ostream& out) {
  out << "\nOperator " << base::EscapeForText(ops::OperatorLabel(op.name, op.uid, op.id_hex)) << " ["
      << op.id_hex << "]"
      << (op.fully_finished ? " (fully finished)" : "") << ": " << SizeText(op.total_bytes) << " ("
      << SizeText(op.checkpointed_bytes) << " checkpointed)\n";
  if (!op.states.empty()) {
    TextTable t({"STATE", "KIND", "KEY", "NAMESPACE", "USER KEY", "VALUE", "SERIALIZER"},
                {false, false, false, false, false, false, true});
    for (const auto& st : op.states) {
      std::string kind(ops::StateKindName(st.kind));
      if (!st.timer_domain.empty()) kind += " (" + st.timer_domain + ")";
      t.AddRow({st.name, kind, OrDash(st.key_type), OrDash(st.namespace_type),
                OrDash(st.user_key_type), OrDash(st.value_type),
                "v" + std::to_string(st.serializer_version)});
    }
    t.Print(out);
  }
  if (op.coordinator) {
    const auto& c = *op.coordinator;
    out << "  coordinator state: " << SizeText(c.size_bytes) << ", "
        << (c.is_inline ? std::string("inline") : "file #" + std::to_string(*c.file_index))
        << base::EscapeForText(c.type.empty() ? "" : ", type " + c.type) << "\n";
  }
  if (op.subtasks.empty()) return;
  TextTable t({"SUBTASK", "HANDLE", "KEY GROUPS", "FILES", "DETAIL", "STATE SIZE"},
              {true, false, false, false, false, true});
  for (const auto& st : op.subtasks) {
    const std::string idx = std::to_string(st.index) + (st.finished ? " (finished)" : "");
    // The size model's share (docs/sizes.md); the writer's per-subtask numbers are in the JSON.
    const std::string sizes = SizeText(st.state_bytes);
    bool first = true;
    auto row = [&](std::string handle, std::string groups, std::string files, std::string detail) {
      t.AddRow({first ? idx : "", std::move(handle), std::move(groups), std::move(files),
                std::move(detail), first ? sizes : ""});
      first = false;
    };
    for (const auto& k : st.keyed) {
      std::string detail;
      if (k.kind == ops::KeyedHandleKind::kRocksDb) detail = "backend " + k.backend_id;
      if (k.kind == ops::KeyedHandleKind::kChangelog) {
        detail = "materialization " + std::to_string(k.materialization_id) + ", " +
                 std::to_string(k.changelog_segments) + " segment(s)";
      }
      if (k.kind == ops::KeyedHandleKind::kKeyGroups) {
        uint64_t records = 0;
        for (uint64_t r : k.key_group_records) records += r;
        detail = std::to_string(records) + " record(s)";
      }
      row("keyed/" + std::string(ops::KeyedHandleKindName(k.kind)),
          "[" + std::to_string(k.key_group_start) + ", " + std::to_string(k.key_group_end) + "]",
          FileList(k.file_indexes), detail);
    }
    for (const auto& h : st.operator_state) {
      std::string detail;
      for (const auto& p : h.partitions) {
        detail += (detail.empty() ? "" : ", ") + p.state_name + " (" +
                  std::string(ops::StateKindName(p.distribution)) + "): " +
                  std::to_string(p.entry_count);
      }
      row("operator", "-", FileList({h.file_index}), OrDash(detail));
    }
    for (const auto& c : st.channels) {
      row(c.input ? "input-channel" : "output-subpartition",
          "-", FileList(c.file_indexes),
          std::to_string(c.gate_or_partition) + "/" + std::to_string(c.channel_or_subpartition) +
              ": " + std::to_string(c.buffer_count) + " buffer(s), " +
              SizeText(c.size_bytes));
    }
    for (const auto& c : st.committables) {
      row("sink-pending", "-", "-",
          c.PendingName() + " -> " + c.final_path + " (" + SizeText(c.size_bytes) +
              ", checkpoint " + std::to_string(c.checkpoint_id) + ")");
    }
    if (first) row("-", "-", "-", "no state");
  }
  t.Print(out);
}

void PrintFiles(const ops::Snapshot& s, std::ostream& out) {
  out << "\nFiles\n";
  TextTable t({"#", "PATH", "SCOPE", "KIND", "SIZE", "XXH3", "COMPRESSION", "CREATED BY"},
              {true, false, false, false, true, false, false, true});
  for (const auto& f : s.files) {
    // 0: no checksum / creator recorded (Apache Flink records neither).
    t.AddRow({std::to_string(f.index), f.path, std::string(ops::FileScopeName(f.scope)),
              std::string(ops::FileKindName(f.kind)), SizeText(f.size_bytes),
              KnownOr(f.checksum_xxh3 != 0, base::ChecksumHex(f.checksum_xxh3)),
              OrDash(f.compression),
              KnownOr(f.created_by_checkpoint_id != 0, std::to_string(f.created_by_checkpoint_id))});
  }
  t.Print(out);
}

CommandResult RunShow(const ShowArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "show");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  auto where = ctx.LocateSnapshot(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto uids = ReadUidsOption(ctx, args.uids_file);
  if (!uids.ok()) return CommandResult::Error(uids.status());
  auto snapshot = ops::LoadSnapshot(*where->fs, where->path, ops::LoadOptions{.uids = *uids});
  if (!snapshot.ok()) return CommandResult::Error(snapshot.status());
  std::ostream& out = ctx.out();
  if (*format == OutputFormat::kJson) {
    out << ops::SnapshotJson(*snapshot) << "\n";
    return CommandResult::Clean();
  }
  PrintHeader(*snapshot, out);
  PrintJobGraph(*snapshot, out);
  for (const auto& op : snapshot->operators) {
    if (op.has_state) PrintOperator(op, out);
  }
  PrintFiles(*snapshot, out);
  PrintMetrics(*snapshot, out);
  if (!snapshot->properties.empty()) {
    out << "\nProperties\n";
    TextTable t({"KEY", "VALUE"});
    for (const auto& [k, v] : snapshot->properties) t.AddRow({k, v});
    t.Print(out);
  }
  return CommandResult::Clean();
}

}  // namespace

void AddShowCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* sub = app.add_subcommand("show", "Show everything a snapshot's metadata holds");
  sub->add_option("snapshot", args->path, "Snapshot directory or its _metadata file")->required();
  AddUidsOption(sub, &args->uids_file);
  SetExamples(sub, {"ckpt-tool show /var/savepoints/savepoint-3f2a1b-0c9d8e7f6a5b",
                    "ckpt-tool show --format json chk-42/_metadata | jq .operators"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunShow(*args, ctx); }; });
}

}  // namespace ckpt::cli
