// ReplayChangelog: see formats/flink/changelog_replay.h. Change records as changelog.h reads them.
#include "formats/flink/changelog_replay.h"

#include <optional>

#include "ckpt/flink/changelog.h"
#include "ckpt/flink/data_input.h"
#include "ckpt/flink/value_decoder.h"
#include "formats/flink/streams.h"

namespace ckpt::ops::internal {
namespace {

using base::Status;
using flink::SerializerSnapshot;
using Tag = flink::KeyedHandle::Tag;

class Replayer {
 public:
  Replayer(base::Fs& fs, const flink::Metadata& md, const DumpEntry& label, const base::Progress& progress)
      : fs_(fs), md_(md), label_(label), progress_(progress) {}

  base::Result<ReplayedChangelog> Run(const flink::KeyedHandle& h, DumpTable base_entries) {
    Replay r;
    r.table = std::move(base_entries);
    std::optional<flink::KeyedBackendMeta> base;  // the materialized part's meta information
    for (const auto& m : h.materialized) {
      auto meta = ReadKeyedMeta(fs_, md_, m);
      if (meta.ok()) {
        base = std::move(meta).value();
        break;
      }
    }
    // Every change of the log tail, in order: change sets in handle order, each in file order.
    struct Located {
      flink::StateChange change;
      std::string where;
    };
    std::vector<Located> log;
    std::map<std::string, std::string> files;  // path -> bytes (handles share files)
    for (const auto& inc : h.non_materialized) {
      if (progress_.cancelled()) return Status::Cancelled("dump cancelled");
      if (inc.tag == Tag::kChangelogBytes) {
        for (const auto& c : inc.changes) log.push_back({c, "in-memory changelog increment in _metadata"});
        continue;
      }
      for (const auto& [offset, handle] : inc.handles_and_offsets) {
        const std::string name = StreamName(md_, handle);
        auto it = files.find(name);
        if (it == files.end()) {
          CKPT_ASSIGN_OR_RETURN(std::string bytes, ReadStreamBytes(fs_, md_, handle));
          it = files.emplace(name, std::move(bytes)).first;
        }
        CKPT_ASSIGN_OR_RETURN(std::vector<flink::StateChange> changes,
                              flink::ReadChangeSet(it->second, offset, name));
        const std::string where = name + " (change set at " + std::to_string(offset) + ")";
        for (auto& c : changes) log.push_back({std::move(c), where});
      }
    }
    // Pass 1: the meta information, for the key serializer.
    std::vector<flink::ChangelogStateMeta> metas;
    for (const auto& l : log) {
      if (l.change.bytes.empty() ||
          static_cast<uint8_t>(l.change.bytes[0]) != static_cast<uint8_t>(flink::ChangeOp::kMetadata)) {
        continue;
      }
      CKPT_ASSIGN_OR_RETURN(flink::ChangelogStateMeta m, flink::ReadChangelogMetadata(l.change.bytes, l.where));
      metas.push_back(std::move(m));
    }
    if (base) {
      r.key = &base->key_serializer;
    } else {
      for (const auto& m : metas) {
        const SerializerSnapshot* vs = m.info.Serializer("VALUE_SERIALIZER");
        if (m.info.backend_type == flink::StateMetaInfo::BackendType::kPriorityQueue && vs != nullptr &&
            vs->nested.size() == 2) {
          r.key = &vs->nested[0];
          break;
        }
      }
    }
    // Pass 2: apply in order.
    for (const auto& l : log) {
      if (progress_.cancelled()) return Status::Cancelled("dump cancelled");
      const flink::StateChange& c = l.change;
      if (c.key_group != -1 && (c.key_group < h.kg_start || c.key_group > h.kg_end())) continue;
      CKPT_RETURN_IF_ERROR(Apply(r, c, l.where));
    }
    ReplayedChangelog out;
    out.table = std::move(r.table);
    out.opaque = std::move(r.opaque);
    return out;
  }

