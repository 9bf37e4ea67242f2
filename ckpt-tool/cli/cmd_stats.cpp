// ckpt-tool stats SNAPSHOT: size by operator, state and key group; in-flight data by edge;
// key-group skew; union state far above parallelism. Findings are warnings (exit 0; --strict makes them exit 1).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "cli_common.h"
#include "ckpt/ops/operator_label.h"
#include "ckpt/ops/prune.h"
#include "ckpt/ops/stats.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct StatsArgs {
  std::string path;
  std::string uids_file;
  ops::StatsOptions options;
  std::string ttl_expired_at;  // --ttl-expired-at TIME, parsed into options
  std::string ttl;             // --ttl DURATION
  bool strict = false;
};

std::string Ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string KeysJson(const std::vector<ops::KeySize>& keys) {
  std::string s = "[";
  for (const auto& k : keys) {
    if (s.size() > 1) s += ",";
    s += JsonLine()
             .Raw("key", k.key_json)
             .Uint("key_group", k.key_group)
             .Uint("bytes", k.bytes)
             .Uint("entries", k.entries)
             .Build();
  }
  return s + "]";
}

// --top-keys: the largest keys of each operator (all keyed states, STATE "*") and of each keyed
// state, and what could not be attributed.
void PrintLargestKeys(const ops::StatsReport& r, std::ostream& out) {
  TextTable keys({"OPERATOR", "STATE", "KEY", "KEY GROUP", "ENTRIES", "BYTES"},
                 {false, false, false, true, true, true});
  std::vector<std::string> notes;
  for (const auto& op : r.operators) {
    const std::string label = ops::OperatorLabel(op.name, op.uid, op.id_hex);
    auto add = [&](const std::string& state, const std::vector<ops::KeySize>& list) {
      for (const auto& k : list) {
        keys.AddRow({label, state, k.key_json, std::to_string(k.key_group),
                     std::to_string(k.entries), SizeText(k.bytes)});
      }
    };
    add("*", op.largest_keys);
    for (const auto& st : op.states) add(st.name, st.largest_keys);
    if (!op.largest_keys_unknown.empty()) {
      notes.push_back(label + ": not attributed to keys: " + op.largest_keys_unknown);
    }
  }
  if (keys.empty() && notes.empty()) return;
  out << "Largest keys (serialized key, namespace, map key and value bytes; * = all states)\n";
  if (!keys.empty()) keys.Print(out);
  for (const auto& n : notes) out << n << "\n";
  out << "\n";
}

// A share of `total` as a fraction with 4 digits ("0.2500"); "-" / null when total is 0.
std::string Share(uint64_t part, uint64_t total) {
  if (total == 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(part) / static_cast<double>(total));
  return buf;
}

std::string TtlJson(const ops::StateStats& st) {
  if (!st.ttl) return "null";
  const ops::TtlStats& t = st.ttl_stats;
  const std::string es = Share(t.expired_entries, t.entries);
  const std::string bs = Share(t.expired_bytes, t.bytes);
  return JsonLine()
      .Uint("entries", t.entries)
      .Uint("expired_entries", t.expired_entries)
      .Raw("expired_entries_share", es.empty() ? "null" : es)
      .Uint("bytes", t.bytes)
      .Uint("expired_bytes", t.expired_bytes)
      .Raw("expired_bytes_share", bs.empty() ? "null" : bs)
      .Raw("min_last_access", t.entries == 0 ? "null" : std::to_string(t.min_last_access))
      .Raw("max_last_access", t.entries == 0 ? "null" : std::to_string(t.max_last_access))
      .Build();
}

