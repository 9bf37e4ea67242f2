// DumpFlink: see formats/flink/dump.h. Composite keys are [key-group prefix][key][namespace][user key]
// (RocksDB layout, also used by full snapshots); list values are elements separated by one
// delimiter byte; map values are [bool isNull][value]; timers are [kg][timestamp with its sign
// bit flipped][key][namespace] with an empty value. Heap checkpoints (keyed tag 12) use the heap
// backend's own layout instead (HeapSnapshotStrategy): per key group i32 key-group id, then per
// registered state i16 state id and i32 n entries of (namespace, key, state value) — for
// priority-queue (timer) state n timers — each section Snappy-framed when compressed.
#include "formats/flink/dump.h"

#include <algorithm>
#include <map>
#include <set>

#include "ckpt/flink/data_input.h"
#include "ckpt/flink/key_group_stream.h"
#include "ckpt/flink/snappy_frames.h"
#ifdef CKPT_HAVE_FLINK_ROCKSDB
#include "ckpt/flink/rocksdb_snapshot.h"
#endif
#include "ckpt/flink/value_decoder.h"
#include "ckpt/ops/operator_label.h"
#include "formats/flink/changelog_replay.h"
#include "formats/flink/model.h"
#include "formats/flink/streams.h"

namespace ckpt::ops::internal {
namespace {

using base::Status;
using flink::SerializerSnapshot;
using Tag = flink::KeyedHandle::Tag;

// Why a serializer's bytes are shown as they are (only where a reason beyond "not built in" is
// known).
std::string OpaqueNote(const SerializerSnapshot* s) {
  if (s == nullptr) return "";
  if (s->class_name.find("kryo.Kryo") != std::string::npos) {
    return "Kryo" + (s->outer.empty() ? std::string() : " (" + s->outer + ")") +
           ": the bytes depend on the job's Kryo registrations and classes (class ids, field "
           "order), which the snapshot does not hold";
  }
  if (!s->decoded) return "serializer snapshot not understood by this reader; the bytes as written";
  if (s->class_name.find("PojoSerializerSnapshot") != std::string::npos) {
    return "Pojo with a field whose serializer is not built in";
  }
  return "";
}

std::string Opaque(const SerializerSnapshot* s, std::string_view bytes) {
  std::string cls = s == nullptr ? "unknown" : s->class_name;
  const std::string note = OpaqueNote(s);
  return "{\"serializer\":\"" + cls + "\"," + (note.empty() ? "" : "\"note\":\"" + note + "\",") +
         "\"bytes\":" + flink::HexJson(bytes) + "}";
}

// TtlStateFactory$TtlSerializer (a CompositeSerializer): nested [LongSerializer (last access),
// user value serializer]; its fields are written in that order.
bool IsTtl(const SerializerSnapshot* s) {
  return s != nullptr && s->nested.size() == 2 &&
         s->class_name.ends_with("TtlStateFactory$TtlSerializerSnapshot");
}

// The TtlSerializer of a state's values (a value's, a list element's, a map value's); nullptr
// when its values are not TTL-wrapped.
const SerializerSnapshot* TtlOf(StateKind kind, const SerializerSnapshot* vs) {
  if (vs == nullptr) return nullptr;
  if (kind == StateKind::kList && vs->nested.size() == 1) {
    return IsTtl(&vs->nested[0]) ? &vs->nested[0] : nullptr;
  }
  if (kind == StateKind::kMap && vs->nested.size() == 2) {
    return IsTtl(&vs->nested[1]) ? &vs->nested[1] : nullptr;
  }
  return IsTtl(vs) ? vs : nullptr;
}

// Decodes exactly `bytes` as one value of `s`; otherwise the opaque form.
std::string Whole(const SerializerSnapshot* s, std::string_view bytes, const std::string& file) {
  if (s == nullptr || !flink::CanDecode(*s)) return Opaque(s, bytes);
  flink::DataInput in(bytes, file);
  std::string json;
  if (!flink::DecodeValueJson(*s, in, &json).ok() || !in.at_end()) return Opaque(s, bytes);
  return json;
}

class FlinkDumper {
 public:
  FlinkDumper(base::Fs& fs, const flink::Metadata& md, const flink::OperatorState& op,
              const DumpOptions& options, const DumpSink& sink, const base::Progress& progress,
              FlinkKeySizing* sizing, FlinkTtlScan* ttl)
      : fs_(fs), md_(md), op_(op), options_(options), sink_(sink), progress_(progress),
        sizing_(sizing), ttl_(ttl) {}

  uint64_t emitted() const { return emitted_; }

  Status Subtask(const flink::SubtaskState& st) {
    subtask_ = static_cast<uint32_t>(st.index);
    CKPT_RETURN_IF_ERROR(Keyed(st.managed_keyed));
    // A handle holds its key groups whole: none of them continues in another handle.
    if (sizing_ != nullptr) sizing_->tally->CloseAll();
    if (options_.key_json.empty() && !options_.key_group) {
      if (st.managed_operator) CKPT_RETURN_IF_ERROR(OperatorHandle(*st.managed_operator));
    }
    return Status::OK();
  }

 private:
  void Label(DumpEntry* d) const {
    d->operator_id = op_.IdHex();
    d->operator_name = OperatorLabel(op_.name, op_.uid, d->operator_id);
  }

