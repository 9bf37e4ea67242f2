// validate for Apache Flink snapshots: the metadata classification, the structure rules shared
// with our format, file checks of what Flink records (existence and size; never checksums, which
// Flink does not write), --deep over key-group streams and --against with Flink's restore rules.
#include "formats/flink/validate.h"

#include <algorithm>
#include <vector>

#include "ckpt/flink/metadata_reader.h"
#include "formats/flink/dump.h"
#include "formats/flink/model.h"
#include "model/file_fs.h"
#include "validate/parallel_checks.h"

namespace ckpt::ops::internal {
namespace {

using base::Status;

bool Contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

// Every distinct file of a Flink handle with what its handle says of it.
struct FlinkFileRef {
  const flink::StreamHandle* handle = nullptr;
  const flink::KeyGroupsHandle* key_groups = nullptr;  // the stream is a key-group stream
  std::string operator_id;
  uint32_t subtask = 0;
  // Changelog (DSTL) files hold a header and may be shared by several increments: the handle's
  // size is a lower bound of the file's, not its size.
  bool size_is_lower_bound = false;
};

void CollectStream(const flink::StreamHandle& h, const flink::KeyGroupsHandle* kg,
                   const std::string& op, uint32_t subtask, std::vector<FlinkFileRef>* out,
                   bool lower_bound = false) {
  if (h.type == flink::StreamHandle::Type::kKeyGroups && h.nested) {
    CollectStream(h.nested->delegate, h.nested.get(), op, subtask, out);
    return;
  }
  if (!h.is_file()) return;
  out->push_back({&h, kg, op, subtask, lower_bound});
}

void CollectKeyed(const flink::KeyedHandle& h, const std::string& op, uint32_t subtask,
                  std::vector<FlinkFileRef>* out) {
  if (h.key_groups) CollectStream(h.key_groups->delegate, h.key_groups.get(), op, subtask, out);
  CollectStream(h.meta, nullptr, op, subtask, out);
  for (const auto& f : h.shared_files) CollectStream(f.handle, nullptr, op, subtask, out);
  for (const auto& f : h.private_files) CollectStream(f.handle, nullptr, op, subtask, out);
  for (const auto& m : h.materialized) CollectKeyed(m, op, subtask, out);
  for (const auto& d : h.non_materialized) CollectKeyed(d, op, subtask, out);
  for (const auto& ho : h.handles_and_offsets) {
    CollectStream(ho.second, nullptr, op, subtask, out, /*lower_bound=*/true);
  }
}

std::vector<FlinkFileRef> CollectFiles(const flink::Metadata& md) {
  std::vector<FlinkFileRef> out;
  for (const auto& op : md.operators) {
    const std::string id = op.IdHex();
    for (const auto& st : op.subtasks) {
      const auto idx = static_cast<uint32_t>(st.index);
      CollectKeyed(st.managed_keyed, id, idx, &out);
      CollectKeyed(st.raw_keyed, id, idx, &out);
      if (st.managed_operator) CollectStream(st.managed_operator->delegate, nullptr, id, idx, &out);
      if (st.raw_operator) CollectStream(st.raw_operator->delegate, nullptr, id, idx, &out);
      for (const auto& c : st.input_channels) CollectStream(c.delegate, nullptr, id, idx, &out);
      for (const auto& c : st.result_subpartitions) CollectStream(c.delegate, nullptr, id, idx, &out);
    }
  }
  return out;
}

Location RefLocation(const Snapshot& s, const FlinkFileRef& r, const std::string& file) {
  Location l;
  for (const auto& op : s.operators) {
    if (op.id_hex == r.operator_id) l = OperatorLocation(op);
  }
  l.operator_id = r.operator_id;
  l.subtask = r.subtask;
  l.file = file;
  return l;
}

Status CheckFlinkFiles(ValidateContext& ctx, const Snapshot& s, const flink::Metadata& md) {
  for (const char* r : {"CKPT-F001", "CKPT-F002", "CKPT-F004"}) ctx.Checked(r);
  const bool deep = ctx.options().deep;
  if (deep) ctx.Checked("CKPT-K006");
  std::vector<std::string> seen;
  for (const FlinkFileRef& r : CollectFiles(md)) {
    if (ctx.progress().cancelled()) return Status::Cancelled("validate cancelled");
    const flink::StreamHandle& h = *r.handle;
    auto local = flink::HandleLocation(md, h);
    if (!local.ok()) {
      ctx.Add("CKPT-F004", RefLocation(s, r, h.path), local.status().message());
      continue;
    }
    const std::string shown = h.type == flink::StreamHandle::Type::kRelativeFile ? h.path : *local;
    const Location loc = RefLocation(s, r, shown);
    const bool first = std::find(seen.begin(), seen.end(), *local) == seen.end();
    if (first) seen.push_back(*local);
    auto info = FsOfSnapshotFile(ctx.fs(), s.dir, *local).Stat(*local);
    if (!info.ok()) {
      if (!info.status().IsNotFound()) return info.status();
      if (first) ctx.Add("CKPT-F001", loc, *local + " does not exist");
      continue;
    }
    if (first) {
      ++ctx.report().files_checked;
      ctx.report().bytes_checked += info->size_bytes;
    }
    // A segment's size is the segment's, not the physical file's.
    const uint64_t end = h.type == flink::StreamHandle::Type::kSegmentFile
                             ? static_cast<uint64_t>(h.start_pos + h.size)
                             : static_cast<uint64_t>(h.size);
    const bool size_ok = h.type == flink::StreamHandle::Type::kSegmentFile || r.size_is_lower_bound
                             ? info->size_bytes >= end
                             : info->size_bytes == end;
    if (!size_ok && first) {
      ctx.Add("CKPT-F002", loc,
              *local + ": " + std::to_string(info->size_bytes) + " bytes, the handle records " +
                  std::to_string(end));
    }
    if (deep && r.key_groups != nullptr) {
      const uint64_t base = h.type == flink::StreamHandle::Type::kSegmentFile
                                ? static_cast<uint64_t>(h.start_pos)
                                : 0;
      for (size_t i = 0; i < r.key_groups->offsets.size(); ++i) {
        const int64_t off = r.key_groups->offsets[i];
        ++ctx.report().records_checked;
        if (off < 0 || base + static_cast<uint64_t>(off) > info->size_bytes) {
          Location l = loc;
          l.key_group = static_cast<uint32_t>(r.key_groups->start) + static_cast<uint32_t>(i);
          ctx.Add("CKPT-K006", l,
                  *local + ": key group " + std::to_string(*l.key_group) + " starts at byte " +
                      std::to_string(off) + ", beyond the file's " +
                      std::to_string(info->size_bytes) + " bytes");
        }
      }
    }
  }
  return Status::OK();
}

// --deep: every operator's state decoded as dump decodes it (key-group streams, heap key groups,
// RocksDB instances with their SST checksums, operator state), the operators on several threads
// (RunParallelChecks). A decoding error is CKPT-D001 at the operator; a layout this reader cannot
// decode is recorded as not checked, never as passed.
Status DecodeFlinkState(ValidateContext& ctx, const Snapshot& s) {
  ctx.Checked("CKPT-D001");
  std::vector<const OperatorInfo*> with_state;
  for (const auto& op : s.operators) {
    if (op.has_state) with_state.push_back(&op);
  }
  SharedProgress progress(ctx.progress(), 0);
  const base::Progress for_threads = progress.ForThreads();
  return RunParallelChecks(ctx, with_state.size(), for_threads, [&](ValidateContext& op_ctx,
                                                                     size_t i) {
    const OperatorInfo& op = *with_state[i];
    if (op_ctx.progress().cancelled()) return Status::Cancelled("validate cancelled");
    DumpOptions options;
    options.operator_ref = op.id_hex;
    uint64_t entries = 0;
    // Entries dump keeps as their bytes (a serializer snapshot this reader does not understand):
    // their framing was read, their values were not checked.
    uint64_t opaque = 0;
    std::string first_opaque;
    auto n = DumpFlink(op_ctx.fs(), s, options, [&](const DumpEntry& d) {
      ++entries;
      for (const std::string* j : {&d.key_json, &d.namespace_json, &d.user_key_json, &d.value_json}) {
        if (j->starts_with("{\"serializer\":")) {
          if (opaque++ == 0) {
            const size_t from = std::string_view("{\"serializer\":\"").size();
            first_opaque = "state '" + d.state + "', serializer " + j->substr(from, j->find('"', from) - from);
          }
          break;
        }
      }
      return Status::OK();
    }, op_ctx.progress());
    const Location loc = OperatorLocation(op);
    if (n.ok()) {
      op_ctx.report().records_checked += entries - opaque;
      if (opaque > 0) {
        op_ctx.NotChecked("CKPT-D001", loc,
                          std::to_string(opaque) +
                              " record(s) kept as their bytes, their values not checked "
                              "(serializer not decodable here; first: " + first_opaque + ")");
      }
      return Status::OK();
    }
    const Status& st = n.status();
    if (st.code() == base::StatusCode::kCancelled || st.code() == base::StatusCode::kIOError) return st;
    if (st.IsNotFound()) return Status::OK();  // a missing file: CKPT-F001 already names it
    if (st.code() == base::StatusCode::kUnimplemented) {
      op_ctx.NotChecked("CKPT-D001", loc, st.message());
    } else {
      op_ctx.Add("CKPT-D001", loc, st.message());
    }
    return Status::OK();
  });
}

}  // namespace

// What Flink does not record, so validate cannot check it: rows "not available for Flink
// snapshots" after the verdict rows, so nothing of this kind passes silently.
void AddFlinkCapabilities(std::vector<Capability>* caps) {
  auto unavailable = [caps](std::string operation, std::string why) {
    Capability c;
    c.operation = std::move(operation);
    c.supported = false;
    c.note = "not available for Flink snapshots: " + std::move(why);
    caps->push_back(std::move(c));
  };
  unavailable("checksum verification (CKPT-F003, CKPT-F006, CKPT-M005)",
              "Flink stores no checksums");
  unavailable("job graph checks (edges, chaining, CKPT-T004)", "_metadata holds no job graph");
  unavailable("key-group coverage (CKPT-K001)",
              "Flink writes nothing for a subtask whose state is empty");
  unavailable("engine version check", "_metadata records no Flink version");
  unavailable("checkpoint metrics", "Flink keeps them only in memory");
}

base::Result<std::optional<Snapshot>> CheckFlinkMetadata(ValidateContext& ctx,
                                                         const std::string& dir,
                                                         const std::string& metadata) {
  Location where;
  where.file = "_metadata";
  auto md = flink::ReadFlinkMetadata(ctx.fs(), metadata);
  if (!md.ok()) {
    const Status& st = md.status();
    if (st.code() == base::StatusCode::kIOError) return st;
    const std::string& m = st.message();
    if (st.code() == base::StatusCode::kUnimplemented) {
      ctx.Add("CKPT-M003", where, m);
    } else if (Contains(m, "bad magic")) {
      ctx.Add("CKPT-M002", where, m);
    } else if (Contains(m, "truncated")) {
      ctx.Add("CKPT-M004", where, m);
    } else if (Contains(m, "may not escape")) {
      ctx.Add("CKPT-F004", where, m);
    } else {
      ctx.Add("CKPT-M006", where, m);
    }
    return std::optional<Snapshot>();
  }
  // The operators decoded, but Flink's restore also reads the CheckpointProperties that end a
  // v4+ file: a missing, cut or over-long trailer is a file cut short or appended to (M004),
  // one that does not decode a damaged payload (M006).
  const Status props = flink::PropertiesStatus(*md);
  if (!props.ok()) {
    const std::string& m = props.message();
    ctx.Add(Contains(m, "truncated") || Contains(m, "trailing bytes") ? "CKPT-M004" : "CKPT-M006",
            where, m);
  }
  return std::optional<Snapshot>(BuildFlinkSnapshotModel(ctx.fs(), std::move(md).value(), dir));
}

base::Status ValidateFlinkSnapshot(ValidateContext& ctx, const Snapshot& s) {
  const flink::Metadata& md = *FlinkMetadataOf(s);
  std::string label = "flink " + std::string(SnapshotKindName(s.kind));
  if (s.kind == SnapshotKind::kSavepoint) {
    label += " (" + std::string(SavepointFormatName(s.savepoint_format)) + ")";
  } else if (s.checkpoint_type != CheckpointType::kUnspecified) {
    label += " (" + std::string(CheckpointTypeName(s.checkpoint_type)) +
             (s.metrics.is_unaligned ? ", unaligned" : "") + ")";
  }
  ctx.report().snapshot_type = label + ", metadata v" + std::to_string(md.version);
  CheckStructure(ctx, s);
  // Flink has no job graph ("state of an operator missing from the job graph" does not apply),
  // and it writes no state at all for a subtask whose state is empty, so key groups of such a
  // subtask are legitimately covered by no handle.
  auto& f = ctx.report().findings;
  f.erase(std::remove_if(f.begin(), f.end(),
                         [](const Finding& x) {
                           return x.rule_id == "CKPT-T004" || x.rule_id == "CKPT-K001";
                         }),
          f.end());
  CKPT_RETURN_IF_ERROR(CheckFlinkFiles(ctx, s, md));
  if (ctx.options().deep) CKPT_RETURN_IF_ERROR(DecodeFlinkState(ctx, s));
  if (!ctx.options().against_job.empty()) CKPT_RETURN_IF_ERROR(CheckAgainst(ctx, s));
  return Status::OK();
}

}  // namespace ckpt::ops::internal
