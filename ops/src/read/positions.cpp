// ops::ComputePositions: the format of the snapshot decodes its connectors' state
// (SnapshotFormat::Positions); this file names the enums and pairs two reports for diff.
#include "ckpt/ops/positions.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "formats/snapshot_format.h"

namespace ckpt::ops {

std::string_view ConnectorKindName(ConnectorKind k) {
  switch (k) {
    case ConnectorKind::kKafkaSource: return "kafka-source";
    case ConnectorKind::kFlinkKafkaConsumer: return "flink-kafka-consumer";
    case ConnectorKind::kKafkaSink: return "kafka-sink";
    case ConnectorKind::kFlinkKafkaProducer: return "flink-kafka-producer";
    case ConnectorKind::kFileSource: return "file-source";
    case ConnectorKind::kFileSink: return "file-sink";
    case ConnectorKind::kEngineSequence: return "engine-sequence-source";
    case ConnectorKind::kEngineFileSource: return "engine-file-source";
    case ConnectorKind::kEngineFileSink: return "engine-file-sink";
  }
  return "unknown";
}

std::string_view PositionOriginName(PositionOrigin o) {
  switch (o) {
    case PositionOrigin::kReader: return "reader";
    case PositionOrigin::kEnumeratorAssigned: return "enumerator-assigned";
    case PositionOrigin::kEnumeratorPending: return "enumerator-pending";
    case PositionOrigin::kUnion: return "union";
  }
  return "unknown";
}

std::string_view SinkActionName(SinkAction a) {
  switch (a) {
    case SinkAction::kCommit: return "commit";
    case SinkAction::kAbort: return "abort";
    case SinkAction::kResume: return "resume";
  }
  return "unknown";
}

base::Result<PositionsReport> ComputePositions(base::Fs& fs, const Snapshot& snapshot,
                                               const base::Progress& progress) {
  PositionsReport report;
  CKPT_RETURN_IF_ERROR(internal::FormatOf(snapshot).Positions(fs, snapshot, progress, &report));
  SortFindings(&report.findings);
  return report;
}

namespace {

// The key a split is paired by, and the offset reading resumes at.
std::string AdvanceKey(const SourcePosition& p) {
  if (!p.topic.empty()) return p.topic + "/" + std::to_string(p.partition);
  if (!p.path.empty()) {
    return p.split_offset ? p.path + "@" + std::to_string(*p.split_offset) : p.path;
  }
  return p.split_id;
}

std::optional<int64_t> ResumeOf(const SourcePosition& p) {
  if (p.next_offset) return p.next_offset;
  if (p.resume_offset) return p.resume_offset;
  if (p.next_value) return p.next_value;
  if (p.split_offset) return p.split_offset;
  return std::nullopt;
}

struct Resume {
  std::optional<int64_t> offset;
  bool kafka = false;
};

// key -> resume offset of one operator: readers and union state first; the enumerator's
// positions only for splits no reader holds.
std::map<std::string, Resume> ResumeByKey(const OperatorPositions& op) {
  std::map<std::string, Resume> out;
  for (bool enumerator : {false, true}) {
    for (const SourcePosition& p : op.splits) {
      bool is_enum = p.origin == PositionOrigin::kEnumeratorAssigned ||
                     p.origin == PositionOrigin::kEnumeratorPending;
      if (is_enum != enumerator) continue;
      std::string key = AdvanceKey(p);
      if (enumerator && out.count(key)) continue;
      out[key] = {ResumeOf(p), !p.topic.empty()};
    }
  }
  return out;
}

}  // namespace

std::vector<PositionAdvance> ComparePositions(const PositionsReport& a,
                                              const PositionsReport& b) {
  std::map<std::string, const OperatorPositions*> in_b;
  for (const OperatorPositions& op : b.operators) in_b.emplace(op.id_hex, &op);
  std::map<std::string, const OperatorPositions*> in_a;
  for (const OperatorPositions& op : a.operators) in_a.emplace(op.id_hex, &op);

  std::vector<PositionAdvance> out;
  auto add = [&](const OperatorPositions* oa, const OperatorPositions* ob) {
    const OperatorPositions& named = ob ? *ob : *oa;
    auto ka = oa ? ResumeByKey(*oa) : std::map<std::string, Resume>{};
    auto kb = ob ? ResumeByKey(*ob) : std::map<std::string, Resume>{};
    std::map<std::string, int> keys;
    for (const auto& [k, v] : ka) keys[k] |= 1;
    for (const auto& [k, v] : kb) keys[k] |= 2;
    for (const auto& [k, where] : keys) {
      PositionAdvance adv;
      adv.operator_id_hex = named.id_hex;
      adv.operator_name = named.name;
      adv.key = k;
      if (where & 1) adv.from = ka[k].offset;
      if (where & 2) adv.to = kb[k].offset;
      adv.kafka = (where & 2) ? kb[k].kafka : ka[k].kafka;
      adv.connector = named.connector;
      out.push_back(std::move(adv));
    }
  };
  for (const auto& [id, oa] : in_a) {
    auto it = in_b.find(id);
    add(oa, it == in_b.end() ? nullptr : it->second);
  }
  for (const auto& [id, ob] : in_b) {
    if (!in_a.count(id)) add(nullptr, ob);
  }
  std::sort(out.begin(), out.end(), [](const PositionAdvance& x, const PositionAdvance& y) {
    return std::tie(x.operator_id_hex, x.key) < std::tie(y.operator_id_hex, y.key);
  });
  return out;
}

}  // namespace ckpt::ops
