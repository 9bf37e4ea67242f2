// RescaleFlink: see formats/flink/rescale.h. A canonical savepoint's keyed stream (FullSnapshotAsyncWriter)
// is the KeyedBackendSerializationProxy, then per key group a section of (key, value) pairs whose
// keys start with the key group in 1 byte (max parallelism <= 128) or 2 (big-endian); timers'
// keys are [key group][timestamp][key][namespace], every other state's [key group][key]...
// Flink's heap and RocksDB backends both restore such a stream into any key-group range
// (FullSnapshotRestoreOperation reads the sections the handle's offsets point at), so the new
// streams carry the proxy bytes unchanged and only the prefixes and the grouping change.
#include "formats/flink/rescale.h"

#include <map>
#include <set>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/key_group_assignment.h"
#include "ckpt/flink/key_group_stream.h"
#include "ckpt/flink/key_group_stream_writer.h"
#include "ckpt/flink/metadata_reader.h"
#include "ckpt/flink/metadata_writer.h"
#include "ckpt/flink/snappy_frames.h"
#include "ckpt/format/operator_id.h"
#include "formats/flink/streams.h"
#include "rewrite/output_publish.h"
#include "rewrite/relocate_copy.h"

namespace ckpt::ops::internal {
namespace {

using base::Status;
using Tag = flink::KeyedHandle::Tag;

std::string TagName(Tag t) {
  switch (t) {
    case Tag::kKeyGroups: return "KEY_GROUPS_HANDLE (tag 3, a pre-1.13 savepoint or a full RocksDB snapshot)";
    case Tag::kKeyGroupsV2: return "KEY_GROUPS_HANDLE_V2 (tag 12, a heap checkpoint or native heap savepoint)";
    case Tag::kIncremental:
    case Tag::kIncrementalV2: return "an incremental RocksDB handle (RocksDB's native SST files)";
    case Tag::kChangelog:
    case Tag::kChangelogV2:
    case Tag::kChangelogBytes:
    case Tag::kChangelogFile:
    case Tag::kChangelogFileV2: return "a changelog handle";
    default: return "keyed tag " + std::to_string(static_cast<int>(t));
  }
}

// Why `md` is not a canonical savepoint ("" if it is one).
std::string NotCanonical(const flink::Metadata& md) {
  if (md.properties) {
    if (!md.properties->is_savepoint) {
      return "it is a checkpoint (" + md.properties->type_name +
             "), whose keyed state is in the state backend's own layout";
    }
    if (md.properties->format_type != "CANONICAL") {
      return "it is a " + md.properties->format_type +
             " savepoint, whose keyed state is in the state backend's own layout";
    }
  }
  for (const auto& op : md.operators) {
    for (const auto& st : op.subtasks) {
      if (!st.managed_keyed.is_null() && st.managed_keyed.tag != Tag::kSavepointKeyGroups) {
        return "operator " + op.IdHex() + " subtask " + std::to_string(st.index) + " holds " +
               TagName(st.managed_keyed.tag) + ", not a canonical savepoint handle (tag 7)";
      }
    }
  }
  return "";
}

bool Matches(const flink::OperatorState& op, const std::string& ref) {
  if (ref == op.IdHex() || (!op.uid.empty() && ref == op.uid) || (!op.name.empty() && ref == op.name)) {
    return true;
  }
  return format::OperatorId::FromUid(ref).ToHex() == op.IdHex();  // a uid that v2-v4 do not store
}

void PutPrefix(int32_t group, int bytes, std::string* key) {
  if (bytes == 2) key->push_back(static_cast<char>((group >> 8) & 0xFF));
  key->push_back(static_cast<char>(group & 0xFF));
}

// One rescaled operator's new keyed streams.
struct NewStreams {
  std::vector<std::string> names;   // relative to the output directory, per subtask index
  std::vector<std::string> bytes;   // per subtask index
  std::vector<std::vector<int64_t>> offsets;
  std::vector<flink::KeyGroupSpan> spans;
};

class OperatorRescaler {
 public:
  OperatorRescaler(base::Fs& fs, const flink::Metadata& md, const flink::OperatorState& op, int32_t new_max,
                   const base::Progress& progress)
      : fs_(fs), md_(md), op_(op), new_max_(new_max), progress_(progress),
        buckets_(static_cast<size_t>(new_max)) {}