// --ttl-expired-at: per state whether it has a TTL and, if so, how much of it is expired.
void PrintTtl(const ops::StatsReport& r, const ops::StatsOptions& options, std::ostream& out) {
  TextTable t({"OPERATOR", "STATE", "TTL", "ENTRIES", "EXPIRED", "SHARE", "BYTES",
               "EXPIRED BYTES", "SHARE", "MIN LAST ACCESS", "MAX LAST ACCESS"},
              {false, false, false, true, true, true, true, true, true, true, true});
  std::vector<std::string> notes;
  for (const auto& op : r.operators) {
    const std::string label = ops::OperatorLabel(op.name, op.uid, op.id_hex);
    for (const auto& st : op.states) {
      if (!st.ttl) {
        t.AddRow({label, st.name, "no", "-", "-", "-", "-", "-", "-", "-", "-"});
        continue;
      }
      const ops::TtlStats& s = st.ttl_stats;
      const std::string es = Share(s.expired_entries, s.entries);
      const std::string bs = Share(s.expired_bytes, s.bytes);
      t.AddRow({label, st.name, "yes", std::to_string(s.entries), std::to_string(s.expired_entries),
                es.empty() ? "-" : es, SizeText(s.bytes), SizeText(s.expired_bytes),
                bs.empty() ? "-" : bs,
                s.entries == 0 ? "-" : IsoTime(s.min_last_access),
                s.entries == 0 ? "-" : IsoTime(s.max_last_access)});
    }
    if (!op.ttl_unknown.empty()) notes.push_back(label + ": TTL not read: " + op.ttl_unknown);
  }
  out << "TTL state expired at " << IsoTime(*options.ttl_expired_at_ms) << " with a TTL of "
      << ops::FormatDuration(options.ttl_ms)
      << " (entries: values, list elements, map entries; last access in UTC)\n";
  if (!t.empty()) t.Print(out);
  for (const auto& n : notes) out << n << "\n";
  out << "\n";
}

std::string GroupsJson(const std::vector<ops::KeyGroupStats>& groups) {
  std::string s = "[";
  for (const auto& g : groups) {
    if (s.size() > 1) s += ",";
    s += JsonLine().Uint("key_group", g.key_group).Uint("bytes", g.bytes).Uint("records", g.records).Build();
  }
  return s + "]";
}

void PrintText(const ops::StatsReport& r, const ops::StatsOptions& options, std::ostream& out) {
  TextTable ops_table({"OPERATOR", "P", "MAXP", "FILE BYTES", "KEYED BYTES", "KEY GROUPS",
                       "MEDIAN KG BYTES", "LARGEST KG", "SKEW"},
                      {false, true, true, true, true, true, true, false, true});
  for (const auto& op : r.operators) {
    const std::string largest =
        op.largest_key_groups.empty()
            ? "-"
            : std::to_string(op.largest_key_groups.front().key_group) + " (" +
                  SizeText(op.largest_key_groups.front().bytes) + ")";
    ops_table.AddRow({ops::OperatorLabel(op.name, op.uid, op.id_hex), std::to_string(op.parallelism),
                      std::to_string(op.max_parallelism), SizeText(op.file_bytes),
                      SizeText(op.keyed_logical_bytes), std::to_string(op.key_groups.size()),
                      SizeText(op.median_key_group_bytes), largest,
                      op.key_groups.empty() ? "-" : Ratio(op.skew)});
  }
  ops_table.Print(out);
  out << "total " << SizeText(r.total_file_bytes) << "\n";
  out << "_metadata " << SizeText(r.metadata_own_bytes)
      << " besides the operators' inline state\n\n";
  TextTable states({"OPERATOR", "STATE", "KIND", "ENTRIES", "BYTES", "FILE BYTES"},
                   {false, false, false, true, true, true});
  for (const auto& op : r.operators) {
    for (const auto& st : op.states) {
      states.AddRow({ops::OperatorLabel(op.name, op.uid, op.id_hex), st.name,
                     std::string(ops::StateKindName(st.kind)), std::to_string(st.entries),
                     st.bytes_known ? SizeText(st.bytes) : kUnknownText,
                     st.bytes_known ? SizeText(st.file_bytes) : kUnknownText});
    }
  }
  if (!states.empty()) {
    states.Print(out);
    out << "\n";
  }
  TextTable top({"OPERATOR", "KEY GROUP", "BYTES", "RECORDS"}, {false, true, true, true});
  for (const auto& op : r.operators) {
    for (const auto& g : op.largest_key_groups) {
      top.AddRow({ops::OperatorLabel(op.name, op.uid, op.id_hex), std::to_string(g.key_group),
                  SizeText(g.bytes), std::to_string(g.records)});
    }
  }
  if (!top.empty()) {
    out << "Largest key groups\n";
    top.Print(out);
    out << "\n";
  }
  if (options.top_keys > 0) PrintLargestKeys(r, out);
  if (options.ttl_expired_at_ms) PrintTtl(r, options, out);
  TextTable edges({"EDGE", "PARTITIONING", "INPUT BYTES", "INPUT BUFFERS", "OUTPUT BYTES",
                   "OUTPUT BUFFERS"},
                  {false, false, true, true, true, true});
  for (const auto& e : r.in_flight) {
    edges.AddRow({e.source + " -> " + e.target + (e.target_input > 0 ? " (input 1)" : ""),
                  std::string(ops::PartitioningName(e.partitioning)),
                  SizeText(e.input_bytes), std::to_string(e.input_buffers),
                  SizeText(e.output_bytes), std::to_string(e.output_buffers)});
  }
  if (!edges.empty()) {
    out << "In-flight data by edge (unaligned checkpoint)\n";
    edges.Print(out);
    out << "\n";
  }
  if (r.unattributed_in_flight_bytes > 0) {
    out << SizeText(r.unattributed_in_flight_bytes)
        << " of in-flight data are on channels no edge of the job graph explains\n\n";
  }
  RenderFindingsText(r.findings, out);
}

