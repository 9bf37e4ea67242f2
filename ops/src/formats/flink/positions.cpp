// PositionsFlink: the connector positions of a Flink snapshot (ops::ComputePositions). Walks each
// operator's managed operator state (the list states connectors register, by name) and its
// coordinator state, and hands each element to the connector decoders (connector_*.h). Which
// connector wrote a state is decided by the bytes: a decoder succeeds only when it consumes one
// whole object of its exact layout; the operator's name ("Kafka", "File") only decides whether a
// state no decoder accepts is reported (CKPT-C001) or passed over as some other connector's.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "ckpt/flink/backend_meta.h"
#include "ckpt/flink/snappy_frames.h"
#include "ckpt/ops/operator_label.h"
#include "formats/flink/connector_common.h"
#include "formats/flink/connector_file.h"
#include "formats/flink/connector_kafka.h"
#include "formats/flink/connector_sink_v2.h"
#include "formats/flink/flink_format.h"
#include "formats/flink/model.h"
#include "formats/flink/streams.h"

namespace ckpt::ops::internal {

using base::Status;
namespace conn = connector;

namespace {

constexpr const char* kReaderState = "SourceReaderState";
constexpr const char* kWriterState = "writer_raw_states";
constexpr const char* kBucketState = "bucket-states";
constexpr const char* kCommitterState = "streaming_committer_raw_states";
constexpr const char* kConsumerState = "topic-partition-offset-states";
constexpr const char* kProducerState = "state";

enum class Hint { kNone, kKafka, kFile };

// One list element of a state: its bytes, located in its file.
struct Element {
  std::string_view bytes;
  std::string file;
  uint64_t offset = 0;
};

class OperatorWalker {
 public:
  OperatorWalker(base::Fs& fs, const flink::Metadata& md, const flink::OperatorState& op,
                 PositionsReport* report)
      : fs_(fs), md_(md), op_(op), report_(report) {
    out_.id_hex = op.IdHex();
    out_.name = OperatorLabel(op.name, op.uid, out_.id_hex);
    out_.uid = op.uid;
    std::string lower = op.name + " " + op.uid;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.find("kafka") != std::string::npos) hint_ = Hint::kKafka;
    else if (lower.find("file") != std::string::npos) hint_ = Hint::kFile;
  }

  Status Run(const base::Progress& progress) {
    std::vector<const flink::SubtaskState*> subtasks;
    for (const auto& st : op_.subtasks) subtasks.push_back(&st);
    std::sort(subtasks.begin(), subtasks.end(),
              [](const auto* a, const auto* b) { return a->index < b->index; });
    for (const auto* st : subtasks) {
      if (progress.cancelled()) return Status::Cancelled("positions cancelled");
      if (st->managed_operator) CKPT_RETURN_IF_ERROR(Handle(st->index, *st->managed_operator));
    }
    Coordinator();
    std::stable_sort(splits_union_.begin(), splits_union_.end(),
                     [](const SourcePosition& a, const SourcePosition& b) {
                       return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
                     });
    for (auto* v : {&splits_enum_, &splits_union_}) {
      out_.splits.insert(out_.splits.end(), v->begin(), v->end());
    }
    if (sink_) out_.sink = std::move(*sink_);
    if (connector_) {
      out_.connector = *connector_;
      report_->operators.push_back(std::move(out_));
    }
    return Status::OK();
  }

 private:
  void Claim(ConnectorKind k) {
    if (!connector_) connector_ = k;
  }
  SinkPositions& Sink() {
    if (!sink_) sink_.emplace();
    return *sink_;
  }

  void Finding(const std::string& file, const std::string& state, int32_t subtask,
               const Status& why) {
    Location l = OperatorLocationOf(op_.name, op_.uid, out_.id_hex);
    l.file = file;
    if (subtask >= 0) l.subtask = static_cast<uint32_t>(subtask);
    report_->findings.push_back(
        {"CKPT-C001", Severity::kWarning, l,
         "operator state '" + state + "'" +
             (subtask >= 0 ? " of subtask " + std::to_string(subtask) : std::string()) +
             " looks like a connector's but cannot be decoded: " + why.message(),
         "its positions are left out of the report; check the connector version that wrote it"});
  }

