// DiffKeysFlink: see formats/flink/diff.h. One operator's keyed entries of each side are held in memory
// (ordered maps), then merged in identity order.
#include "formats/flink/diff.h"

#include <map>
#include <set>
#include <tuple>

#include "ckpt/ops/operator_label.h"
#include "read/diff_pairing.h"
#include "formats/flink/dump.h"
#include "formats/flink/model.h"

namespace ckpt::ops::internal {
namespace {

// (state, key group, key, namespace, user key, timestamp) -> value, all as dump's JSON.
using Identity = std::tuple<std::string, uint32_t, std::string, std::string, std::string, std::string>;
using Entries = std::map<Identity, std::string>;

// The keyed entries of `op` in `s` (none if `op` is null); Unimplemented from dump when its
// layout is not decoded.
base::Status Collect(base::Fs& fs, const Snapshot& s, const OperatorInfo* op, Entries* out,
                     const base::Progress& progress) {
  if (op == nullptr || !op->has_state) return base::Status::OK();
  if (FlinkMetadataOf(s) == nullptr) {
    return base::Status::Unimplemented("diff --keys between a Flink snapshot and one of this "
                                       "project's format is not supported");
  }
  DumpOptions options;
  options.operator_ref = op->id_hex;
  auto n = DumpFlink(fs, s, options, [&](const DumpEntry& e) {
    if (!e.key_group || e.source != "state") return base::Status::OK();
    (*out)[Identity{e.state, *e.key_group, e.key_json, e.namespace_json, e.user_key_json,
                    e.timestamp_json}] = e.value_json;
    return base::Status::OK();
  }, progress);
  return n.status();
}

}  // namespace

base::Result<KeyDiffSummary> DiffKeysFlink(base::Fs& fs, const Snapshot& a, const Snapshot& b,
                                           const std::function<void(const KeyDiff&)>& sink,
                                           const base::Progress& progress) {
  KeyDiffSummary summary;
  for (const auto& pair : PairOperators(a, b)) {
    if (pair.a == nullptr || pair.b == nullptr) continue;
    const std::string name = OperatorLabel(pair.b->name, pair.b->uid, pair.b->id_hex);
    std::set<std::string> states;
    for (const auto* op : {pair.a, pair.b}) {
      for (const auto& st : op->states) {
        if (st.keyed) states.insert(st.name);
      }
    }
    if (states.empty()) continue;
    std::map<std::string, StateComparison> compared;
    for (const auto& st : states) {
      StateComparison& c = compared[st];
      c.operator_name = name;
      c.state = st;
    }
    auto flush = [&](bool was_compared) {
      for (auto& [state, c] : compared) {
        c.compared = was_compared;
        summary.states.push_back(std::move(c));
      }
    };
    if (pair.a->max_parallelism != pair.b->max_parallelism) {
      summary.notes.push_back(name + ": max parallelism " + std::to_string(pair.a->max_parallelism) +
                              " vs " + std::to_string(pair.b->max_parallelism) +
                              ": key groups differ, keys not compared");
      flush(false);
      continue;
    }
    Entries ea, eb;
    base::Status st = Collect(fs, a, pair.a, &ea, progress);
    if (st.ok()) st = Collect(fs, b, pair.b, &eb, progress);
    if (st.code() == base::StatusCode::kCancelled) return st;
    if (!st.ok()) {
      if (st.code() != base::StatusCode::kUnimplemented) return st;
      summary.notes.push_back(name + ": " + st.message() + "; its keyed states were not compared");
      flush(false);
      continue;
    }
    auto emit = [&](DiffChange change, const Identity& id, const std::string* va, const std::string* vb) {
      KeyDiff k;
      k.change = change;
      k.operator_name = name;
      k.operator_id = pair.b->id_hex;
      std::tie(k.state, k.key_group, k.key_json, k.namespace_json, k.user_key_json, k.timestamp_json) = id;
      if (va != nullptr) k.value_a_json = *va;
      if (vb != nullptr) k.value_b_json = *vb;
      sink(k);
    };
    auto i = ea.begin();
    auto j = eb.begin();
    while (i != ea.end() || j != eb.end()) {
      if (j == eb.end() || (i != ea.end() && i->first < j->first)) {
        ++summary.removed;
        ++compared[std::get<0>(i->first)].removed;
        emit(DiffChange::kRemoved, i->first, &i->second, nullptr);
        ++i;
      } else if (i == ea.end() || j->first < i->first) {
        ++summary.added;
        ++compared[std::get<0>(j->first)].added;
        emit(DiffChange::kAdded, j->first, nullptr, &j->second);
        ++j;
      } else {
        if (i->second == j->second) {
          ++summary.same;
          ++compared[std::get<0>(i->first)].same;
        } else {
          ++summary.changed;
          ++compared[std::get<0>(i->first)].changed;
          emit(DiffChange::kChanged, i->first, &i->second, &j->second);
        }
        ++i;
        ++j;
      }
    }
    flush(true);
  }
  return summary;
}

}  // namespace ckpt::ops::internal