void PrintJson(const ops::StatsReport& r, const ops::StatsOptions& options, std::ostream& out) {
  const bool keys = options.top_keys > 0;
  for (const auto& op : r.operators) {
    std::string states = "[";
    for (const auto& st : op.states) {
      if (states.size() > 1) states += ",";
      JsonLine line;
      line.Str("name", st.name)
          .Str("kind", ops::StateKindName(st.kind))
          .Uint("entries", st.entries)
          .Raw("bytes", st.bytes_known ? std::to_string(st.bytes) : "null")
          .Raw("file_bytes", st.bytes_known ? std::to_string(st.file_bytes) : "null");
      if (keys) line.Raw("largest_keys", KeysJson(st.largest_keys));
      if (options.ttl_expired_at_ms) {
        line.Raw("ttl", st.ttl ? "true" : "false").Raw("ttl_expiry", TtlJson(st));
      }
      states += line.Build();
    }
    states += "]";
    JsonLine line;
    line
               .Str("operator_id", op.id_hex)
               .Str("operator", op.id_hex)
               .Raw("uid", UidJson(op.uid, op.uid_origin))
               .Str("uid_origin", ops::UidOriginName(op.uid_origin))
               .Str("name", op.name)
               .Uint("parallelism", op.parallelism)
               .Uint("max_parallelism", op.max_parallelism)
               .Uint("file_bytes", op.file_bytes)
               .Uint("keyed_logical_bytes", op.keyed_logical_bytes)
               .Raw("states", states)
               .Raw("key_groups", GroupsJson(op.key_groups))
               .Uint("median_key_group_bytes", op.median_key_group_bytes)
               .Raw("largest_key_groups", GroupsJson(op.largest_key_groups))
               .Raw("skew", Ratio(op.skew));
    if (keys) {
      line.Raw("largest_keys", KeysJson(op.largest_keys))
          .Raw("largest_keys_unknown",
               op.largest_keys_unknown.empty() ? "null" : JsonQuoted(op.largest_keys_unknown));
    }
    if (options.ttl_expired_at_ms) {
      line.Raw("ttl_expired_at", std::to_string(*options.ttl_expired_at_ms))
          .Raw("ttl_ms", std::to_string(options.ttl_ms))
          .Raw("ttl_unknown", op.ttl_unknown.empty() ? "null" : JsonQuoted(op.ttl_unknown));
    }
    out << line.Build() << "\n";
  }
  for (const auto& e : r.in_flight) {
    out << JsonLine()
               .Str("source_operator_id", e.source_id_hex)
               .Str("target_operator_id", e.target_id_hex)
               .Str("source", e.source)
               .Str("target", e.target)
               .Str("partitioning", ops::PartitioningName(e.partitioning))
               .Uint("target_input", e.target_input)
               .Uint("in_flight_input_bytes", e.input_bytes)
               .Uint("in_flight_input_buffers", e.input_buffers)
               .Uint("in_flight_output_bytes", e.output_bytes)
               .Uint("in_flight_output_buffers", e.output_buffers)
               .Build()
        << "\n";
  }
  if (r.unattributed_in_flight_bytes > 0) {
    out << JsonLine().Uint("unattributed_in_flight_bytes", r.unattributed_in_flight_bytes).Build()
        << "\n";
  }
  RenderFindingsJson(r.findings, out);
}