  // The elements of every state this walker knows in one operator-state handle.
  Status Handle(int32_t subtask, const flink::OperatorHandle& h) {
    static const std::set<std::string> kKnown = {kReaderState,   kWriterState,   kBucketState,
                                                 kCommitterState, kConsumerState, kProducerState};
    bool any = false;
    for (const auto& e : h.states) any |= kKnown.count(e.name) > 0;
    if (!any) return Status::OK();
    const std::string file = StreamName(md_, h.delegate);
    // A state file that cannot be read at all is an error of the whole report (it names the
    // file); bytes that do not decode are findings.
    CKPT_ASSIGN_OR_RETURN(std::string bytes, ReadStreamBytes(fs_, md_, h.delegate));
    std::vector<int64_t> all_offsets;
    for (const auto& e : h.states) {
      all_offsets.insert(all_offsets.end(), e.offsets.begin(), e.offsets.end());
    }
    auto meta = flink::ReadOperatorBackendMeta(flink::StreamMetaBytes(bytes, all_offsets), file);
    if (!meta.ok()) {
      Finding(file, "(meta information)", subtask, meta.status());
      return Status::OK();
    }
    std::set<uint64_t> starts;
    for (int64_t off : all_offsets) if (off >= 0) starts.insert(static_cast<uint64_t>(off));
    for (const auto& e : h.states) {
      if (!kKnown.count(e.name) || e.mode == flink::DistributionMode::kBroadcast) continue;
      if (e.name == kProducerState && !IsKafkaProducerState(*meta, e.name)) continue;
      std::vector<std::string> plains;  // decompressed elements (compressed snapshots)
      plains.reserve(e.offsets.size());
      std::vector<Element> elements;
      bool ok = true;
      for (size_t i = 0; i < e.offsets.size() && ok; ++i) {
        const int64_t off = e.offsets[i];
        if (off < 0 || static_cast<uint64_t>(off) > bytes.size()) {
          Finding(file, e.name, subtask,
                  Status::Corruption(file + ": at byte " + std::to_string(off) +
                                     ": list element beyond the stream"));
          ok = false;
          break;
        }
        auto next = starts.upper_bound(static_cast<uint64_t>(off));
        const uint64_t end = next == starts.end() ? bytes.size() : *next;
        std::string_view span = std::string_view(bytes).substr(static_cast<size_t>(off),
                                                               end - static_cast<uint64_t>(off));
        if (meta->compressed) {
          auto plain = flink::DecompressSnappyFrames(span, file, static_cast<uint64_t>(off));
          if (!plain.ok()) {
            Finding(file, e.name, subtask, plain.status());
            ok = false;
            break;
          }
          plains.push_back(std::move(*plain));
          elements.push_back({plains.back(), file + " (Snappy frames from byte " +
                                                 std::to_string(off) + ")", 0});
        } else {
          elements.push_back({span, file, static_cast<uint64_t>(off)});
        }
      }
      if (!ok) continue;
      for (const Element& el : elements) {
        Status s = DecodeElement(e.name, subtask, el);
        if (!s.ok()) {
          Finding(el.file, e.name, subtask, s);
          break;  // one finding per state and subtask
        }
      }
    }
    return Status::OK();
  }

  static void ClassNames(const flink::SerializerSnapshot& s, std::string* out) {
    *out += s.class_name + " " + s.outer + " ";
    for (const auto& n : s.nested) ClassNames(n, out);
  }

  // FlinkKafkaProducer's "state": TwoPhaseCommitSinkFunction's StateSerializer beside the
  // producer's transactional-ID hint state ("state" alone is too common a name to go by).
  static bool IsKafkaProducerState(const flink::OperatorBackendMeta& meta,
                                   const std::string& name) {
    bool two_phase = false;
    bool kafka = false;
    for (const auto& st : meta.states) {
      if (st.name.rfind("next-transactional-id-hint", 0) == 0) kafka = true;
      const flink::SerializerSnapshot* vs = st.Serializer("VALUE_SERIALIZER");
      if (vs == nullptr) continue;
      std::string names;
      ClassNames(*vs, &names);
      if (names.find("FlinkKafkaProducer") != std::string::npos) kafka = true;
      if (st.name == name && names.find("TwoPhaseCommitSinkFunction") != std::string::npos) {
        two_phase = true;
      }
    }
    return two_phase && kafka;
  }