  Status Keyed(const flink::KeyedHandle& h) {
    switch (h.tag) {
      case Tag::kNull:
        return Status::OK();
      case Tag::kSavepointKeyGroups:
      case Tag::kKeyGroups:
        return KeyGroups(h, /*heap=*/false);
      case Tag::kKeyGroupsV2:
        return KeyGroups(h, /*heap=*/true);
      case Tag::kIncremental:
      case Tag::kIncrementalV2:
        return RocksDb(h);
      case Tag::kChangelog:
      case Tag::kChangelogV2:
        return Changelog(h);
      default:
        return Status::Unimplemented(
            "dump of a bare Flink changelog increment (tag " + std::to_string(static_cast<int>(h.tag)) +
            ") outside a changelog handle is not supported");
    }
  }

  // ---- Changelog state backend (keyed tags 8/14): formats/flink/changelog_replay.h -----------------
  Status Changelog(const flink::KeyedHandle& h) {
    // The base: captured unfiltered by the sink (filters apply when the table is emitted).
    DumpTable base;
    capture_ = &base;
    for (const auto& m : h.materialized) {
      const Status st = Keyed(m);
      if (!st.ok()) {
        capture_ = nullptr;
        return st;
      }
    }
    capture_ = nullptr;
    DumpEntry label;
    Label(&label);
    label.subtask = subtask_;
    CKPT_ASSIGN_OR_RETURN(ReplayedChangelog r,
                          ReplayChangelog(fs_, md_, h, std::move(base), label, progress_));
    if (sizing_ != nullptr) {
      // Replay merges log changes into values (appends, puts over the base): the merged values
      // have no serialized form in the snapshot to measure.
      sizing_->unknown =
          "Apache Flink changelog handles: replayed values have no stored serialized size";
    }
    if (ttl_ != nullptr) {
      ttl_->unknown = "Apache Flink changelog handles: TTL values are not read from replayed state";
    }
    replaying_ = true;
    for (const auto& [id, d] : r.table) {
      if (!Wanted(d)) continue;
      CKPT_RETURN_IF_ERROR(Out(d));
    }
    for (const auto& d : r.opaque) {
      if (!options_.state.empty() && d.state != options_.state) continue;
      if (options_.key_group && d.key_group && *options_.key_group != *d.key_group) continue;
      CKPT_RETURN_IF_ERROR(Out(d));
    }
    replaying_ = false;
    return Status::OK();
  }

  bool Wanted(const DumpEntry& d) const {
    if (!options_.state.empty() && d.state != options_.state) return false;
    if (!options_.key_json.empty() && d.key_json != options_.key_json) return false;
    if (options_.key_group && d.key_group && *options_.key_group != *d.key_group) return false;
    return true;
  }

