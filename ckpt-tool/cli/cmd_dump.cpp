// ckpt-tool dump SNAPSHOT [--operator UID|HASH|NAME [--state NAME] [--key K] [--key-group G]]
// [--history]: everything the snapshot holds as text lines or JSON lines, streamed. A filter
// that matches nothing prints "no entries match" on stderr and exits 1.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli_common.h"
#include "ckpt/base/text_escape.h"
#include "ckpt/ops/dump.h"
#include "render.h"

namespace ckpt::cli {
namespace {

struct DumpArgs {
  std::string path;
  ops::DumpOptions options;
  int64_t key_group = -1;
};

std::string EntryJson(const ops::DumpEntry& e) {
  JsonLine line;
  line.Str("operator_id", e.operator_id).Str("operator", e.operator_name);
  if (e.source != "state") line.Str("source", e.source);
  if (!e.state.empty()) line.Str("state", e.state).Str("kind", ops::StateKindName(e.kind));
  if (e.subtask) line.Uint("subtask", *e.subtask);
  if (e.key_group) line.Uint("key_group", *e.key_group);
  if (!e.channel.empty()) line.Str("channel", e.channel);
  if (e.buffer) line.Uint("buffer", *e.buffer);
  if (!e.key_json.empty()) line.Raw("key", e.key_json);
  if (!e.namespace_json.empty()) line.Raw("namespace", e.namespace_json);
  if (!e.user_key_json.empty()) line.Raw("user_key", e.user_key_json);
  if (!e.timestamp_json.empty()) line.Raw("timestamp", e.timestamp_json);
  if (e.kind != ops::StateKind::kTimers) line.Raw("value", e.value_json);
  if (!e.value_type.empty()) line.Str("value_type", e.value_type);
  if (e.source == "changelog") line.Str("op", e.change_op).Uint("sequence", e.sequence);
  return line.Build();
}

// Names from disk are escaped (base::EscapeForText); keys and values are JSON, escaped already.
std::string EntryText(const ops::DumpEntry& e) {
  std::string s;
  if (e.source == "committable" || e.source == "coordinator" || e.source == "channel" ||
      e.source == "channel-record" || e.source == "channel-watermark") {
    s = base::EscapeForText(e.operator_name) + " " + e.source;
  } else {
    s = base::EscapeForText(e.state);
  }
  if (e.subtask) s += " subtask=" + std::to_string(*e.subtask);
  if (e.key_group) s += " key-group=" + std::to_string(*e.key_group);
  if (!e.channel.empty()) s += " channel=" + base::EscapeForText(e.channel) + " buffer=" + std::to_string(*e.buffer);
  if (e.source == "changelog") s += " changelog#" + std::to_string(e.sequence) + " " + base::EscapeForText(e.change_op);
  if (!e.key_json.empty()) s += " key=" + e.key_json;
  if (!e.namespace_json.empty() && e.namespace_json != "null") s += " ns=" + e.namespace_json;
  if (!e.user_key_json.empty()) s += " user-key=" + e.user_key_json;
  if (!e.timestamp_json.empty()) s += " timestamp=" + e.timestamp_json;
  if (!e.value_type.empty()) s += " type=" + base::EscapeForText(e.value_type);
  if (e.kind != ops::StateKind::kTimers) s += " value=" + e.value_json;
  return s;
}

CommandResult RunDump(DumpArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "dump");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  if (args.key_group >= 0) args.options.key_group = static_cast<uint32_t>(args.key_group);
  auto where = ctx.LocateSnapshot(args.path);
  if (!where.ok()) return CommandResult::Error(where.status());
  auto snapshot = ops::LoadSnapshot(*where->fs, where->path);
  if (!snapshot.ok()) return CommandResult::Error(snapshot.status());
  std::ostream& out = ctx.out();
  const bool json = *format == OutputFormat::kJson;
  auto sink = [&out, json](const ops::DumpEntry& e) -> base::Status {
    out << (json ? EntryJson(e) : EntryText(e)) << '\n';
    if (!out) return base::Status::IOError("writing the dump failed");
    return base::Status::OK();
  };
  // Entries stream to the report as they are read: on the terminal the progress line would cut
  // into them, so it shows only while dumping to a file or a pipe.
  base::Progress progress = ctx.MakeProgress();
  if (ctx.ReportOnTerminal()) progress.on_progress = nullptr;
  auto n = ops::Dump(*where->fs, *snapshot, args.options, sink, progress);
  ctx.EndProgress();
  if (!n.ok()) return CommandResult::Error(n.status());
  if (*n == 0 && args.options.filtered()) {
    // A filter that matches nothing is an answer the user must not miss (an empty key group,
    // a key of the wrong type or value): say so and exit 1.
    std::cerr << "ckpt-tool: no entries match (operator " << base::EscapeForText(args.options.operator_ref)
              << base::EscapeForText(args.options.state.empty() ? "" : ", state " + args.options.state)
              << base::EscapeForText(args.options.key_json.empty() ? "" : ", key " + args.options.key_json)
              << (args.options.key_group ? ", key group " + std::to_string(*args.options.key_group)
                                         : "")
              << ")\n";
    return CommandResult::Findings();
  }
  return CommandResult::Clean();
}

}  // namespace

void AddDumpCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<DumpArgs>();
  CLI::App* sub = app.add_subcommand(
      "dump", "Print everything a snapshot holds (keyed and operator state, timers, sink "
              "committables, coordinator and channel state), decoded through its type descriptors; "
              "exit 1 when a filter matches nothing");
  sub->add_option("snapshot", args->path, "Snapshot directory or its _metadata file")->required();
  sub->add_option("--operator", args->options.operator_ref,
                  "Operator uid, uid hash (ID) or name. Default: every operator");
  sub->add_option("--state", args->options.state, "Only this state (by name)");
  sub->add_option("--key", args->options.key_json,
                  "Only this key, as JSON of the key type (42, \"user-1\", [1,\"a\"]); bare text "
                  "for string keys. Reads only the key's key group");
  sub->add_option("--key-group", args->key_group, "Only this key group")->check(CLI::NonNegativeNumber);
  sub->add_flag("--history", args->options.history,
                "Changelog state as its raw log (materialized entries, then each change) instead "
                "of the replayed values");
  SetExamples(sub, {"ckpt-tool dump sp --operator per-user-aggregate",
                    "ckpt-tool dump sp --operator per-user-aggregate --state order-count --key user-07",
                    "ckpt-tool dump sp --operator a2469328b540934507249cbf9b294c51 --key-group 12 --format json"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return RunDump(*args, ctx); }; });
}

}  // namespace ckpt::cli
