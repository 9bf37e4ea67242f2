#include "ckpt/ops/diff.h"

#include <map>
#include <set>

#include "ckpt/ops/stats.h"
#include "read/diff_pairing.h"

namespace ckpt::ops {
namespace internal {

std::vector<OperatorPair> PairOperators(const Snapshot& a, const Snapshot& b) {
  std::map<std::string, const OperatorInfo*> a_by_id;
  for (const auto& op : a.operators) a_by_id.emplace(op.id_hex, &op);
  std::vector<OperatorPair> pairs;
  std::set<const OperatorInfo*> used_a;
  for (const auto& op : b.operators) {
    OperatorPair p;
    p.b = &op;
    auto it = a_by_id.find(op.id_hex);
    if (it != a_by_id.end()) {
      p.a = it->second;
      p.matched_by = "id";
      used_a.insert(it->second);
    }
    pairs.push_back(p);
  }
  // An operator whose ID changed (no uid, topology moved; or a new uid) is still "the same"
  // operator when a unique spec id or name says so.
  auto pair_by = [&](const char* how, auto key) {
    std::map<std::string, std::vector<const OperatorInfo*>> a_free;
    for (const auto& op : a.operators) {
      if (!used_a.count(&op) && !key(op).empty()) a_free[key(op)].push_back(&op);
    }
    std::map<std::string, int> b_count;
    for (const auto& p : pairs) {
      if (p.a == nullptr && !key(*p.b).empty()) ++b_count[key(*p.b)];
    }
    for (auto& p : pairs) {
      if (p.a != nullptr || key(*p.b).empty()) continue;
      auto it = a_free.find(key(*p.b));
      if (it == a_free.end() || it->second.size() != 1 || b_count[key(*p.b)] != 1) continue;
      p.a = it->second[0];
      p.matched_by = how;
      used_a.insert(p.a);
    }
  };
  pair_by("spec id", [](const OperatorInfo& op) -> const std::string& { return op.spec_id; });
  pair_by("name", [](const OperatorInfo& op) -> const std::string& { return op.name; });
  for (const auto& op : a.operators) {
    if (!used_a.count(&op)) pairs.push_back({&op, nullptr, ""});
  }
  return pairs;
}

}  // namespace internal

namespace {

std::map<std::string, const OperatorStats*> StatsById(const StatsReport& r) {
  std::map<std::string, const OperatorStats*> m;
  for (const auto& op : r.operators) m[op.id_hex] = &op;
  return m;
}

std::vector<StateSizeDiff> DiffStates(const OperatorInfo* a, const OperatorInfo* b,
                                      const OperatorStats* sa, const OperatorStats* sb) {
  std::map<std::string, StateSizeDiff> by_name;
  auto add = [&](const OperatorInfo* op, const OperatorStats* stats, bool is_a) {
    if (op == nullptr) return;
    for (const auto& st : op->states) {
      StateSizeDiff& d = by_name[st.name];
      d.name = st.name;
      (is_a ? d.kind_a : d.kind_b) = std::string(StateKindName(st.kind));
    }
    if (stats == nullptr) return;
    for (const auto& st : stats->states) {
      StateSizeDiff& d = by_name[st.name];
      d.name = st.name;
      (is_a ? d.entries_a : d.entries_b) = st.entries;
      (is_a ? d.bytes_a : d.bytes_b) = st.bytes;
      (is_a ? d.bytes_known_a : d.bytes_known_b) = st.bytes_known;
    }
  };
  add(a, sa, true);
  add(b, sb, false);
  std::vector<StateSizeDiff> out;
  for (auto& [name, d] : by_name) {
    if (d.kind_a.empty()) {
      d.change = DiffChange::kAdded;
    } else if (d.kind_b.empty()) {
      d.change = DiffChange::kRemoved;
    } else if (d.kind_a != d.kind_b || d.entries_a != d.entries_b ||
               (d.bytes_known_a && d.bytes_known_b && d.bytes_a != d.bytes_b)) {
      d.change = DiffChange::kChanged;
    }
    out.push_back(std::move(d));
  }
  return out;
}

template <typename T>
void NoteChange(std::vector<std::string>* changes, const char* what, const T& a, const T& b) {
  if (a == b) return;
  auto show = [](const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      return v.empty() ? std::string("(none)") : v;
    } else {
      return std::to_string(v);
    }
  };
  changes->push_back(std::string(what) + " " + show(a) + " -> " + show(b));
}

}  // namespace