  // Operator state: the OperatorBackendSerializationProxy, then each list element at its offset
  // (serialized by the state's VALUE_SERIALIZER) or, for broadcast state, at its one offset
  // i32 n followed by n (key, value) pairs.
  Status OperatorHandle(const flink::OperatorHandle& h) {
    if (h.states.empty()) return Status::OK();
    const std::string file = StreamName(md_, h.delegate);
    CKPT_ASSIGN_OR_RETURN(std::string bytes, ReadStreamBytes(fs_, md_, h.delegate));
    // The meta information ends where the first state entry starts: that bounds an unknown
    // serializer snapshot of its last state.
    std::vector<int64_t> entry_offsets;
    for (const auto& e : h.states) entry_offsets.insert(entry_offsets.end(), e.offsets.begin(), e.offsets.end());
    CKPT_ASSIGN_OR_RETURN(flink::OperatorBackendMeta meta,
                          flink::ReadOperatorBackendMeta(flink::StreamMetaBytes(bytes, entry_offsets), file));
    // Snapshot compression (proxy v6, compressed): each state is its own Snappy-framed stream
    // (DefaultOperatorStateBackendSnapshotStrategy opens one per state) and every entry offset is
    // a chunk boundary (CompressibleFSDataOutputStream flushes the compressor before it reports a
    // position), so an entry is the decompressed chunks from its offset to the next entry's.
    std::set<uint64_t> starts;
    if (meta.compressed) {
      for (const auto& e : h.states) {
        for (int64_t off : e.offsets) {
          if (off >= 0) starts.insert(static_cast<uint64_t>(off));
        }
      }
    }
    for (const auto& e : h.states) {
      if (!options_.state.empty() && e.name != options_.state) continue;
      const bool broadcast = e.mode == flink::DistributionMode::kBroadcast;
      const flink::StateMetaInfo* info = nullptr;
      for (const auto& st : broadcast ? meta.broadcast_states : meta.states) {
        if (st.name == e.name) info = &st;
      }
      const SerializerSnapshot* vs = info ? info->Serializer("VALUE_SERIALIZER") : nullptr;
      const SerializerSnapshot* ks = info ? info->Serializer("KEY_SERIALIZER") : nullptr;
      DumpEntry d;
      Label(&d);
      d.state = e.name;
      d.kind = broadcast ? StateKind::kBroadcast
               : e.mode == flink::DistributionMode::kUnion ? StateKind::kOperatorUnion
                                                            : StateKind::kOperatorList;
      d.subtask = subtask_;
      for (size_t i = 0; i < e.offsets.size(); ++i) {
        const int64_t off = e.offsets[i];
        if (off < 0 || static_cast<uint64_t>(off) > bytes.size()) {
          return Status::Corruption(file + ": at byte " + std::to_string(off) +
                                    ": operator state '" + e.name + "' entry beyond the stream");
        }
        std::string plain;
        std::string where = file;
        std::string_view data = std::string_view(bytes).substr(static_cast<size_t>(off));
        uint64_t data_offset = static_cast<uint64_t>(off);
        if (meta.compressed) {
          auto next = starts.upper_bound(static_cast<uint64_t>(off));
          const uint64_t end = next == starts.end() ? bytes.size() : *next;
          CKPT_ASSIGN_OR_RETURN(plain, flink::DecompressSnappyFrames(
                                           data.substr(0, static_cast<size_t>(end - static_cast<uint64_t>(off))),
                                           file, static_cast<uint64_t>(off)));
          where = file + " (Snappy frames from byte " + std::to_string(off) + ")";
          data = plain;
          data_offset = 0;
        }
        flink::DataInput in(data, where, data_offset);
        if (broadcast) {
          if (ks == nullptr || vs == nullptr || !flink::CanDecode(*ks) || !flink::CanDecode(*vs)) {
            d.user_key_json = "null";
            d.value_json = Opaque(vs, "");
            ++emitted_;
            CKPT_RETURN_IF_ERROR(sink_(d));
            continue;
          }
          CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("broadcast state size", 1));
          for (uint32_t j = 0; j < n; ++j) {
            d.user_key_json.clear();
            d.value_json.clear();
            CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*ks, in, &d.user_key_json));
            CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*vs, in, &d.value_json));
            ++emitted_;
            CKPT_RETURN_IF_ERROR(sink_(d));
          }
          continue;
        }
        d.value_json.clear();
        if (vs != nullptr && flink::CanDecode(*vs)) {
          CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*vs, in, &d.value_json));
        } else {
          // Element boundaries are unknown without the serializer: the bytes up to the next
          // element's offset (or the stream's end).
          if (meta.compressed) {
            d.value_json = Opaque(vs, plain);  // exactly this entry's chunks
          } else {
            uint64_t end = bytes.size();
            if (i + 1 < e.offsets.size() && e.offsets[i + 1] > off) end = static_cast<uint64_t>(e.offsets[i + 1]);
            d.value_json = Opaque(vs, std::string_view(bytes).substr(static_cast<size_t>(off),
                                                                     end - static_cast<uint64_t>(off)));
          }
        }
        ++emitted_;
        CKPT_RETURN_IF_ERROR(sink_(d));
      }
    }
    return Status::OK();
  }

  // Tag 7 holds the full-snapshot layout (FullSnapshotAsyncWriter); tags 3 and 12 (the same
  // handle with a state handle id) hold either that layout (RocksDB full checkpoints, Flink
  // 1.15-1.19) or the heap backend's (HeapSnapshotStrategy): LooksLikeHeap decides.
  Status KeyGroups(const flink::KeyedHandle& h, bool heap) {
    const flink::KeyGroupsHandle& kg = *h.key_groups;
    const std::string file = StreamName(md_, kg.delegate);
    CKPT_ASSIGN_OR_RETURN(std::string bytes, ReadStreamBytes(fs_, md_, kg.delegate));
    if (static_cast<int64_t>(bytes.size()) != kg.delegate.size && kg.delegate.size > 0) {
      return Status::Corruption(file + ": " + std::to_string(bytes.size()) +
                                " bytes, the handle records " + std::to_string(kg.delegate.size) +
                                " (truncated key-group stream)");
    }
    CKPT_ASSIGN_OR_RETURN(flink::KeyedBackendMeta meta,
                          flink::ReadKeyedBackendMeta(flink::StreamMetaBytes(bytes, kg.offsets), file));
    NoteTtlStates(meta);
    // A key group's section ends where the next one starts (or at the stream's end).
    std::set<uint64_t> starts;
    for (int64_t off : kg.offsets) {
      if (off > 0) starts.insert(static_cast<uint64_t>(off));
    }
    if (h.tag == Tag::kKeyGroups || h.tag == Tag::kKeyGroupsV2) {
      heap = LooksLikeHeap(meta, kg, bytes, starts, file, h.tag == Tag::kKeyGroupsV2);
    }
    for (size_t i = 0; i < kg.offsets.size(); ++i) {
      const uint32_t group = static_cast<uint32_t>(kg.start) + static_cast<uint32_t>(i);
      if (options_.key_group && *options_.key_group != group) continue;
      const int64_t off = kg.offsets[i];
      if (off <= 0 || static_cast<uint64_t>(off) < meta.size_bytes) continue;  // empty group
      if (static_cast<uint64_t>(off) > bytes.size()) {
        return Status::Corruption(file + ": at byte " + std::to_string(off) + ": key group " +
                                  std::to_string(group) + " starts beyond the " +
                                  std::to_string(bytes.size()) + "-byte stream");
      }
      if (progress_.cancelled()) return Status::Cancelled("dump cancelled");
      auto next = starts.upper_bound(static_cast<uint64_t>(off));
      const uint64_t end = next == starts.end() ? bytes.size() : std::min<uint64_t>(*next, bytes.size());
      const std::string_view section =
          std::string_view(bytes).substr(static_cast<size_t>(off), static_cast<size_t>(end - static_cast<uint64_t>(off)));
      // Key groups come one after the other: the previous one is complete.
      if (sizing_ != nullptr) sizing_->tally->CloseAll();
      if (heap) {
        CKPT_RETURN_IF_ERROR(HeapKeyGroup(meta, group, section, static_cast<uint64_t>(off), file));
        continue;
      }
      if (meta.compressed) {
        // The whole section (state ids, entries, end mark) is one Snappy-framed stream.
        CKPT_ASSIGN_OR_RETURN(std::string plain,
                              flink::DecompressSnappyFrames(section, file, static_cast<uint64_t>(off)));
        const std::string where = file + " (Snappy section of key group " + std::to_string(group) + ")";
        CKPT_RETURN_IF_ERROR(flink::ReadKeyGroupSection(
            plain, 0, where, [&](const flink::KeyGroupEntry& e) { return Emit(meta, group, e, where); }));
        continue;
      }
      CKPT_RETURN_IF_ERROR(flink::ReadKeyGroupSection(
          bytes, static_cast<uint64_t>(off), file,
          [&](const flink::KeyGroupEntry& e) { return Emit(meta, group, e, file); }));
    }
    return Status::OK();
  }

  // A native RocksDB handle (tags 5/11): its instance's files read through the Fs seam, the
  // instance through librocksdb in memory; one column family per state, keys in the layout of
  // the full snapshot format (which is a scan of this instance), so Emit decodes both.
  Status RocksDb(const flink::KeyedHandle& h) {
#ifdef CKPT_HAVE_FLINK_ROCKSDB
    CKPT_ASSIGN_OR_RETURN(flink::KeyedBackendMeta meta, ReadKeyedMeta(fs_, md_, h));
    NoteTtlStates(meta);
    std::vector<flink::RocksDbFile> files;
    for (const auto* list : {&h.shared_files, &h.private_files}) {
      for (const auto& lp : *list) {
        if (progress_.cancelled()) return Status::Cancelled("dump cancelled");
        flink::RocksDbFile f;
        f.local_name = lp.local_path;
        f.source = StreamName(md_, lp.handle);
        CKPT_ASSIGN_OR_RETURN(f.bytes, ReadStreamBytes(fs_, md_, lp.handle));
        if (lp.handle.size > 0 && static_cast<int64_t>(f.bytes.size()) != lp.handle.size &&
            lp.handle.type != flink::StreamHandle::Type::kByteStream) {
          return Status::Corruption(f.source + ": " + std::to_string(f.bytes.size()) +
                                    " bytes, the handle records " + std::to_string(lp.handle.size) +
                                    " (RocksDB file " + lp.local_path + ")");
        }
        files.push_back(std::move(f));
      }
    }
    const int prefix = flink::KeyGroupPrefixBytes(op_.max_parallelism);
    const std::string where = "RocksDB instance of subtask " + std::to_string(subtask_) + " (backend " +
                              h.backend_id + ")";
    return flink::ReadRocksDbSnapshot(files, [&](const flink::RocksDbEntry& e) -> Status {
      size_t sid = meta.states.size();
      for (size_t i = 0; i < meta.states.size(); ++i) {
        if (meta.states[i].name == e.column_family) sid = i;
      }
      if (sid == meta.states.size()) return Status::OK();  // a column family no state declares
      if (e.key.size() < static_cast<size_t>(prefix)) {
        return Status::Corruption(where + ": column family '" + std::string(e.column_family) +
                                  "': key shorter than its key-group prefix");
      }
      uint32_t group = static_cast<uint8_t>(e.key[0]);
      if (prefix == 2) group = group << 8 | static_cast<uint8_t>(e.key[1]);
      // After rescaling an instance may hold key groups beyond its handle's range; Flink drops
      // them on restore, and so does dump.
      if (static_cast<int32_t>(group) < h.kg_start || static_cast<int32_t>(group) > h.kg_end()) {
        return Status::OK();
      }
      if (options_.key_group && *options_.key_group != group) return Status::OK();
      if (progress_.cancelled()) return Status::Cancelled("dump cancelled");
      flink::KeyGroupEntry entry;
      entry.state_id = static_cast<uint16_t>(sid);
      entry.key.assign(e.key);
      entry.value = e.value;
      return Emit(meta, group, entry, where);
    });
#else
    (void)h;
    return Status::Unimplemented("dump of Flink RocksDB native state: this build has no RocksDB");
#endif
  }

  Status Out(const DumpEntry& d) {
    // The TTL values its decoder read belong to this entry only (buffers kept for reuse).
    ttl_out_.swap(ttl_values_);
    ttl_values_.clear();
    if (probing_) return Status::OK();
    if (capture_ != nullptr) {
      (*capture_)[DumpIdentityOf(d)] = d;
      return Status::OK();
    }
    if (sizing_ != nullptr && !replaying_ && d.key_group) Tally(d);
    if (ttl_ != nullptr && !replaying_) {
      for (const auto& [ts, bytes] : ttl_out_) ttl_->value(d.state, ts, bytes);
    }
    ++emitted_;
    return sink_(d);
  }

  // stats --ttl-expired-at: the states of `meta` whose values are TTL-wrapped.
  void NoteTtlStates(const flink::KeyedBackendMeta& meta) {
    if (ttl_ == nullptr) return;
    for (const auto& st : meta.states) {
      if (TtlOf(FlinkStateKind(st), st.Serializer("VALUE_SERIALIZER")) != nullptr) {
        ttl_->ttl_states.insert(st.name);
      }
    }
  }

  // Reads one TtlValue at `in` into ttl_values_: the i64 last access, then the user value (read
  // only to find its end; `rest` when it runs to the end of `in`). Corruption naming the file and
  // byte when the bytes cannot hold the timestamp or the value.
  Status ReadTtlValue(const SerializerSnapshot& ttl, flink::DataInput& in, bool rest,
                      const std::string& state) {
    const uint64_t start = in.offset();
    if (in.remaining() < 8) {
      return in.Error(start, "state '" + state + "': TTL value of " +
                                 std::to_string(in.remaining()) +
                                 " bytes, too short for its 8-byte last-access timestamp");
    }
    CKPT_ASSIGN_OR_RETURN(int64_t ts, in.ReadI64());
    const SerializerSnapshot& user = ttl.nested[1];
    const int fixed = flink::FixedLength(user);
    if (rest) {
      CKPT_RETURN_IF_ERROR(in.Skip(in.remaining()));
    } else if (fixed >= 0) {
      CKPT_RETURN_IF_ERROR(in.Skip(static_cast<uint64_t>(fixed)));
    } else if (flink::CanDecode(user)) {
      scratch_.clear();
      CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(user, in, &scratch_));
    } else {
      ttl_->unknown = "state '" + state + "': TTL list elements whose user serializer (" +
                      user.class_name + ") cannot be decoded (no element boundaries)";
      return in.Skip(in.remaining());
    }
    ttl_values_.emplace_back(ts, in.offset() - start);
    return Status::OK();
  }

  // The TTL values of a full-layout (RocksDB) value `v` of entry `e`: a value state's value is one
  // TtlValue, a list's elements are separated by one delimiter byte, a map value is
  // [bool isNull][TtlValue].
  Status StoredTtl(StateKind kind, const SerializerSnapshot& ttl, std::string_view v,
                   const std::string& file, const flink::KeyGroupEntry& e,
                   const std::string& state) {
    // Offsets within the value are reported from the entry's offset in the stream.
    flink::DataInput in(v, file, e.offset);
    if (kind == StateKind::kMap) {
      CKPT_ASSIGN_OR_RETURN(bool is_null, in.ReadBool());
      if (is_null) return Status::OK();
      return ReadTtlValue(ttl, in, true, state);
    }
    if (kind != StateKind::kList) return ReadTtlValue(ttl, in, true, state);
    bool first = true;
    while (!in.at_end()) {
      if (!first) CKPT_RETURN_IF_ERROR(in.ReadU8().status());
      first = false;
      CKPT_RETURN_IF_ERROR(ReadTtlValue(ttl, in, false, state));
    }
    return Status::OK();
  }

  // stats --top-keys: `entry_bytes_` is the serialized size of the entry `d` (set by its decoder).
  void Tally(const DumpEntry& d) {
    if (d.key_json == "null") {
      sizing_->unknown = "state '" + d.state +
                         "': entries whose serializer cannot be decoded (no entry boundaries)";
      return;
    }
    // A state the operator's stats do not list (Flink declares some only in the stream's meta)
    // still counts for the operator.
    size_t index = sizing_->states.size();
    for (size_t i = 0; i < sizing_->states.size(); ++i) {
      if (sizing_->states[i] == d.state) index = i;
    }
    sizing_->tally->Add(static_cast<uint32_t>(index), *d.key_group, d.key_json, entry_bytes_);
  }

  // Tag 3 is written by the heap backend in its own layout (its checkpoints; its savepoints too
  // before Flink 1.13, when FLIP-41 made them tag 7) and by RocksDB full snapshots in the full
  // layout; tag 12 is the same handle with a state handle id, written by both as well (Flink
  // 1.15's RocksDB full checkpoints among them). The first non-empty key group decides: if it
  // reads as the full layout (declared state ids, every key prefixed by that key group, the end
  // mark exactly at the section's end), the stream is full-layout. Otherwise a tag-12 stream is
  // heap; a tag-3 stream is heap if that key group decodes as heap (without output), else
  // full-layout. The full layout is tried first because the heap layout's leading i32 key-group
  // id is 0 for key group 0, exactly what a full-layout section's i16 state id 0 and the high
  // half of its first key's length read as.
  bool LooksLikeHeap(const flink::KeyedBackendMeta& meta, const flink::KeyGroupsHandle& kg,
                     std::string_view bytes, const std::set<uint64_t>& starts, const std::string& file,
                     bool with_handle_id) {
    for (size_t i = 0; i < kg.offsets.size(); ++i) {
      const int64_t off = kg.offsets[i];
      if (off <= 0 || static_cast<uint64_t>(off) < meta.size_bytes || static_cast<uint64_t>(off) > bytes.size()) continue;
      auto next = starts.upper_bound(static_cast<uint64_t>(off));
      const uint64_t end = next == starts.end() ? bytes.size() : std::min<uint64_t>(*next, bytes.size());
      const std::string_view section =
          bytes.substr(static_cast<size_t>(off), static_cast<size_t>(end - static_cast<uint64_t>(off)));
      std::string plain;
      bool full_readable = !meta.compressed;
      if (meta.compressed) {
        auto unpacked = flink::DecompressSnappyFrames(section, file, static_cast<uint64_t>(off));
        if (unpacked.ok()) {
          plain = std::move(unpacked).value();
          full_readable = true;
        }
      }
      if (full_readable &&
          flink::IsFullLayoutSection(meta.compressed ? std::string_view(plain) : section,
                                     static_cast<uint32_t>(kg.start) + static_cast<uint32_t>(i),
                                     flink::KeyGroupPrefixBytes(op_.max_parallelism), meta.states.size())) {
        return false;
      }
      if (with_handle_id) return true;
      probing_ = true;
      const Status st = HeapKeyGroup(meta, static_cast<uint32_t>(kg.start) + static_cast<uint32_t>(i),
                                     bytes.substr(static_cast<size_t>(off), static_cast<size_t>(end - static_cast<uint64_t>(off))),
                                     static_cast<uint64_t>(off), file);
      probing_ = false;
      return st.ok();
    }
    return false;
  }

  // One key group of a heap snapshot: i32 key-group id, then one section per registered state.
  Status HeapKeyGroup(const flink::KeyedBackendMeta& meta, uint32_t group, std::string_view section,
                      uint64_t offset, std::string file) {
    flink::DataInput head(section, file, offset);
    CKPT_ASSIGN_OR_RETURN(int32_t written, head.ReadI32());
    if (written != static_cast<int32_t>(group)) {
      return head.Error(offset, "key group " + std::to_string(group) + "'s section holds key group " +
                                    std::to_string(written));
    }
    std::string plain;
    std::string_view data = section.substr(4);
    uint64_t data_offset = offset + 4;
    if (meta.compressed) {
      // One framed stream per state section, back to back: decompressed as one.
      CKPT_ASSIGN_OR_RETURN(plain, flink::DecompressSnappyFrames(data, file, data_offset));
      file += " (Snappy section of key group " + std::to_string(group) + ")";
      data = plain;
      data_offset = 0;
    }
    flink::DataInput in(data, file, data_offset);
    for (size_t n = 0; n < meta.states.size(); ++n) {
      const uint64_t at = in.offset();
      CKPT_ASSIGN_OR_RETURN(int16_t sid, in.ReadI16());
      if (sid < 0 || static_cast<size_t>(sid) >= meta.states.size()) {
        return in.Error(at, "state id " + std::to_string(sid) + " of " +
                                std::to_string(meta.states.size()) + " declared states");
      }
      CKPT_ASSIGN_OR_RETURN(bool more, HeapState(meta, meta.states[static_cast<size_t>(sid)], group, in));
      if (!more) return Status::OK();
    }
    return Status::OK();
  }

  // The entries of one state in one key group. False when a serializer is not decodable: the
  // rest of the key group is then emitted as one opaque entry (entry boundaries are unknown).
  base::Result<bool> HeapState(const flink::KeyedBackendMeta& meta, const flink::StateMetaInfo& st,
                               uint32_t group, flink::DataInput& in) {
    const bool timers = st.backend_type == flink::StateMetaInfo::BackendType::kPriorityQueue;
    const SerializerSnapshot* ks = &meta.key_serializer;
    const SerializerSnapshot* ns = st.Serializer("NAMESPACE_SERIALIZER");
    const SerializerSnapshot* vs = st.Serializer("VALUE_SERIALIZER");
    if (timers) {
      ks = vs != nullptr && vs->nested.size() == 2 ? &vs->nested[0] : nullptr;
      ns = vs != nullptr && vs->nested.size() == 2 ? &vs->nested[1] : nullptr;
    }
    const StateKind kind = FlinkStateKind(st);
    const bool map = kind == StateKind::kMap && vs != nullptr && vs->nested.size() == 2;
    const SerializerSnapshot* ttl = timers ? nullptr : TtlOf(kind, vs);
    const bool wanted = options_.state.empty() || st.name == options_.state;
    DumpEntry d;
    Label(&d);
    d.state = st.name;
    d.kind = kind;
    d.subtask = subtask_;
    d.key_group = group;
    CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount(timers ? "timer count" : "entry count", 1));
    const bool decodable = ks != nullptr && ns != nullptr && flink::CanDecode(*ks) && flink::CanDecode(*ns) &&
                           (timers || (vs != nullptr && flink::CanDecode(*vs)));
    if (!decodable) {
      if (n == 0) return true;
      if (ttl_ != nullptr && ttl != nullptr && !probing_) {
        ttl_->unknown = "state '" + st.name +
                        "': heap entries whose serializer cannot be decoded (no entry boundaries)";
      }
      const SerializerSnapshot* culprit =
          ks == nullptr || !flink::CanDecode(*ks) ? ks : ns == nullptr || !flink::CanDecode(*ns) ? ns : vs;
      if (wanted) {
        // Opaque: the bytes from this state's entry count to the end of the key group.
        d.key_json = "null";
        d.namespace_json = "null";
        CKPT_ASSIGN_OR_RETURN(std::string_view rest, in.ReadBytes(in.remaining()));
        d.value_json = "{\"serializer\":\"" + (culprit ? culprit->class_name : std::string("unknown")) +
                       "\",\"entries\":" + std::to_string(n) + ",\"bytes\":" +
                       flink::HexJson(std::string_view(rest)) + "}";
        CKPT_RETURN_IF_ERROR(Out(d));
      }
      return false;
    }
    for (uint32_t i = 0; i < n; ++i) {
      std::string kj, nj, tj;
      const uint64_t entry_start = in.offset();
      if (timers) {
        // TimerSerializer: flipped timestamp, key, namespace.
        CKPT_ASSIGN_OR_RETURN(int64_t ts, in.ReadI64());
        CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*ks, in, &kj));
        CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*ns, in, &nj));
        tj = std::to_string(static_cast<int64_t>(static_cast<uint64_t>(ts) ^ (uint64_t{1} << 63)));
      } else {
        CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*ns, in, &nj));
        CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*ks, in, &kj));
      }
      const bool key_ok = options_.key_json.empty() || kj == options_.key_json;
      d.key_json = kj;
      d.namespace_json = nj;
      d.timestamp_json = tj;
      if (timers) {
        d.value_json = "null";
        ttl_values_.clear();
        entry_bytes_ = in.offset() - entry_start;
        if (wanted && key_ok) {
          CKPT_RETURN_IF_ERROR(Out(d));
        }
        continue;
      }
      if (map) {
        // MapSerializer: i32 n, then (user key, bool isNull, value): one entry per user key. The
        // first map entry carries the key, namespace and map size bytes.
        CKPT_ASSIGN_OR_RETURN(uint32_t m, in.ReadCount("map size", 2));
        uint64_t map_entry_start = entry_start;
        for (uint32_t j = 0; j < m; ++j) {
          d.user_key_json.clear();
          d.value_json.clear();
          CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(vs->nested[0], in, &d.user_key_json));
          CKPT_ASSIGN_OR_RETURN(bool is_null, in.ReadBool());
          ttl_values_.clear();
          if (is_null) {
            d.value_json = "null";
          } else if (ttl_ != nullptr && ttl != nullptr) {
            CKPT_RETURN_IF_ERROR(ReadTtlValue(*ttl, in, false, st.name));
          } else {
            CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(vs->nested[1], in, &d.value_json));
          }
          entry_bytes_ = in.offset() - map_entry_start;
          map_entry_start = in.offset();
          if (wanted && key_ok) {
            CKPT_RETURN_IF_ERROR(Out(d));
          }
        }
        continue;
      }
      d.value_json.clear();
      ttl_values_.clear();
      if (ttl_ != nullptr && ttl != nullptr && kind == StateKind::kList) {
        // ListSerializer: i32 n, then the elements.
        CKPT_ASSIGN_OR_RETURN(uint32_t elements, in.ReadCount("list size", 8));
        for (uint32_t j = 0; j < elements; ++j) {
          CKPT_RETURN_IF_ERROR(ReadTtlValue(*ttl, in, false, st.name));
        }
      } else if (ttl_ != nullptr && ttl != nullptr) {
        CKPT_RETURN_IF_ERROR(ReadTtlValue(*ttl, in, false, st.name));
      } else {
        CKPT_RETURN_IF_ERROR(flink::DecodeValueJson(*vs, in, &d.value_json));
      }
      entry_bytes_ = in.offset() - entry_start;
      if (wanted && key_ok) {
        CKPT_RETURN_IF_ERROR(Out(d));
      }
    }
    return true;
  }

  Status Emit(const flink::KeyedBackendMeta& meta, uint32_t group, const flink::KeyGroupEntry& e,
              const std::string& file) {
    if (e.state_id >= meta.states.size()) {
      return Status::Corruption(file + ": at byte " + std::to_string(e.offset) + ": state id " +
                                std::to_string(e.state_id) + " of " +
                                std::to_string(meta.states.size()) + " declared states");
    }
    const flink::StateMetaInfo& st = meta.states[e.state_id];
    if (!options_.state.empty() && st.name != options_.state) return Status::OK();
    DumpEntry d;
    Label(&d);
    d.state = st.name;
    d.kind = FlinkStateKind(st);
    d.subtask = subtask_;
    d.key_group = group;
    const std::string_view key = std::string_view(e.key).substr(
        std::min<size_t>(e.key.size(), static_cast<size_t>(flink::KeyGroupPrefixBytes(op_.max_parallelism))));
    const SerializerSnapshot* ks = &meta.key_serializer;
    const SerializerSnapshot* ns = st.Serializer("NAMESPACE_SERIALIZER");
    const SerializerSnapshot* vs = st.Serializer("VALUE_SERIALIZER");
    if (d.kind == StateKind::kTimers) {
      // TimerSerializer<key, namespace>: flipped timestamp, key, namespace; value empty.
      const SerializerSnapshot* tk = vs != nullptr && vs->nested.size() == 2 ? &vs->nested[0] : nullptr;
      const SerializerSnapshot* tn = vs != nullptr && vs->nested.size() == 2 ? &vs->nested[1] : nullptr;
      SplitTimer(key, tk, tn, file, &d);
      d.value_json = "null";
    } else {
      SplitKey(key, ks, ns, d.kind == StateKind::kMap ? vs : nullptr, file, &d);
      // stats measures the value without decoding it.
      if (sizing_ == nullptr && ttl_ == nullptr) d.value_json = Value(d.kind, vs, e.value, file);
    }
    ttl_values_.clear();
    if (ttl_ != nullptr && d.kind != StateKind::kTimers) {
      if (const SerializerSnapshot* ttl = TtlOf(d.kind, vs)) {
        CKPT_RETURN_IF_ERROR(StoredTtl(d.kind, *ttl, e.value, file, e, st.name));
      }
    }
    entry_bytes_ = key.size() + e.value.size();
    if (!options_.key_json.empty() && d.key_json != options_.key_json) return Status::OK();
    return Out(d);
  }

  // Splits [key][namespace][user key] by decoding left to right; what cannot be decoded stays
  // opaque as a whole (never split at a guessed boundary).
  void SplitKey(std::string_view key, const SerializerSnapshot* ks, const SerializerSnapshot* ns,
                const SerializerSnapshot* map, const std::string& file, DumpEntry* d) {
    const SerializerSnapshot* uk = map != nullptr && map->nested.size() == 2 ? &map->nested[0] : nullptr;
    flink::DataInput in(key, file);
    std::string kj, nj, uj;
    bool ok = ks != nullptr && flink::CanDecode(*ks) && flink::DecodeValueJson(*ks, in, &kj).ok();
    ok = ok && ns != nullptr && flink::CanDecode(*ns) && flink::DecodeValueJson(*ns, in, &nj).ok();
    if (ok && map != nullptr) {
      ok = uk != nullptr && flink::CanDecode(*uk) && flink::DecodeValueJson(*uk, in, &uj).ok();
    }
    ok = ok && in.at_end();
    if (ok) {
      d->key_json = kj;
      d->namespace_json = nj;
      if (map != nullptr) d->user_key_json = uj;
      return;
    }
    d->key_json = Opaque(ks, key);
    d->namespace_json = "null";
  }

  void SplitTimer(std::string_view key, const SerializerSnapshot* tk, const SerializerSnapshot* tn,
                  const std::string& file, DumpEntry* d) {
    flink::DataInput in(key, file);
    auto ts = in.ReadI64();
    std::string kj, nj;
    bool ok = ts.ok() && tk != nullptr && flink::CanDecode(*tk) && flink::DecodeValueJson(*tk, in, &kj).ok();
    ok = ok && tn != nullptr && flink::CanDecode(*tn) && flink::DecodeValueJson(*tn, in, &nj).ok();
    ok = ok && in.at_end();
    if (!ok) {
      d->key_json = Opaque(tk, key);
      d->namespace_json = "null";
      return;
    }
    d->key_json = kj;
    d->namespace_json = nj;
    // The timestamp is stored with its sign bit flipped so that byte order is time order.
    const int64_t t = static_cast<int64_t>(static_cast<uint64_t>(*ts) ^ (uint64_t{1} << 63));
    d->timestamp_json = std::to_string(t);
  }

  std::string Value(StateKind kind, const SerializerSnapshot* vs, std::string_view v,
                    const std::string& file) {
    if (kind == StateKind::kList && vs != nullptr && vs->nested.size() == 1 &&
        flink::CanDecode(vs->nested[0])) {
      // Elements separated by one delimiter byte.
      flink::DataInput in(v, file);
      std::string json = "[";
      bool first = true;
      while (!in.at_end()) {
        if (!first) {
          auto delim = in.ReadU8();
          if (!delim.ok()) return Opaque(vs, v);
        }
        if (!first) json += ",";
        if (!flink::DecodeValueJson(vs->nested[0], in, &json).ok()) return Opaque(vs, v);
        first = false;
      }
      return json + "]";
    }
    if (kind == StateKind::kMap && vs != nullptr && vs->nested.size() == 2) {
      if (v.empty()) return Opaque(vs, v);
      if (v[0] != 0) return "null";
      return Whole(&vs->nested[1], v.substr(1), file);
    }
    return Whole(vs, v, file);
  }

  base::Fs& fs_;
  const flink::Metadata& md_;
  const flink::OperatorState& op_;
  const DumpOptions& options_;
  const DumpSink& sink_;
  const base::Progress& progress_;
  uint32_t subtask_ = 0;
  uint64_t emitted_ = 0;
  bool probing_ = false;  // LooksLikeHeap: decode without output
  DumpTable* capture_ = nullptr;  // changelog base: entries go here
  FlinkKeySizing* sizing_ = nullptr;  // stats --top-keys
  FlinkTtlScan* ttl_ = nullptr;       // stats --ttl-expired-at
  // The TTL values (last access, bytes) of the entry being emitted.
  std::vector<std::pair<int64_t, uint64_t>> ttl_values_;
  std::vector<std::pair<int64_t, uint64_t>> ttl_out_;  // those of the entry Out handles
  std::string scratch_;  // decoded user values of TTL list elements (discarded)
  bool replaying_ = false;            // emitting a replayed changelog table
  uint64_t entry_bytes_ = 0;          // serialized bytes of the entry being emitted
};

}  // namespace