  // A byte[] element (BytePrimitiveArraySerializer) holding SimpleVersioned bytes.
  static base::Result<conn::Versioned> VersionedElement(flink::DataInput& in) {
    CKPT_ASSIGN_OR_RETURN(std::string_view raw, in.ReadLengthPrefixed());
    flink::DataInput inner(raw, in.file(), in.offset() - raw.size());
    CKPT_ASSIGN_OR_RETURN(conn::Versioned v, conn::ReadVersioned(inner));
    CKPT_RETURN_IF_ERROR(conn::ExpectEnd(inner, "a list element"));
    return v;
  }

  Status DecodeElement(const std::string& state, int32_t subtask, const Element& el) {
    flink::DataInput in(el.bytes, el.file, el.offset);
    if (state == kConsumerState) {
      CKPT_ASSIGN_OR_RETURN(SourcePosition p, conn::DecodeLegacyConsumerOffset(in));
      Claim(ConnectorKind::kFlinkKafkaConsumer);
      splits_union_.push_back(std::move(p));
      return Status::OK();
    }
    if (state == kProducerState) {
      CKPT_ASSIGN_OR_RETURN(std::vector<SinkTransaction> txs, conn::DecodeLegacyProducerState(in));
      Claim(ConnectorKind::kFlinkKafkaProducer);
      for (auto& t : txs) {
        t.subtask = subtask;
        Sink().transactions.push_back(std::move(t));
      }
      return Status::OK();
    }
    CKPT_ASSIGN_OR_RETURN(conn::Versioned v, VersionedElement(in));
    flink::DataInput payload = conn::Open(in, v);
    if (state == kReaderState) return ReaderSplit(subtask, v, payload);
    if (state == kWriterState || state == kBucketState) return WriterState(subtask, v, payload);
    return CommitterState(subtask, v, payload);
  }

  // Kafka first, then file: each must consume the split's bytes exactly. A split neither takes
  // is another source's, unless this operator is known (or named) as one of these two.
  Status ReaderSplit(int32_t subtask, const conn::Versioned& v, flink::DataInput& payload) {
    flink::DataInput try_kafka = payload;
    auto kafka = conn::DecodeKafkaSplit(v.version, try_kafka);
    if (kafka.ok() && connector_ != ConnectorKind::kFileSource) {
      Claim(ConnectorKind::kKafkaSource);
      kafka->subtask = subtask;
      out_.splits.push_back(std::move(*kafka));
      return Status::OK();
    }
    flink::DataInput try_file = payload;
    auto file = conn::DecodeFileSplit(v.version, try_file);
    if (file.ok() && connector_ != ConnectorKind::kKafkaSource) {
      Claim(ConnectorKind::kFileSource);
      file->subtask = subtask;
      out_.splits.push_back(std::move(*file));
      return Status::OK();
    }
    if (connector_ == ConnectorKind::kKafkaSource || (!connector_ && hint_ == Hint::kKafka)) {
      return kafka.status();
    }
    if (connector_ == ConnectorKind::kFileSource || (!connector_ && hint_ == Hint::kFile)) {
      return file.status();
    }
    return Status::OK();
  }

  Status WriterState(int32_t subtask, const conn::Versioned& v, flink::DataInput& payload) {
    flink::DataInput try_file = payload;
    auto bucket = conn::DecodeFileBucketState(v.version, try_file);
    if (bucket.ok()) {
      Claim(ConnectorKind::kFileSink);
      SinkPositions& s = Sink();
      if (std::find(s.bucket_ids.begin(), s.bucket_ids.end(), bucket->bucket_id) ==
          s.bucket_ids.end()) {
        s.bucket_ids.push_back(bucket->bucket_id);
      }
      for (auto& t : bucket->files) {
        t.subtask = subtask;
        s.transactions.push_back(std::move(t));
      }
      return Status::OK();
    }
    flink::DataInput try_kafka = payload;
    auto kafka = conn::DecodeKafkaWriterState(v.version, try_kafka);
    if (kafka.ok()) {
      Claim(ConnectorKind::kKafkaSink);
      SinkPositions& s = Sink();
      s.transactional_id_prefix = kafka->transactional_id_prefix;
      for (auto& t : kafka->ongoing) {
        t.subtask = subtask;
        s.transactions.push_back(std::move(t));
      }
      return Status::OK();
    }
    if (hint_ == Hint::kKafka) return kafka.status();
    if (hint_ == Hint::kFile) return bucket.status();
    return Status::OK();
  }

