// ckpt-tool diff A B [--keys]: operators, state sizes and files that differ between two
// snapshots, and how far each source's reading advanced (docs/positions.md); with --keys,
// keyed entries by a streaming merge. Exit 1 when they differ.
#include <CLI/CLI.hpp>
#include <memory>

#include "ckpt/base/text_escape.h"
#include "ckpt/ops/diff.h"
#include "ckpt/ops/open.h"
#include "ckpt/ops/operator_label.h"
#include "cli_common.h"
#include "render.h"
#include "render_positions.h"

namespace ckpt::cli {
namespace {

struct DiffArgs {
  std::string a;
  std::string b;
  bool keys = false;
  bool no_state_sizes = false;
  std::string uids_file;
};

std::string Delta(uint64_t a, uint64_t b) {
  if (a == b) return "0";
  return b > a ? "+" + SizeText(b - a) : "-" + SizeText(a - b);
}

// The operator of a diff row as OperatorLabel names it, by its newer side when it has one.
std::string DiffOperatorLabel(const ops::OperatorDiff& d) {
  return ops::OperatorLabel(d.name, d.uid_b.empty() ? d.uid_a : d.uid_b,
                            d.id_b.empty() ? d.id_a : d.id_b);
}

std::string Both(const std::string& a, const std::string& b) {
  if (a == b) return OrDash(a);
  return OrDash(a) + " -> " + OrDash(b);
}

std::string Both(uint32_t a, uint32_t b) {
  if (a == b) return std::to_string(a);
  return (a ? std::to_string(a) : "-") + " -> " + (b ? std::to_string(b) : "-");
}

void PrintText(const ops::DiffResult& r, std::ostream& out) {
  out << "diff " << base::EscapeForText(r.a) << " (checkpoint " << r.checkpoint_id_a << ") -> " << base::EscapeForText(r.b)
      << " (checkpoint " << r.checkpoint_id_b << ")\n\noperators\n";
  TextTable ops_table({"CHANGE", "OPERATOR", "ID", "UID", "PARALLELISM", "MAX PARALLELISM",
                       "BYTES A", "BYTES B", "DELTA", "DETAILS"},
                      {false, false, false, false, false, false, true, true, true, false});
  for (const auto& d : r.operators) {
    ops_table.AddRow(
        {std::string(ops::DiffChangeName(d.change)), DiffOperatorLabel(d), Both(d.id_a, d.id_b),
         Both(d.uid_a, d.uid_b), Both(d.parallelism_a, d.parallelism_b),
         Both(d.max_parallelism_a, d.max_parallelism_b), SizeText(d.bytes_a),
         SizeText(d.bytes_b), Delta(d.bytes_a, d.bytes_b), OrDash(Join(d.changes, "; "))});
  }
  ops_table.Print(out);
  out << "\nstates\n";
  TextTable states({"CHANGE", "OPERATOR", "STATE", "KIND", "ENTRIES A", "ENTRIES B", "BYTES A",
                    "BYTES B", "DELTA"},
                   {false, false, false, false, true, true, true, true, true});
  for (const auto& d : r.operators) {
    for (const auto& s : d.states) {
      const bool known = s.bytes_known_a && s.bytes_known_b;
      states.AddRow({std::string(ops::DiffChangeName(s.change)), DiffOperatorLabel(d), s.name,
                     Both(s.kind_a, s.kind_b), std::to_string(s.entries_a),
                     std::to_string(s.entries_b),
                     s.bytes_known_a ? SizeText(s.bytes_a) : kUnknownText,
                     s.bytes_known_b ? SizeText(s.bytes_b) : kUnknownText,
                     known ? Delta(s.bytes_a, s.bytes_b) : kUnknownText});
    }
  }
  if (states.empty()) {
    out << "(no declared states)\n";
  } else {
    states.Print(out);
  }
  out << "\nfiles: " << r.files_shared << " shared, " << r.files_added << " added, "
      << r.files_removed << " removed, " << r.files_changed << " changed; " << SizeText(r.bytes_a)
      << " -> " << SizeText(r.bytes_b) << " (" << Delta(r.bytes_a, r.bytes_b) << ")\n";
  TextTable files({"CHANGE", "PATH", "SCOPE", "SIZE A", "SIZE B"}, {false, false, false, true, true});
  for (const auto& f : r.files) {
    if (f.change == ops::DiffChange::kSame) continue;
    files.AddRow({std::string(ops::DiffChangeName(f.change)), f.path, f.scope,
                  SizeText(f.size_a), SizeText(f.size_b)});
  }
  if (!files.empty()) files.Print(out);
  if (!r.positions.empty()) out << "\n";
  RenderAdvancesText(r.positions, out);
  if (!r.position_findings.empty()) {
    out << "\n";
    RenderFindingsText(r.position_findings, out);
  }
}

void PrintJson(const ops::DiffResult& r, std::ostream& out) {
  for (const auto& d : r.operators) {
    std::string changes = "[";
    for (const auto& c : d.changes) {
      if (changes.size() > 1) changes += ",";
      changes += JsonQuoted(c);
    }
    changes += "]";
    const std::string& operator_id = d.id_b.empty() ? d.id_a : d.id_b;
    out << JsonLine()
               .Str("operator_id", operator_id)
               .Str("operator", DiffOperatorLabel(d))
               .Str("change", ops::DiffChangeName(d.change))
               .Str("matched_by", d.matched_by)
               .Str("id_a", d.id_a)
               .Str("id_b", d.id_b)
               .Str("uid_a", d.uid_a)
               .Str("uid_b", d.uid_b)
               .Uint("parallelism_a", d.parallelism_a)
               .Uint("parallelism_b", d.parallelism_b)
               .Uint("max_parallelism_a", d.max_parallelism_a)
               .Uint("max_parallelism_b", d.max_parallelism_b)
               .Uint("bytes_a", d.bytes_a)
               .Uint("bytes_b", d.bytes_b)
               .Raw("changes", changes)
               .Build()
        << "\n";
    for (const auto& s : d.states) {
      out << JsonLine()
                 .Str("operator_id", operator_id)
                 .Str("operator", DiffOperatorLabel(d))
                 .Str("state", s.name)
                 .Str("change", ops::DiffChangeName(s.change))
                 .Str("kind_a", s.kind_a)
                 .Str("kind_b", s.kind_b)
                 .Uint("entries_a", s.entries_a)
                 .Uint("entries_b", s.entries_b)
                 .Raw("bytes_a", s.bytes_known_a ? std::to_string(s.bytes_a) : "null")
                 .Raw("bytes_b", s.bytes_known_b ? std::to_string(s.bytes_b) : "null")
                 .Build()
          << "\n";
    }
  }
  for (const auto& f : r.files) {
    out << JsonLine()
               .Str("file", f.path)
               .Str("change", f.change == ops::DiffChange::kSame ? "shared"
                                                                 : ops::DiffChangeName(f.change))
               .Str("scope", f.scope)
               .Uint("size_a", f.size_a)
               .Uint("size_b", f.size_b)
               .Build()
        << "\n";
  }
  for (const auto& p : r.positions) out << AdvanceJson(p) << "\n";
  RenderFindingsJson(r.position_findings, out);
}

void PrintKey(const ops::KeyDiff& k, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    JsonLine line;
    line.Str("key_change", ops::DiffChangeName(k.change))
        .Str("operator", k.operator_name)
        .Str("operator_id", k.operator_id)
        .Str("state", k.state)
        .Uint("key_group", k.key_group)
        .Raw("key", k.key_json)
        .Raw("namespace", k.namespace_json);
    if (!k.user_key_json.empty()) line.Raw("user_key", k.user_key_json);
    if (!k.timestamp_json.empty()) line.Raw("timestamp", k.timestamp_json);
    if (!k.value_a_json.empty()) line.Raw("value_a", k.value_a_json);
    if (!k.value_b_json.empty()) line.Raw("value_b", k.value_b_json);
    out << line.Build() << "\n";
    return;
  }
  out << ops::DiffChangeName(k.change) << "  " << base::EscapeForText(k.operator_name + "/" + k.state) << "  kg "
      << k.key_group << "  key " << k.key_json;
  if (k.namespace_json != "null") out << "  ns " << k.namespace_json;
  if (!k.user_key_json.empty()) out << "  user key " << k.user_key_json;
  if (!k.timestamp_json.empty()) out << "  timestamp " << k.timestamp_json;
  out << ": ";
  if (k.change == ops::DiffChange::kAdded) {
    out << k.value_b_json;
  } else if (k.change == ops::DiffChange::kRemoved) {
    out << k.value_a_json;
  } else {
    out << k.value_a_json << " -> " << k.value_b_json;
  }
  out << "\n";
}

CommandResult Run(const DiffArgs& args, CliContext& ctx) {
  auto format = ctx.FormatAmong({OutputFormat::kText, OutputFormat::kJson}, "diff");
  if (!format.ok()) return CommandResult::Usage(format.status().message());
  ops::DiffOptions options;
  options.per_state = !args.no_state_sizes;
  auto uids = ReadUidsOption(ctx, args.uids_file);
  if (!uids.ok()) return CommandResult::Error(uids.status());
  options.uids = std::move(uids).value();
  auto where = ctx.LocateAll({args.a, args.b});
  if (!where.ok()) return CommandResult::Error(where.status());
  for (const std::string& side : where->paths) {
    if (base::Status st = ops::CheckSnapshotTarget(*where->fs, side); !st.ok()) {
      return CommandResult::Error(st);
    }
  }
  options.progress = ctx.MakeProgress();
  auto result = ops::Diff(*where->fs, where->paths[0], where->paths[1], options);
  ctx.EndProgress();
  if (!result.ok()) return CommandResult::Error(result.status());
  std::ostream& out = ctx.out();
  if (*format == OutputFormat::kJson) {
    PrintJson(*result, out);
  } else {
    PrintText(*result, out);
  }
  bool different = result->different;
  // "No differences" covers values only when every keyed state was compared entry by entry.
  bool values_compared = false;
  if (args.keys) {
    if (*format == OutputFormat::kText) out << "\nkeys\n";
    auto keys = ops::DiffKeys(
        *where->fs, where->paths[0], where->paths[1],
        [&](const ops::KeyDiff& k) { PrintKey(k, *format, out); }, ctx.MakeProgress());
    ctx.EndProgress();
    if (!keys.ok()) return CommandResult::Error(keys.status());
    different |= keys->added + keys->removed + keys->changed > 0;
    values_compared = true;
    for (const auto& c : keys->states) values_compared &= c.compared;
    auto verdict = [](const ops::StateComparison& c) -> std::string {
      if (!c.compared) return "not-compared";
      return c.added + c.removed + c.changed > 0 ? "changed" : "same";
    };
    if (*format == OutputFormat::kJson) {
      for (const auto& n : keys->notes) out << JsonLine().Str("note", n).Build() << "\n";
      for (const auto& c : keys->states) {
        out << JsonLine()
                   .Str("operator", c.operator_name)
                   .Str("state", c.state)
                   .Str("values", verdict(c))
                   .Bool("compared", c.compared)
                   .Uint("keys_added", c.added)
                   .Uint("keys_removed", c.removed)
                   .Uint("keys_changed", c.changed)
                   .Uint("keys_same", c.same)
                   .Build()
            << "\n";
      }
      out << JsonLine()
                 .Bool("keys_compared", keys->any_compared())
                 .Uint("keys_added", keys->added)
                 .Uint("keys_removed", keys->removed)
                 .Uint("keys_changed", keys->changed)
                 .Uint("keys_same", keys->same)
                 .Build()
          << "\n";
    } else {
      for (const auto& n : keys->notes) out << "note: " << base::EscapeForText(n) << "\n";
      for (const auto& c : keys->states) {
        out << "values " << base::EscapeForText(c.operator_name + "/" + c.state) << ": ";
        if (!c.compared) {
          out << "not compared\n";
          continue;
        }
        out << verdict(c) << " (" << c.added << " added, " << c.removed << " removed, "
            << c.changed << " changed, " << c.same << " same)\n";
      }
      if (keys->any_compared()) {
        out << "keys: " << keys->added << " added, " << keys->removed << " removed, "
            << keys->changed << " changed, " << keys->same << " same\n";
      } else {
        out << "keys: not compared\n";
      }
    }
  }
  if (*format == OutputFormat::kJson) {
    out << JsonLine()
               .Str("a", result->a)
               .Str("b", result->b)
               .Bool("different", different)
               .Bool("values_compared", values_compared)
               .Build()
        << "\n";
  } else if (different) {
    out << "\nthe snapshots differ\n";
  } else if (values_compared) {
    out << "\nno differences in state\n";
  } else {
    out << "\nno differences in metadata, files or sizes (values not compared: use --keys)\n";
  }
  return different ? CommandResult::Findings() : CommandResult::Clean();
}

}  // namespace

void AddDiffCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* sub = app.add_subcommand(
      "diff",
      "Compare two snapshots: operators added/removed/changed (ID, uid, parallelism, max "
      "parallelism), size deltas per operator and state, files added/removed/shared; --keys adds "
      "keyed entries (streaming merge per key group). Exit 1 when they differ");
  sub->add_option("a", args->a, "First (older) snapshot")->required();
  sub->add_option("b", args->b, "Second (newer) snapshot")->required();
  sub->add_flag("--keys", args->keys, "Also compare keyed state entry by entry");
  sub->add_flag("--no-state-sizes", args->no_state_sizes,
                "Skip the record scan that sizes each state (metadata only)");
  AddUidsOption(sub, &args->uids_file);
  SetExamples(sub, {"ckpt-tool diff /ckpt/<job>/chk-41 /ckpt/<job>/chk-42",
                    "ckpt-tool diff sp-before sp-after --keys --format json",
                    "ckpt-tool diff sp-v1 sp-v1-remapped --no-state-sizes"});
  sub->callback([args, &ctx] { ctx.run = [args, &ctx] { return Run(*args, ctx); }; });
}

}  // namespace ckpt::cli