 private:
  struct Replay {
    DumpTable table;  // (state, key, namespace, user key, timestamp)
    std::map<int16_t, flink::ChangelogStateMeta> states;  // state id -> meta (as of now)
    const SerializerSnapshot* key = nullptr;
    std::map<std::string, std::string> opaque_reason;  // state -> why its changes are bytes
    std::vector<DumpEntry> opaque;                      // their changes, as bytes
  };

  static Status Decode(const SerializerSnapshot* s, flink::DataInput& in, std::string* json) {
    json->clear();
    return flink::DecodeValueJson(*s, in, json);
  }

  static void AppendToList(std::string* list, const std::string& elements_json) {
    // `elements_json`: comma-separated element JSON (no brackets).
    if (elements_json.empty()) return;
    if (list->empty() || *list == "[]" || *list == "null") {
      *list = "[" + elements_json + "]";
      return;
    }
    list->pop_back();
    *list += "," + elements_json + "]";
  }

  // One change record (see changelog.h).
  Status Apply(Replay& r, const flink::StateChange& c, const std::string& where) {
    flink::DataInput in(c.bytes, where);
    CKPT_ASSIGN_OR_RETURN(uint8_t code, in.ReadU8());
    if (code > 8) return in.Error(0, "unknown state change operation " + std::to_string(code));
    const auto op = static_cast<flink::ChangeOp>(code);
    if (op == flink::ChangeOp::kMetadata) {
      CKPT_ASSIGN_OR_RETURN(flink::ChangelogStateMeta m, flink::ReadChangelogMetadata(c.bytes, where));
      const int16_t id = m.state_id;
      r.states[id] = std::move(m);
      return Status::OK();
    }
    const uint64_t id_at = in.offset();
    CKPT_ASSIGN_OR_RETURN(int16_t sid, in.ReadI16());
    auto it = r.states.find(sid);
    if (it == r.states.end()) {
      return in.Error(id_at, "state id " + std::to_string(sid) + " is used before its METADATA change");
    }
    const flink::StateMetaInfo& st = it->second.info;
    const bool timers = st.backend_type == flink::StateMetaInfo::BackendType::kPriorityQueue;
    const SerializerSnapshot* ns = st.Serializer("NAMESPACE_SERIALIZER");
    const SerializerSnapshot* vs = st.Serializer("VALUE_SERIALIZER");
    const StateKind kind = FlinkStateKind(st);
    DumpEntry d = label_;
    d.state = st.name;
    d.kind = kind;
    d.key_group = static_cast<uint32_t>(c.key_group);
    // What cannot be decoded is kept as the change's bytes with the serializer's class name.
    auto opaque = [&](const SerializerSnapshot* culprit, const std::string& why) -> Status {
      r.opaque_reason.emplace(st.name, why);
      DumpEntry o = d;
      o.key_json = "null";
      o.namespace_json = "null";
      o.value_json = "{\"serializer\":\"" + (culprit ? culprit->class_name : std::string("unknown")) +
                     "\",\"change\":\"" + std::string(flink::ChangeOpName(op)) + "\",\"note\":\"" + why +
                     "\",\"bytes\":" + flink::HexJson(c.bytes) + "}";
      r.opaque.push_back(std::move(o));
      return Status::OK();
    };
    if (timers) {
      const SerializerSnapshot* tk = vs != nullptr && vs->nested.size() == 2 ? &vs->nested[0] : nullptr;
      const SerializerSnapshot* tn = vs != nullptr && vs->nested.size() == 2 ? &vs->nested[1] : nullptr;
      if (tk == nullptr || tn == nullptr || !flink::CanDecode(*tk) || !flink::CanDecode(*tn)) {
        return opaque(vs, "timer key or namespace serializer not decodable");
      }
      d.value_json = "null";
      auto read_timer = [&](DumpEntry* t) -> Status {
        CKPT_ASSIGN_OR_RETURN(int64_t ts, in.ReadI64());
        CKPT_RETURN_IF_ERROR(Decode(tk, in, &t->key_json));
        CKPT_RETURN_IF_ERROR(Decode(tn, in, &t->namespace_json));
        t->timestamp_json = std::to_string(static_cast<int64_t>(static_cast<uint64_t>(ts) ^ (uint64_t{1} << 63)));
        return Status::OK();
      };
      switch (op) {
        case flink::ChangeOp::kAddElement: {
          CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("timer count", 9));
          for (uint32_t i = 0; i < n; ++i) {
            CKPT_RETURN_IF_ERROR(read_timer(&d));
            r.table[DumpIdentityOf(d)] = d;
          }
          break;
        }
        case flink::ChangeOp::kRemoveElement:
          CKPT_RETURN_IF_ERROR(read_timer(&d));
          r.table.erase(DumpIdentityOf(d));
          break;
        default:
          return in.Error(0, "operation " + std::string(flink::ChangeOpName(op)) + " on timer state '" + st.name + "'");
      }
      if (!in.at_end()) return in.Error("trailing bytes after a change of '" + st.name + "'");
      return Status::OK();
    }
    if (r.key == nullptr || !flink::CanDecode(*r.key)) {
      return opaque(r.key, r.key == nullptr ? "the key serializer is not recorded (no materialized state, no timers)"
                                            : "key serializer not decodable");
    }
    if (ns == nullptr || !flink::CanDecode(*ns)) return opaque(ns, "namespace serializer not decodable");
    if (vs == nullptr || !flink::CanDecode(*vs)) return opaque(vs, "value serializer not decodable");
    CKPT_RETURN_IF_ERROR(Decode(r.key, in, &d.key_json));
    CKPT_RETURN_IF_ERROR(Decode(ns, in, &d.namespace_json));
    const bool list = kind == StateKind::kList && vs->nested.size() == 1;
    const bool map = kind == StateKind::kMap && vs->nested.size() == 2;
    // The entries of (key, namespace): one, or one per user key for map state.
    auto erase_scope = [&](const std::string& state, const std::string& key, const std::string& nsj) {
      for (auto e = r.table.begin(); e != r.table.end();) {
        const auto& [s0, k0, n0, u0, t0] = e->first;
        if (s0 == state && k0 == key && n0 == nsj) {
          e = r.table.erase(e);
        } else {
          ++e;
        }
      }
    };
    switch (op) {
      case flink::ChangeOp::kClear:
        erase_scope(st.name, d.key_json, d.namespace_json);
        break;
      case flink::ChangeOp::kSet:
      case flink::ChangeOp::kSetInternal:
      case flink::ChangeOp::kAdd: {
        if (map) {
          // MapSerializer: i32 n, then (user key, bool isNull, value).
          if (op != flink::ChangeOp::kAdd) erase_scope(st.name, d.key_json, d.namespace_json);
          CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("map size", 2));
          for (uint32_t i = 0; i < n; ++i) {
            CKPT_RETURN_IF_ERROR(Decode(&vs->nested[0], in, &d.user_key_json));
            CKPT_ASSIGN_OR_RETURN(bool is_null, in.ReadBool());
            if (is_null) {
              d.value_json = "null";
            } else {
              CKPT_RETURN_IF_ERROR(Decode(&vs->nested[1], in, &d.value_json));
            }
            r.table[DumpIdentityOf(d)] = d;
          }
          break;
        }
        CKPT_RETURN_IF_ERROR(Decode(vs, in, &d.value_json));
        if (list && op == flink::ChangeOp::kAdd) {
          // addAll: the elements join the list (the JSON array's contents).
          DumpEntry& e = r.table[DumpIdentityOf(d)];
          const std::string add = d.value_json.size() >= 2 ? d.value_json.substr(1, d.value_json.size() - 2) : "";
          std::string merged = e.value_json;
          AppendToList(&merged, add);
          e = d;
          e.value_json = merged.empty() ? "[]" : merged;
          break;
        }
        if (op == flink::ChangeOp::kAdd) {
          return in.Error(0, "ADD on " + std::string(StateKindName(kind)) + " state '" + st.name +
                                 "' (aggregated by a user function: cannot be replayed offline)");
        }
        r.table[DumpIdentityOf(d)] = d;
        break;
      }
      case flink::ChangeOp::kAddElement:
      case flink::ChangeOp::kAddOrUpdateElement: {
        if (map) {
          CKPT_RETURN_IF_ERROR(Decode(&vs->nested[0], in, &d.user_key_json));
          CKPT_RETURN_IF_ERROR(Decode(&vs->nested[1], in, &d.value_json));
          r.table[DumpIdentityOf(d)] = d;
          break;
        }
        if (!list) {
          return in.Error(0, std::string(flink::ChangeOpName(op)) + " on " + std::string(StateKindName(kind)) +
                                 " state '" + st.name + "'");
        }
        std::string element;
        CKPT_RETURN_IF_ERROR(Decode(&vs->nested[0], in, &element));
        DumpEntry& e = r.table[DumpIdentityOf(d)];
        std::string merged = e.value_json;
        AppendToList(&merged, element);
        e = d;
        e.value_json = merged;
        break;
      }
      case flink::ChangeOp::kRemoveElement: {
        if (!map) {
          return in.Error(0, "REMOVE_ELEMENT on " + std::string(StateKindName(kind)) + " state '" + st.name + "'");
        }
        CKPT_RETURN_IF_ERROR(Decode(&vs->nested[0], in, &d.user_key_json));
        r.table.erase(DumpIdentityOf(d));
        break;
      }
      case flink::ChangeOp::kMergeNamespaces: {
        // Target namespace, i32 n sources: a list concatenates them; other kinds merge through
        // the user's function, which is not in the snapshot.
        std::string target;
        CKPT_RETURN_IF_ERROR(Decode(ns, in, &target));
        CKPT_ASSIGN_OR_RETURN(uint32_t n, in.ReadCount("source namespace count", 1));
        if (!list) {
          return in.Error(0, "MERGE_NS on " + std::string(StateKindName(kind)) + " state '" + st.name +
                                 "' merges through the job's own function: cannot be replayed offline");
        }
        DumpEntry t = d;
        t.namespace_json = target;
        std::string merged = r.table.count(DumpIdentityOf(t)) ? r.table[DumpIdentityOf(t)].value_json : "";
        for (uint32_t i = 0; i < n; ++i) {
          DumpEntry src = d;
          CKPT_RETURN_IF_ERROR(Decode(ns, in, &src.namespace_json));
          auto e = r.table.find(DumpIdentityOf(src));
          if (e == r.table.end()) continue;
          const std::string& v = e->second.value_json;
          if (v.size() > 2) AppendToList(&merged, v.substr(1, v.size() - 2));
          r.table.erase(e);
        }
        if (!merged.empty()) {
          t.value_json = merged;
          r.table[DumpIdentityOf(t)] = t;
        }
        break;
      }
      default:
        return in.Error(0, "operation " + std::string(flink::ChangeOpName(op)) + " on keyed state '" + st.name + "'");
    }
    if (!in.at_end()) return in.Error("trailing bytes after a change of '" + st.name + "'");
    return Status::OK();
  }
  base::Fs& fs_;
  const flink::Metadata& md_;
  const DumpEntry& label_;
  const base::Progress& progress_;
};

}  // namespace

DumpIdentity DumpIdentityOf(const DumpEntry& d) {
  return {d.state, d.key_json, d.namespace_json, d.user_key_json, d.timestamp_json};
}

StateKind FlinkStateKind(const flink::StateMetaInfo& st) {
  if (st.backend_type == flink::StateMetaInfo::BackendType::kPriorityQueue) return StateKind::kTimers;
  const std::string t = st.Option("KEYED_STATE_TYPE");
  if (t == "VALUE") return StateKind::kValue;
  if (t == "LIST") return StateKind::kList;
  if (t == "MAP") return StateKind::kMap;
  if (t == "REDUCING") return StateKind::kReducing;
  if (t == "AGGREGATING") return StateKind::kAggregating;
  return StateKind::kUnspecified;
}

base::Result<ReplayedChangelog> ReplayChangelog(base::Fs& fs, const flink::Metadata& md,
                                                const flink::KeyedHandle& h, DumpTable base,
                                                const DumpEntry& label, const base::Progress& progress) {
  return Replayer(fs, md, label, progress).Run(h, std::move(base));
}

}  // namespace ckpt::ops::internal
