#include "render_positions.h"

#include "cli_common.h"
#include "render.h"

namespace ckpt::cli {
namespace {

bool IsKafka(const ops::SourcePosition& p) { return !p.topic.empty(); }

std::string OptJson(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("null");
}
std::string StrJson(const std::string& s) { return s.empty() ? "null" : JsonQuoted(s); }

// Where the split reads: "topic/partition", "path" or "path [offset+length]", else the split ID.
std::string WhereText(const ops::SourcePosition& p) {
  if (IsKafka(p)) return p.topic + "/" + std::to_string(p.partition);
  if (!p.path.empty()) {
    if (!p.split_offset) return p.path;
    return p.path + " [" + std::to_string(*p.split_offset) +
           (p.split_length ? "+" + std::to_string(*p.split_length) : "") + "]";
  }
  return "-";
}

std::string ResumeText(const ops::SourcePosition& p, ops::ConnectorKind connector) {
  if (p.next_offset) return OffsetText(p.next_offset, true, false);
  if (p.next_value) return "value " + std::to_string(*p.next_value);
  if (p.resume_offset && *p.resume_offset < 0 && connector == ops::ConnectorKind::kFileSource) {
    // Flink's NO_OFFSET: the reader reopens the split at its start and skips records.
    std::string s = "start of split";
    if (p.records_to_skip && *p.records_to_skip > 0) {
      s += " skip " + std::to_string(*p.records_to_skip);
    }
    return s;
  }
  if (p.resume_offset) {
    std::string s = OffsetText(p.resume_offset, false,
                               connector == ops::ConnectorKind::kEngineFileSource);
    if (p.records_to_skip && *p.records_to_skip > 0) {
      s += " skip " + std::to_string(*p.records_to_skip);
    }
    return s;
  }
  return "-";
}

std::string StoppingText(const ops::SourcePosition& p) {
  if (p.end_value) return "value " + std::to_string(*p.end_value) + " (excl.)";
  if (p.stopping_offset) return std::to_string(*p.stopping_offset);
  if (IsKafka(p)) return "none";
  if (p.split_offset && p.split_length) return std::to_string(*p.split_offset + *p.split_length);
  return "-";
}

std::string WhoText(const ops::SourcePosition& p) {
  if (p.origin == ops::PositionOrigin::kReader && p.subtask >= 0) {
    return std::to_string(p.subtask);
  }
  return std::string(ops::PositionOriginName(p.origin));
}

std::string ActionText(const ops::SinkTransaction& t) {
  switch (t.action) {
    case ops::SinkAction::kCommit: return "commit";
    case ops::SinkAction::kAbort: return "abort";
    case ops::SinkAction::kResume: return "resume";
  }
  return "unknown";
}

void SinkText(const ops::SinkPositions& sink, std::ostream& out) {
  if (!sink.transactional_id_prefix.empty()) {
    out << "  transactional id prefix: " << sink.transactional_id_prefix << "\n";
  }
  if (!sink.bucket_ids.empty()) {
    std::vector<std::string> ids;
    for (const auto& id : sink.bucket_ids) ids.push_back(id.empty() ? "\"\" (the base path)" : id);
    out << "  buckets: " << Join(ids, ", ") << "\n";
  }
  if (sink.transactions.empty()) {
    out << "  nothing pending: a restore commits and aborts nothing\n";
    return;
  }
  TextTable t({"SUBTASK", "CHECKPOINT", "TRANSACTION / PENDING FILE", "FINAL FILE", "SIZE",
               "ON RESTORE"},
              {true, true, false, false, true, false});
  for (const ops::SinkTransaction& x : sink.transactions) {
    std::string what = !x.transactional_id.empty() ? x.transactional_id : x.pending_path;
    if (x.producer_id >= 0) {
      what += " (producer " + std::to_string(x.producer_id) + " epoch " +
              std::to_string(x.epoch) + ")";
    }
    t.AddRow({x.subtask >= 0 ? std::to_string(x.subtask) : "-",
              x.checkpoint_id != 0 ? std::to_string(x.checkpoint_id) : "-",
              OrDash(what), OrDash(x.final_path),
              x.size_bytes ? SizeText(*x.size_bytes) : "-", ActionText(x)});
  }
  t.Print(out);
}

std::string SplitJson(const ops::SourcePosition& p) {
  return JsonLine()
      .Str("origin", ops::PositionOriginName(p.origin))
      .Raw("subtask", p.subtask >= 0 ? std::to_string(p.subtask) : "null")
      .Raw("split_id", StrJson(p.split_id))
      .Raw("topic", StrJson(p.topic))
      .Raw("partition", p.partition >= 0 ? std::to_string(p.partition) : "null")
      .Raw("next_offset", OptJson(p.next_offset))
      .Raw("stopping_offset", OptJson(p.stopping_offset))
      .Raw("path", StrJson(p.path))
      .Raw("split_offset", OptJson(p.split_offset))
      .Raw("split_length", OptJson(p.split_length))
      .Raw("resume_offset", OptJson(p.resume_offset))
      .Raw("records_to_skip", OptJson(p.records_to_skip))
      .Raw("next_value", OptJson(p.next_value))
      .Raw("end_value", OptJson(p.end_value))
      .Build();
}

std::string TransactionJson(const ops::SinkTransaction& t) {
  return JsonLine()
      .Raw("subtask", t.subtask >= 0 ? std::to_string(t.subtask) : "null")
      .Str("action", ops::SinkActionName(t.action))
      .Raw("checkpoint_id", t.checkpoint_id != 0 ? std::to_string(t.checkpoint_id) : "null")
      .Raw("transactional_id", StrJson(t.transactional_id))
      .Raw("producer_id", t.producer_id >= 0 ? std::to_string(t.producer_id) : "null")
      .Raw("epoch", t.epoch >= 0 ? std::to_string(t.epoch) : "null")
      .Raw("pending_path", StrJson(t.pending_path))
      .Raw("final_path", StrJson(t.final_path))
      .Raw("size_bytes", t.size_bytes ? std::to_string(*t.size_bytes) : "null")
      .Build();
}

template <typename T, typename F>
std::string ArrayJson(const std::vector<T>& items, F&& one) {
  std::string out = "[";
  for (const T& item : items) {
    if (out.size() > 1) out += ",";
    out += one(item);
  }
  return out + "]";
}

// The splits of one operator. The engine's sequence source has values, not offsets; a split ID
// that only repeats the path (the engine's file source) is not shown twice.
void SplitsText(const std::vector<ops::SourcePosition>& splits, ops::ConnectorKind connector,
                std::ostream& out) {
  bool values = true, kafka = true, files = true, ids = false;
  for (const ops::SourcePosition& p : splits) {
    values &= p.next_value.has_value();
    kafka &= IsKafka(p);
    files &= !p.path.empty();
    ids |= !p.split_id.empty() && p.split_id != p.path;
  }
  if (values) {
    TextTable t({"SPLIT", "SUBTASK", "NEXT VALUE", "END (EXCLUSIVE)"}, {false, false, true, true});
    for (const ops::SourcePosition& p : splits) {
      t.AddRow({OrDash(p.split_id), WhoText(p), std::to_string(*p.next_value),
                p.end_value ? std::to_string(*p.end_value) : "-"});
    }
    t.Print(out);
    return;
  }
  std::vector<std::string> header;
  if (ids) header.push_back("SPLIT");
  header.insert(header.end(), {"SUBTASK", kafka ? "TOPIC/PARTITION" : files ? "PATH" : "WHERE",
                               "RESUME AT", "STOP AT"});
  std::vector<bool> right(header.size(), false);
  right[right.size() - 1] = right[right.size() - 2] = true;
  TextTable t(header, right);
  for (const ops::SourcePosition& p : splits) {
    std::vector<std::string> row;
    if (ids) row.push_back(OrDash(p.split_id));
    row.insert(row.end(), {WhoText(p), WhereText(p), ResumeText(p, connector), StoppingText(p)});
    t.AddRow(std::move(row));
  }
  t.Print(out);
}

}  // namespace

std::string OffsetText(const std::optional<int64_t>& offset, bool kafka, bool engine_file) {
  if (!offset) return "-";
  if (kafka) {
    switch (*offset) {
      case ops::kKafkaEarliestOffset: return "earliest";
      case ops::kKafkaLatestOffset: return "latest";
      case ops::kKafkaCommittedOffset: return "committed";
      default: break;
    }
  } else if (engine_file && *offset == -1) {
    return "done";
  }
  return std::to_string(*offset);
}

void RenderPositionsText(const ops::PositionsReport& report, std::ostream& out) {
  if (report.operators.empty()) out << "no connector state in this snapshot\n";
  bool first = true;
  for (const ops::OperatorPositions& op : report.operators) {
    if (!first) out << "\n";
    first = false;
    out << "operator " << op.name;
    if (op.name != op.id_hex) out << " (" << op.id_hex << ")";
    out << ": " << ops::ConnectorKindName(op.connector) << "\n";
    if (!op.splits.empty()) {
      SplitsText(op.splits, op.connector, out);
    } else if (!op.sink) {
      out << "  no splits recorded\n";
    }
    if (!op.processed_paths.empty()) {
      out << "  processed paths: " << Join(op.processed_paths, ", ") << "\n";
    }
    if (op.sink) SinkText(*op.sink, out);
  }
  if (!report.findings.empty()) {
    out << "\n";
    RenderFindingsText(report.findings, out);
  }
}

void RenderPositionsJson(const ops::PositionsReport& report, std::ostream& out) {
  std::string ops_json = ArrayJson(report.operators, [](const ops::OperatorPositions& op) {
    JsonLine line;
    line.Str("operator_id", op.id_hex)
        .Str("operator", op.name)
        .Raw("uid", StrJson(op.uid))
        .Raw("name", StrJson(op.name))
        .Str("connector", ops::ConnectorKindName(op.connector))
        .Raw("splits", ArrayJson(op.splits, SplitJson))
        .Raw("processed_paths", ArrayJson(op.processed_paths, JsonQuoted));
    if (op.sink) {
      line.Raw("sink", JsonLine()
                           .Raw("transactional_id_prefix", StrJson(op.sink->transactional_id_prefix))
                           .Raw("bucket_ids", ArrayJson(op.sink->bucket_ids, JsonQuoted))
                           .Raw("transactions", ArrayJson(op.sink->transactions, TransactionJson))
                           .Build());
    } else {
      line.Null("sink");
    }
    return line.Build();
  });
  out << JsonLine()
             .Raw("operators", ops_json)
             .Raw("findings", ArrayJson(report.findings, FindingJson))
             .Build()
      << "\n";
}

void RenderAdvancesText(const std::vector<ops::PositionAdvance>& advances, std::ostream& out) {
  if (advances.empty()) return;
  out << "positions (where a restore resumes reading):\n";
  TextTable t({"OPERATOR", "SPLIT", "FROM", "TO", "ADVANCED"}, {false, false, true, true, true});
  for (const ops::PositionAdvance& a : advances) {
    std::string advanced;
    if (!a.from) {
      advanced = "new";
    } else if (!a.to) {
      advanced = "gone";
    } else if (a.IsDone(*a.from) || a.IsDone(*a.to)) {
      advanced = a.IsDone(*a.to) ? (a.IsDone(*a.from) ? "0" : "done") : "reopened";
    } else if (auto d = a.delta()) {
      advanced = (*d > 0 ? "+" : "") + std::to_string(*d);
    } else {
      advanced = "-";
    }
    const bool engine_file = a.connector == ops::ConnectorKind::kEngineFileSource;
    t.AddRow({a.operator_name, a.key, a.from ? OffsetText(a.from, a.kafka, engine_file) : "-",
              a.to ? OffsetText(a.to, a.kafka, engine_file) : "-", advanced});
  }
  t.Print(out);
}

std::string AdvanceJson(const ops::PositionAdvance& a) {
  std::optional<int64_t> delta = a.delta();
  return JsonLine()
      .Str("type", "position")
      .Str("operator_id", a.operator_id_hex)
      .Str("operator", a.operator_name)
      .Str("split", a.key)
      .Raw("from", OptJson(a.from))
      .Raw("to", OptJson(a.to))
      .Raw("advanced", OptJson(delta))
      .Build();
}

}  // namespace ckpt::cli