  // Reads every entry of every subtask into the new key groups.
  Status Read(RescaledOperator* report) {
    const int old_prefix = flink::KeyGroupPrefixBytes(op_.max_parallelism);
    // Pass 1: every subtask's stream and meta information. Subtasks may have registered
    // different states (Flink registers a state when the function first asks for it): the
    // new streams carry the meta information of one that registered every state the others did.
    struct Input {
      const flink::SubtaskState* st;
      std::string file;
      std::string bytes;
      flink::KeyedBackendMeta meta;
      std::vector<uint16_t> ids;  // its state id -> the adopted meta's
    };
    std::vector<Input> inputs;
    for (const auto& st : op_.subtasks) {
      if (!st.raw_keyed.is_null()) {
        return Status::Unimplemented("operator " + op_.IdHex() + " subtask " + std::to_string(st.index) +
                                     " has raw keyed state (written by the operator's own code, its key "
                                     "groups cannot be re-assigned from outside)");
      }
      if (st.managed_keyed.is_null()) continue;
      Input in;
      in.st = &st;
      const flink::KeyGroupsHandle& kg = *st.managed_keyed.key_groups;
      in.file = StreamName(md_, kg.delegate);
      CKPT_ASSIGN_OR_RETURN(in.bytes, ReadStreamBytes(fs_, md_, kg.delegate));
      if (kg.delegate.size > 0 && static_cast<int64_t>(in.bytes.size()) != kg.delegate.size) {
        return Status::Corruption(in.file + ": " + std::to_string(in.bytes.size()) + " bytes, the handle records " +
                                  std::to_string(kg.delegate.size) + " (truncated key-group stream)");
      }
      CKPT_ASSIGN_OR_RETURN(in.meta, flink::ReadKeyedBackendMeta(flink::StreamMetaBytes(in.bytes, kg.offsets), in.file));
      inputs.push_back(std::move(in));
    }
    if (inputs.empty()) return Status::OK();
    const Input* widest = &inputs.front();
    for (const auto& in : inputs) {
      if (in.meta.states.size() > widest->meta.states.size()) widest = &in;
    }
    CKPT_RETURN_IF_ERROR(Adopt(widest->meta, widest->bytes.substr(0, static_cast<size_t>(widest->meta.size_bytes)),
                               widest->file, report));
    for (auto& in : inputs) CKPT_RETURN_IF_ERROR(MapStates(&in.meta, in.file, &in.ids));

    // Pass 2: the entries.
    for (const auto& in : inputs) {
      const flink::SubtaskState& st = *in.st;
      const flink::KeyGroupsHandle& kg = *st.managed_keyed.key_groups;
      const std::string& bytes = in.bytes;
      const std::string& file = in.file;
      const flink::KeyedBackendMeta& meta = in.meta;
      std::set<uint64_t> starts;
      for (int64_t off : kg.offsets) {
        if (off > 0) starts.insert(static_cast<uint64_t>(off));
      }
      for (size_t i = 0; i < kg.offsets.size(); ++i) {
        const int32_t group = kg.start + static_cast<int32_t>(i);
        const int64_t off = kg.offsets[i];
        if (off <= 0) continue;  // an empty key group
        if (static_cast<uint64_t>(off) < meta.size_bytes || static_cast<uint64_t>(off) > bytes.size()) {
          return Status::Corruption(file + ": key group " + std::to_string(group) + " starts at byte " +
                                    std::to_string(off) + ", outside the stream's key-group sections");
        }
        if (progress_.cancelled()) return Status::Cancelled("rescale-max-parallelism cancelled");
        auto sink = [&](const flink::KeyGroupEntry& e, const std::string& where) -> Status {
          if (e.state_id >= in.ids.size()) {
            return Status::Corruption(where + ": at byte " + std::to_string(e.offset) + ": state id " +
                                      std::to_string(e.state_id) + " of " + std::to_string(in.ids.size()) +
                                      " declared states");
          }
          flink::KeyGroupEntry mapped = e;
          mapped.state_id = in.ids[e.state_id];
          return Add(mapped, group, old_prefix, where, st.index, report);
        };
        if (meta.compressed) {
          auto next = starts.upper_bound(static_cast<uint64_t>(off));
          const uint64_t end = next == starts.end() ? bytes.size() : *next;
          CKPT_ASSIGN_OR_RETURN(std::string plain,
                                flink::DecompressSnappyFrames(std::string_view(bytes).substr(
                                                                  static_cast<size_t>(off),
                                                                  static_cast<size_t>(end - static_cast<uint64_t>(off))),
                                                              file, static_cast<uint64_t>(off)));
          const std::string where = file + " (Snappy section of key group " + std::to_string(group) + ")";
          CKPT_RETURN_IF_ERROR(flink::ReadKeyGroupSection(
              plain, 0, where, [&](const flink::KeyGroupEntry& e) { return sink(e, where); }));
        } else {
          CKPT_RETURN_IF_ERROR(flink::ReadKeyGroupSection(
              bytes, static_cast<uint64_t>(off), file, [&](const flink::KeyGroupEntry& e) { return sink(e, file); }));
        }
      }
    }
    return Status::OK();
  }