std::string_view DiffChangeName(DiffChange c) {
  switch (c) {
    case DiffChange::kSame: return "same";
    case DiffChange::kAdded: return "added";
    case DiffChange::kRemoved: return "removed";
    case DiffChange::kChanged: return "changed";
    case DiffChange::kSizeUnchanged: return "size-unchanged";
  }
  return "changed";
}

base::Result<DiffResult> Diff(base::Fs& fs, const std::string& a, const std::string& b,
                              const DiffOptions& options) {
  const LoadOptions load{.uids = options.uids};
  CKPT_ASSIGN_OR_RETURN(Snapshot sa, LoadSnapshot(fs, a, load));
  CKPT_ASSIGN_OR_RETURN(Snapshot sb, LoadSnapshot(fs, b, load));
  StatsReport stats_a, stats_b;
  if (options.per_state) {
    StatsOptions so;
    so.per_state = true;
    CKPT_ASSIGN_OR_RETURN(stats_a, ComputeStats(fs, sa, so, options.progress));
    CKPT_ASSIGN_OR_RETURN(stats_b, ComputeStats(fs, sb, so, options.progress));
  }
  auto by_id_a = StatsById(stats_a);
  auto by_id_b = StatsById(stats_b);

  DiffResult r;
  r.a = sa.dir;
  r.b = sb.dir;
  r.checkpoint_id_a = sa.checkpoint_id;
  r.checkpoint_id_b = sb.checkpoint_id;
  r.bytes_a = sa.total_file_bytes;
  r.bytes_b = sb.total_file_bytes;
  for (const auto& p : internal::PairOperators(sa, sb)) {
    OperatorDiff d;
    d.matched_by = p.matched_by;
    const OperatorStats* st_a = nullptr;
    const OperatorStats* st_b = nullptr;
    if (p.a != nullptr) {
      d.name = p.a->name;
      d.id_a = p.a->id_hex;
      d.uid_a = p.a->uid;
      d.parallelism_a = p.a->parallelism;
      d.max_parallelism_a = p.a->max_parallelism;
      d.bytes_a = p.a->total_bytes;
      if (auto it = by_id_a.find(d.id_a); it != by_id_a.end()) st_a = it->second;
    }
    if (p.b != nullptr) {
      d.name = p.b->name;
      d.id_b = p.b->id_hex;
      d.uid_b = p.b->uid;
      d.parallelism_b = p.b->parallelism;
      d.max_parallelism_b = p.b->max_parallelism;
      d.bytes_b = p.b->total_bytes;
      if (auto it = by_id_b.find(d.id_b); it != by_id_b.end()) st_b = it->second;
    }
    d.states = DiffStates(p.a, p.b, st_a, st_b);
    if (p.a == nullptr) {
      d.change = DiffChange::kAdded;
    } else if (p.b == nullptr) {
      d.change = DiffChange::kRemoved;
    } else {
      NoteChange(&d.changes, "id", d.id_a, d.id_b);
      NoteChange(&d.changes, "uid", d.uid_a, d.uid_b);
      NoteChange(&d.changes, "parallelism", d.parallelism_a, d.parallelism_b);
      NoteChange(&d.changes, "max parallelism", d.max_parallelism_a, d.max_parallelism_b);
      NoteChange(&d.changes, "state bytes", d.bytes_a, d.bytes_b);
      bool states_changed = false;
      for (const auto& s : d.states) {
        states_changed |= s.change != DiffChange::kSame && s.change != DiffChange::kSizeUnchanged;
      }
      if (states_changed) d.changes.push_back("states differ");
      if (p.a->has_state != p.b->has_state) {
        d.changes.push_back(p.b->has_state ? "state appeared" : "state disappeared");
      }
      if (!d.changes.empty()) {
        d.change = DiffChange::kChanged;
      } else if (p.a->has_state || p.b->has_state) {
        // Equal metadata and sizes say nothing about the values (DiffKeys compares them).
        d.change = DiffChange::kSizeUnchanged;
      }
    }
    r.different |= d.change != DiffChange::kSame && d.change != DiffChange::kSizeUnchanged;
    r.operators.push_back(std::move(d));
  }

  std::map<std::string, FileDiff> files;
  for (int side = 0; side < 2; ++side) {
    const Snapshot& s = side == 0 ? sa : sb;
    for (const auto& f : s.files) {
      std::string key = f.resolved_path.empty() ? f.path : f.resolved_path;
      FileDiff& d = files[key];
      d.path = key;
      d.scope = std::string(FileScopeName(f.scope));
      (side == 0 ? d.size_a : d.size_b) = f.size_bytes;
      if (side == 0) {
        d.change = DiffChange::kRemoved;
      } else if (d.change == DiffChange::kRemoved) {
        d.change = DiffChange::kSame;
      } else {
        d.change = DiffChange::kAdded;
      }
    }
  }
  // A shared path whose size or checksum differs is the same name for different bytes.
  std::map<std::string, uint64_t> checksum_a;
  for (const auto& f : sa.files) {
    checksum_a[f.resolved_path.empty() ? f.path : f.resolved_path] = f.checksum_xxh3;
  }
  for (const auto& f : sb.files) {
    auto& d = files[f.resolved_path.empty() ? f.path : f.resolved_path];
    if (d.change == DiffChange::kSame &&
        (d.size_a != d.size_b || checksum_a[d.path] != f.checksum_xxh3)) {
      d.change = DiffChange::kChanged;
    }
  }
  // A file that only moved (same size and checksum on the other side, e.g. a relocated copy) is
  // not a difference in state.
  std::set<std::pair<uint64_t, uint64_t>> content_a, content_b;
  for (const auto& f : sa.files) content_a.emplace(f.size_bytes, f.checksum_xxh3);
  for (const auto& f : sb.files) content_b.emplace(f.size_bytes, f.checksum_xxh3);
  for (const auto& f : sa.files) {
    if (!content_b.count({f.size_bytes, f.checksum_xxh3})) r.different = true;
  }
  for (const auto& f : sb.files) {
    if (!content_a.count({f.size_bytes, f.checksum_xxh3})) r.different = true;
  }
  for (auto& [path, d] : files) {
    switch (d.change) {
      case DiffChange::kSame: ++r.files_shared; break;
      case DiffChange::kAdded: ++r.files_added; break;
      case DiffChange::kRemoved: ++r.files_removed; break;
      case DiffChange::kChanged: ++r.files_changed; break;
      case DiffChange::kSizeUnchanged: break;  // not used for files
    }
    r.different |= d.change == DiffChange::kChanged;
    r.files.push_back(std::move(d));
  }
  CKPT_ASSIGN_OR_RETURN(PositionsReport positions_a, ComputePositions(fs, sa, options.progress));
  CKPT_ASSIGN_OR_RETURN(PositionsReport positions_b, ComputePositions(fs, sb, options.progress));
  r.positions = ComparePositions(positions_a, positions_b);
  r.position_findings = std::move(positions_a.findings);
  r.position_findings.insert(r.position_findings.end(), positions_b.findings.begin(),
                             positions_b.findings.end());
  SortFindings(&r.position_findings);
  return r;
}

bool KeyDiffSummary::any_compared() const {
  for (const auto& s : states) {
    if (s.compared) return true;
  }
  return false;
}

}  // namespace ckpt::ops