// --ttl-expired-at and --ttl into `options`; a usage error naming the option otherwise.
std::optional<std::string> ParseTtlOptions(const StatsArgs& args, ops::StatsOptions* options) {
  if (args.ttl_expired_at.empty()) {
    if (!args.ttl.empty()) return "--ttl is the TTL for --ttl-expired-at TIME, which is missing";
    return std::nullopt;
  }
  auto at = ops::ParseTimeMs(args.ttl_expired_at);
  if (!at.ok()) return "--ttl-expired-at: " + at.status().message();
  if (args.ttl.empty()) {
    return "--ttl-expired-at needs --ttl DURATION: Flink snapshots do not record the states' TTL";
  }
  auto ttl = ops::ParseDuration(args.ttl);
  if (!ttl.ok()) return "--ttl: " + ttl.status().message();
  if (*ttl <= 0) return "--ttl: duration '" + args.ttl + "' is not positive";
  options->ttl_expired_at_ms = *at;
  options->ttl_ms = *ttl;
  return std::nullopt;
}

CommandResult RunStats(const StatsArgs& in, CliContext& ctx) {
  auto format = ctx.format();
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  StatsArgs args = in;
  if (auto bad = ParseTtlOptions(in, &args.options)) return CommandResult::Usage(*bad);
  auto where = ctx.LocateSnapshot(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto uids = ReadUidsOption(ctx, args.uids_file);
  if (!uids.ok()) return CommandResult::Error(uids.status());
  auto snapshot = ops::LoadSnapshot(*where->fs, where->path, ops::LoadOptions{.uids = *uids});
  if (!snapshot.ok()) return CommandResult::Error(snapshot.status());
  auto report = ops::ComputeStats(*where->fs, *snapshot, args.options, ctx.MakeProgress());
  ctx.EndProgress();
  if (!report.ok()) return CommandResult::Error(report.status());
  switch (*format) {
    case OutputFormat::kText: PrintText(*report, args.options, ctx.out()); break;
    case OutputFormat::kJson: PrintJson(*report, args.options, ctx.out()); break;
    case OutputFormat::kJunit:
      RenderFindingsJunit(report->findings, {"CKPT-S001", "CKPT-S002"}, "ckpt-tool stats",
                          ctx.out());
      break;
    case OutputFormat::kGithubActions: RenderFindingsGithub(report->findings, ctx.out()); break;
  }
  const bool fail = ops::HasErrors(report->findings) || (args.strict && !report->findings.empty());
  return fail ? CommandResult::Findings() : CommandResult::Clean();
}

}  // namespace

void AddStatsCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<StatsArgs>();
  CLI::App* sub = app.add_subcommand(
      "stats", "Sizes by operator, state and key group; key-group skew; oversized union state");
  sub->add_option("snapshot", args->path, "Snapshot directory or its _metadata file")->required();
  sub->add_option("--top", args->options.top_key_groups, "Largest key groups to list per operator")
      ->capture_default_str();
  sub->add_option("--skew-factor", args->options.skew_factor,
                  "Warn when the largest key group exceeds this multiple of the median")
      ->capture_default_str();
  sub->add_option("--union-factor", args->options.union_factor,
                  "Warn when union-state entries per subtask exceed this multiple of parallelism")
      ->capture_default_str();
  sub->add_option("--top-keys", args->options.top_keys,
                  "List the N largest keys (by serialized bytes) per keyed state and per operator")
      ->capture_default_str();
  sub->add_option("--ttl-expired-at", args->ttl_expired_at,
                  "Report how much of each TTL state is expired at TIME (ISO-8601 UTC or epoch "
                  "ms); needs --ttl");
  sub->add_option("--ttl", args->ttl,
                  "The states' TTL for --ttl-expired-at (e.g. 30m, 1h, 86400000ms)");
  sub->add_flag("--strict", args->strict, "Exit 1 when there are warnings");
  AddUidsOption(sub, &args->uids_file);
  SetExamples(sub, {"ckpt-tool stats /var/savepoints/savepoint-3f2a1b-0c9d8e7f6a5b",
                    "ckpt-tool stats chk-42 --top 10 --format json | jq .largest_key_groups",
                    "ckpt-tool stats savepoint-3f2a1b-0c9d8e7f6a5b --top-keys 20",
                    "ckpt-tool stats savepoint-3f2a1b-0c9d8e7f6a5b --ttl-expired-at "
                    "2026-12-08T01:00:00Z --ttl 1h"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunStats(*args, ctx); }; });
}

}  // namespace ckpt::cli