  bool has_keyed_state() const { return !head_.empty(); }

  // The new streams, one per subtask of the unchanged parallelism.
  Status Write(NewStreams* out, RescaledOperator* report) {
    const int32_t p = op_.parallelism;
    for (int32_t j = 0; j < p; ++j) {
      if (progress_.cancelled()) return Status::Cancelled("rescale-max-parallelism cancelled");
      const flink::KeyGroupSpan span = flink::KeyGroupSpanOfSubtask(new_max_, p, j);
      flink::KeyGroupStreamWriter w(head_, compressed_);
      std::vector<int64_t> offsets;
      for (int32_t g = span.start; g <= span.end; ++g) {
        int64_t off = 0;
        CKPT_RETURN_IF_ERROR(w.AddKeyGroup(std::move(buckets_[static_cast<size_t>(g)]), &off));
        offsets.push_back(off);
      }
      const std::string name = "rescaled-" + op_.IdHex() + "-" + std::to_string(j);
      out->names.push_back(name);
      out->bytes.push_back(w.Release());
      out->offsets.push_back(std::move(offsets));
      out->spans.push_back(span);
      report->output_files.push_back(name);
    }
    return Status::OK();
  }

 private:
  // Serializer snapshots as a comparable string (class, version, nested).
  static std::string Describe(const flink::SerializerSnapshot& s) {
    std::string d = s.class_name + "/" + std::to_string(s.version) + "/" + s.outer + "/" +
                    std::to_string(s.outer_version) + "(";
    for (const auto& n : s.nested) d += Describe(n) + ",";
    return d + ")";
  }
  static std::string Describe(const flink::StateMetaInfo& st) {
    std::string d = std::to_string(static_cast<int>(st.backend_type)) + ":";
    for (const auto& [k, v] : st.options) d += k + "=" + v + ";";
    for (const auto& [k, v] : st.serializers) d += k + "=" + Describe(v) + ";";
    return d;
  }

  // The adopted meta's state id of each state of `meta` (by name, with the same kind, options and
  // serializers); Unimplemented naming the state and the file otherwise.
  Status MapStates(const flink::KeyedBackendMeta* meta, const std::string& file, std::vector<uint16_t>* ids) {
    if (Describe(meta->key_serializer) != Describe(meta_.key_serializer) || meta->compressed != meta_.compressed) {
      return Status::Unimplemented(file + ": its key serializer or compression differs from " + head_file_ +
                                   "'s (subtasks of one operator " + op_.IdHex() + " disagree)");
    }
    for (const auto& st : meta->states) {
      size_t j = 0;
      while (j < meta_.states.size() && meta_.states[j].name != st.name) ++j;
      if (j == meta_.states.size() || Describe(meta_.states[j]) != Describe(st)) {
        return Status::Unimplemented(
            file + ": state '" + st.name + "' is " + (j == meta_.states.size() ? "missing from" : "declared differently in") +
            " " + head_file_ + ", the subtask of operator " + op_.IdHex() +
            " with the most states; rescale needs one subtask whose registered states include every other's");
      }
      ids->push_back(static_cast<uint16_t>(j));
    }
    return Status::OK();
  }

  Status Adopt(const flink::KeyedBackendMeta& meta, const std::string& head, const std::string& file,
               RescaledOperator* report) {
    meta_ = meta;
    head_ = head;
    head_file_ = file;
    compressed_ = meta.compressed;
    report->key_serializer = meta.key_serializer.DisplayName();
    std::string bad = flink::UnhashableSerializer(meta.key_serializer);
    if (!bad.empty()) {
      return Status::InvalidArgument(
          "operator " + op_.IdHex() + ": its keys are serialized by " + bad +
          ", whose Java hashCode() (which decides a key's group) is not known outside the JVM; "
          "rescale-max-parallelism supports String, boxed primitive, Flink Tuple and Row keys");
    }
    for (const auto& s : meta.states) {
      if (s.backend_type != flink::StateMetaInfo::BackendType::kPriorityQueue) continue;
      const flink::SerializerSnapshot* vs = s.Serializer("VALUE_SERIALIZER");
      if (vs == nullptr || vs->nested.size() != 2 || !flink::UnhashableSerializer(vs->nested[0]).empty()) {
        return Status::InvalidArgument("operator " + op_.IdHex() + ": timer state '" + s.name +
                                       "' does not declare a timer serializer of a known key type");
      }
    }
    return Status::OK();
  }