base::Result<uint64_t> DumpFlink(base::Fs& fs, const Snapshot& snapshot, const DumpOptions& options,
                                 const DumpSink& sink, const base::Progress& progress,
                                 FlinkKeySizing* sizing, FlinkTtlScan* ttl) {
  const flink::Metadata& md = *FlinkMetadataOf(snapshot);
  CKPT_ASSIGN_OR_RETURN(const OperatorInfo* info, snapshot.FindOperator(options.operator_ref));
  const flink::OperatorState* op = nullptr;
  for (const auto& candidate : md.operators) {
    if (candidate.IdHex() == info->id_hex) op = &candidate;
  }
  if (op == nullptr) return uint64_t{0};
  if (options.key_group && *options.key_group >= static_cast<uint32_t>(op->max_parallelism)) {
    return Status::InvalidArgument("--key-group " + std::to_string(*options.key_group) +
                                   " is outside [0, " + std::to_string(op->max_parallelism) + ")");
  }
  std::vector<const flink::SubtaskState*> subtasks;
  for (const auto& st : op->subtasks) subtasks.push_back(&st);
  std::sort(subtasks.begin(), subtasks.end(),
            [](const auto* a, const auto* b) { return a->index < b->index; });
  FlinkDumper dumper(fs, md, *op, options, sink, progress, sizing, ttl);
  uint64_t done = 0;
  for (const auto* st : subtasks) {
    CKPT_RETURN_IF_ERROR(dumper.Subtask(*st));
    progress.Report(++done, subtasks.size(), "dump");
  }
  return dumper.emitted();
}

}  // namespace ckpt::ops::internal