  Status CommitterState(int32_t subtask, const conn::Versioned& v, flink::DataInput& payload) {
    auto collected = conn::DecodeCommittableCollector(v.version, payload);
    if (!collected.ok()) return hint_ == Hint::kNone ? Status::OK() : collected.status();
    for (const conn::PendingCommittable& c : *collected) {
      flink::DataInput body = conn::Open(payload, c.committable);
      const int32_t owner = c.subtask >= 0 ? c.subtask : subtask;
      flink::DataInput try_file = body;
      auto file = conn::DecodeFileCommittable(c.committable.version, try_file);
      if (file.ok()) {
        Claim(ConnectorKind::kFileSink);
        for (auto& t : *file) {
          t.subtask = owner;
          t.checkpoint_id = c.checkpoint_id;
          Sink().transactions.push_back(std::move(t));
        }
        continue;
      }
      auto kafka = conn::DecodeKafkaCommittable(c.committable.version, body);
      if (kafka.ok()) {
        Claim(ConnectorKind::kKafkaSink);
        kafka->subtask = owner;
        kafka->checkpoint_id = c.checkpoint_id;
        Sink().transactions.push_back(std::move(*kafka));
        continue;
      }
      if (hint_ == Hint::kKafka || connector_ == ConnectorKind::kKafkaSink) return kafka.status();
      if (hint_ == Hint::kFile || connector_ == ConnectorKind::kFileSink) return file.status();
    }
    return Status::OK();
  }

  // SourceCoordinator's checkpoint: i32 coordinator serde version (0-2), i32 enumerator
  // serializer version, i32 length, the enumerator checkpoint (v0 then has the split
  // assignments, which restore does not need).
  void Coordinator() {
    const flink::StreamHandle& h = op_.coordinator;
    if (h.type != flink::StreamHandle::Type::kByteStream || h.data.empty()) return;
    const bool kafka = connector_ == ConnectorKind::kKafkaSource ||
                       (!connector_ && hint_ == Hint::kKafka);
    const bool file = connector_ == ConnectorKind::kFileSource ||
                      (!connector_ && hint_ == Hint::kFile);
    if (connector_ && !kafka && !file) return;  // a sink's or another connector's coordinator
    const std::string name = StreamName(md_, h);
    flink::DataInput in(h.data, name, 0);
    auto enumerator = [&]() -> base::Result<conn::Versioned> {
      CKPT_ASSIGN_OR_RETURN(int32_t serde, in.ReadI32());
      if (serde < 0 || serde > 2) {
        return in.Error(in.offset() - 4,
                        "unsupported source coordinator serde version " + std::to_string(serde));
      }
      return conn::ReadVersioned(in);
    }();
    Status s;
    if (enumerator.ok()) {
      flink::DataInput body = conn::Open(in, *enumerator);
      if (kafka) {
        auto st = conn::DecodeKafkaEnumState(enumerator->version, body);
        if (st.ok()) {
          Claim(ConnectorKind::kKafkaSource);
          for (auto& p : *st) splits_enum_.push_back(std::move(p));
          return;
        }
        s = st.status();
      } else {
        // Without a name or reader state saying so, only the file enumerator's magic number is
        // distinctive enough to go by.
        auto st = conn::DecodeFileEnumState(enumerator->version, body);
        if (st.ok()) {
          Claim(ConnectorKind::kFileSource);
          for (auto& p : st->pending) splits_enum_.push_back(std::move(p));
          out_.processed_paths = std::move(st->processed_paths);
          return;
        }
        s = st.status();
      }
    } else {
      s = enumerator.status();
    }
    if (kafka || file) Finding(name, "(coordinator: split enumerator)", -1, s);
  }

  base::Fs& fs_;
  const flink::Metadata& md_;
  const flink::OperatorState& op_;
  PositionsReport* report_;
  OperatorPositions out_;
  Hint hint_ = Hint::kNone;
  std::optional<ConnectorKind> connector_;
  std::optional<SinkPositions> sink_;
  std::vector<SourcePosition> splits_enum_;
  std::vector<SourcePosition> splits_union_;
};

}  // namespace

base::Status PositionsFlink(base::Fs& fs, const Snapshot& snapshot, const base::Progress& progress,
                            PositionsReport* out) {
  const flink::Metadata* md = FlinkMetadataOf(snapshot);
  if (md == nullptr) return Status::InvalidArgument("not an Apache Flink snapshot");
  for (const auto& op : md->operators) {
    OperatorWalker walker(fs, *md, op, out);
    CKPT_RETURN_IF_ERROR(walker.Run(progress));
  }
  return Status::OK();
}

}  // namespace ckpt::ops::internal