  Status Add(const flink::KeyGroupEntry& e, int32_t group, int old_prefix, const std::string& where,
             int32_t subtask, RescaledOperator* report) {
    if (e.state_id >= meta_.states.size()) {
      return Status::Corruption(where + ": at byte " + std::to_string(e.offset) + ": state id " +
                                std::to_string(e.state_id) + " of " + std::to_string(meta_.states.size()) +
                                " declared states");
    }
    if (e.key.size() < static_cast<size_t>(old_prefix)) {
      return Status::Corruption(where + ": at byte " + std::to_string(e.offset) +
                                ": key shorter than its key-group prefix");
    }
    int32_t stored = static_cast<uint8_t>(e.key[0]);
    if (old_prefix == 2) stored = stored << 8 | static_cast<uint8_t>(e.key[1]);
    if (stored != group) {
      return Status::Corruption(where + ": at byte " + std::to_string(e.offset) + ": a key of key group " +
                                std::to_string(stored) + " in key group " + std::to_string(group) + "'s section");
    }
    const flink::StateMetaInfo& st = meta_.states[e.state_id];
    const bool timer = st.backend_type == flink::StateMetaInfo::BackendType::kPriorityQueue;
    const flink::SerializerSnapshot& ks = timer ? st.Serializer("VALUE_SERIALIZER")->nested[0] : meta_.key_serializer;
    const std::string_view rest = std::string_view(e.key).substr(static_cast<size_t>(old_prefix));
    flink::DataInput in(rest, where, e.offset);
    if (timer) CKPT_RETURN_IF_ERROR(in.ReadI64().status());
    CKPT_ASSIGN_OR_RETURN(int32_t hash, flink::JavaHashCode(ks, in));
    if (flink::KeyGroupForHash(hash, op_.max_parallelism) != stored) {
      return Status::Corruption(
          where + ": at byte " + std::to_string(e.offset) + ": state '" + st.name + "': a key whose hashCode " +
          std::to_string(hash) + " gives key group " +
          std::to_string(flink::KeyGroupForHash(hash, op_.max_parallelism)) + " is stored in key group " +
          std::to_string(stored) + " (the key class's hashCode() is not the one its serializer implies)");
    }
    const int32_t g = flink::KeyGroupForHash(hash, new_max_);
    flink::KeyGroupWriteEntry w;
    w.state_id = e.state_id;
    w.key.reserve(rest.size() + 2);
    PutPrefix(g, flink::KeyGroupPrefixBytes(new_max_), &w.key);
    w.key.append(rest);
    w.value.assign(e.value);
    buckets_[static_cast<size_t>(g)].push_back(std::move(w));
    ++report->keyed_entries;
    const int32_t new_subtask = static_cast<int32_t>(static_cast<int64_t>(g) * op_.parallelism / new_max_);
    if (new_subtask != subtask) ++report->keys_moved_subtask;
    return Status::OK();
  }

  base::Fs& fs_;
  const flink::Metadata& md_;
  const flink::OperatorState& op_;
  int32_t new_max_;
  const base::Progress& progress_;
  std::vector<std::vector<flink::KeyGroupWriteEntry>> buckets_;
  flink::KeyedBackendMeta meta_;
  std::string head_;
  std::string head_file_;
  bool compressed_ = false;
};

// Corruption unless the (max) parallelism and key-group ranges `op` records are ones Flink can
// write: the rescale divides by them and indexes by them.
Status CheckRecordedRanges(const flink::OperatorState& op, const std::string& metadata) {
  const std::string what = metadata + ": operator " + op.IdHex() + " records ";
  if (op.max_parallelism < 1 || op.max_parallelism > flink::kMaxMaxParallelism) {
    return Status::Corruption(what + "max parallelism " + std::to_string(op.max_parallelism) +
                              ", outside [1, " + std::to_string(flink::kMaxMaxParallelism) + "]");
  }
  if (op.parallelism < 1 || op.parallelism > op.max_parallelism) {
    return Status::Corruption(what + "parallelism " + std::to_string(op.parallelism) +
                              ", outside [1, its max parallelism " +
                              std::to_string(op.max_parallelism) + "]");
  }
  for (const auto& st : op.subtasks) {
    const std::string sub = what + "for subtask " + std::to_string(st.index) + " ";
    if (st.index < 0 || st.index >= op.parallelism) {
      return Status::Corruption(what + "subtask index " + std::to_string(st.index) +
                                ", outside [0, parallelism " + std::to_string(op.parallelism) +
                                ")");
    }
    if (st.managed_keyed.is_null() || st.managed_keyed.key_groups == nullptr) continue;
    const flink::KeyGroupsHandle& kg = *st.managed_keyed.key_groups;
    const int64_t end = int64_t{kg.start} + kg.count;
    if (kg.start < 0 || kg.count < 0 || end > op.max_parallelism ||
        static_cast<size_t>(kg.count) != kg.offsets.size()) {
      return Status::Corruption(sub + "key groups " + std::to_string(kg.start) + " + " +
                                std::to_string(kg.count) + " with " +
                                std::to_string(kg.offsets.size()) +
                                " offsets, not a range of [0, max parallelism " +
                                std::to_string(op.max_parallelism) + ") with one offset each");
    }
  }
  return Status::OK();
}

// Relative files of `st` other than its managed keyed stream (which is rewritten).
void CollectFiles(const flink::SubtaskState& st, bool keyed_replaced, std::map<std::string, int64_t>* relative,
                  std::map<std::string, int64_t>* absolute) {
  auto visit = [&](const flink::StreamHandle& h) {
    if (h.type == flink::StreamHandle::Type::kRelativeFile) relative->emplace(h.path, h.size);
    if (h.type == flink::StreamHandle::Type::kFile ||
        h.type == flink::StreamHandle::Type::kSegmentFile) {
      absolute->emplace(h.path, h.size);
    }
  };
  for (const auto* oh : {&st.managed_operator, &st.raw_operator}) {
    if (oh->has_value()) visit((*oh)->delegate);
  }
  if (!keyed_replaced && st.managed_keyed.key_groups) visit(st.managed_keyed.key_groups->delegate);
  if (!keyed_replaced) {
    visit(st.managed_keyed.meta);
    for (const auto* l : {&st.managed_keyed.shared_files, &st.managed_keyed.private_files}) {
      for (const auto& f : *l) visit(f.handle);
    }
  }
}

}  // namespace

base::Result<RescaleResult> RescaleFlink(base::Fs& fs, const format::SnapshotLocation& location,
                                         const std::string& output_dir, const RescaleOptions& options) {
  const int32_t new_max = options.new_max_parallelism;
  if (new_max < 1 || new_max > flink::kMaxMaxParallelism) {
    return Status::InvalidArgument("--max-parallelism " + std::to_string(new_max) +
                                   ": Flink's max parallelism must be within 1..32768");
  }
  CKPT_ASSIGN_OR_RETURN(flink::Metadata md, flink::ReadFlinkMetadata(fs, location.metadata));
  if (std::string why = NotCanonical(md); !why.empty()) {
    return Status::Unimplemented(location.metadata + ": rescale-max-parallelism rewrites canonical savepoints "
                                 "only, and " + why +
                                 "; take a canonical savepoint of the job (flink stop/savepoint "
                                 "--type canonical) and rescale that");
  }
  for (const auto& ref : options.operators) {
    bool found = false;
    for (const auto& op : md.operators) found = found || Matches(op, ref);
    if (!found) return Status::InvalidArgument("--operator " + ref + ": no operator of " + location.metadata + " has this ID, uid or name");
  }
  CKPT_RETURN_IF_ERROR(CheckOutputPlace(fs, location.dir, output_dir));

  RescaleResult result;
  result.source_dir = location.dir;
  result.output_dir = output_dir;
  result.checkpoint_id = md.checkpoint_id;
  result.dry_run = options.dry_run;

  flink::Metadata out = md;
  std::vector<std::pair<std::string, std::string>> new_files;  // relative name, bytes
  std::map<std::string, int64_t> relative;
  std::map<std::string, int64_t> absolute;
  for (size_t i = 0; i < md.operators.size(); ++i) {
    const flink::OperatorState& op = md.operators[i];
    bool selected = options.operators.empty();
    for (const auto& ref : options.operators) selected = selected || Matches(op, ref);
    const bool rescale = selected && op.max_parallelism != new_max;
    if (rescale) CKPT_RETURN_IF_ERROR(CheckRecordedRanges(op, location.metadata));
    if (rescale && op.parallelism > new_max) {
      return Status::InvalidArgument("--max-parallelism " + std::to_string(new_max) + " is below operator " +
                                     op.IdHex() + (op.uid.empty() ? "" : " (" + op.uid + ")") + "'s parallelism " +
                                     std::to_string(op.parallelism));
    }
    if (!rescale) {
      for (const auto& st : op.subtasks) CollectFiles(st, false, &relative, &absolute);
      continue;
    }
    RescaledOperator report;
    report.operator_id = op.IdHex();
    report.uid = op.uid;
    report.name = op.name;
    report.parallelism = op.parallelism;
    report.old_max_parallelism = op.max_parallelism;
    report.new_max_parallelism = new_max;
    OperatorRescaler rescaler(fs, md, op, new_max, options.progress);
    CKPT_RETURN_IF_ERROR(rescaler.Read(&report));
    flink::OperatorState& o = out.operators[i];
    o.max_parallelism = new_max;
    for (const auto& st : op.subtasks) CollectFiles(st, true, &relative, &absolute);
    if (rescaler.has_keyed_state()) {
      NewStreams streams;
      CKPT_RETURN_IF_ERROR(rescaler.Write(&streams, &report));
      for (int32_t j = 0; j < op.parallelism; ++j) {
        flink::SubtaskState* target = nullptr;
        for (auto& st : o.subtasks) {
          if (st.index == j) target = &st;
        }
        if (target == nullptr) {
          o.subtasks.emplace_back();
          target = &o.subtasks.back();
          target->index = j;
          o.entry_order.clear();  // the writer orders the entries by subtask index
        }
        auto kg = std::make_shared<flink::KeyGroupsHandle>();
        kg->start = streams.spans[static_cast<size_t>(j)].start;
        kg->count = streams.spans[static_cast<size_t>(j)].count();
        kg->offsets = streams.offsets[static_cast<size_t>(j)];
        kg->delegate.type = flink::StreamHandle::Type::kRelativeFile;
        kg->delegate.path = streams.names[static_cast<size_t>(j)];
        kg->delegate.size = static_cast<int64_t>(streams.bytes[static_cast<size_t>(j)].size());
        flink::KeyedHandle h;
        h.tag = Tag::kSavepointKeyGroups;
        h.kg_start = kg->start;
        h.kg_count = kg->count;
        h.key_groups = std::move(kg);
        target->managed_keyed = std::move(h);
        new_files.emplace_back(streams.names[static_cast<size_t>(j)], std::move(streams.bytes[static_cast<size_t>(j)]));
      }
    }
    result.operators.push_back(std::move(report));
  }
  if (result.operators.empty()) {
    result.warnings.push_back("every selected operator already has max parallelism " + std::to_string(new_max) +
                              ": the output is a copy");
  }
  CKPT_ASSIGN_OR_RETURN(std::string metadata_bytes, flink::SerializeFlinkMetadata(out));
  std::vector<RelocatedFile> copies;
  for (const auto& [path, size] : relative) {
    copies.push_back(SamePathCopy(location.dir, path, static_cast<uint64_t>(size)));
  }
  for (const auto& [name, bytes] : new_files) {
    for (const auto& c : copies) {
      if (c.output_path == name) {
        return Status::AlreadyExists(location.dir + " already holds a file named " + name +
                                     ", the name of a rescaled stream");
      }
    }
  }
  result.files_copied = copies.size();
  result.bytes_written = metadata_bytes.size();
  for (const auto& [name, bytes] : new_files) result.bytes_written += bytes.size();
  if (!absolute.empty()) {
    result.warnings.push_back(std::to_string(absolute.size()) +
                              " state file(s) are referenced by absolute path (e.g. " + absolute.begin()->first +
                              "); the rescaled savepoint keeps referencing them there");
  }
  if (options.dry_run) return result;
  CKPT_ASSIGN_OR_RETURN(
      CopyResult copied,
      WriteSnapshotCopyWith(fs, copies, output_dir,
                            WriteMetadataBytes(fs, metadata_bytes, &new_files),
                            CopyOptions{false, FileTransfer::kCopy}, options.progress));
  TakePublication(std::move(copied), options.verify_output, &result);
  return result;
}

}  // namespace ckpt::ops::internal
