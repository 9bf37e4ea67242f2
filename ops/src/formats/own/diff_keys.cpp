// diff --keys of two snapshots of our format: a streaming merge of their keyed state, one key
// group at a time.
#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "ckpt/base/json_quote.h"
#include "ckpt/format/state_kind.h"
#include "ckpt/format/key_groups.h"
#include "ckpt/format/records.h"
#include "ckpt/format/state_file_reader.h"
#include "ckpt/format/value_json.h"
#include "ckpt/ops/diff.h"
#include "ckpt/ops/operator_label.h"
#include "read/diff_pairing.h"
#include "formats/own/own_format.h"
#include "formats/own/keyed_replay.h"
#include "model/snapshot_raw.h"

namespace ckpt::ops {
namespace {

struct Entry {
  std::string state, key, ns, user_key, value;
  auto Identity() const { return std::tie(state, key, ns, user_key); }
  bool operator<(const Entry& o) const {
    return std::tie(state, key, ns, user_key, value) <
           std::tie(o.state, o.key, o.ns, o.user_key, o.value);
  }
};

// One side of one operator: its keyed states and handles, read through KeyedStateView (changelog
// handles replayed, so their values are compared as a restore would see them).
class Side {
 public:
  Side(base::Fs& fs, const Snapshot& snapshot, const pb::OperatorState& op)
      : op_(op), view_(fs, snapshot, op) {
    for (int i = 0; i < op.states_size(); ++i) {
      const auto& st = op.states(i);
      if (format::IsKeyedStateKind(st.kind())) states_[st.name()] = &st;
    }
    for (const auto& sub : op.subtasks()) {
      for (const auto& h : sub.keyed_state()) {
#ifndef CKPT_HAVE_FLINK_ROCKSDB
        if (h.has_rocksdb()) {
          uncomparable_ = true;
          continue;
        }
#endif
        if (h.has_key_groups() || h.has_changelog() || h.has_rocksdb()) {
          handles_.push_back(&h);
        }
      }
    }
  }

  bool uncomparable() const { return uncomparable_; }
  const std::map<std::string, const pb::StateDescriptor*>& states() const { return states_; }

  // Appends the entries of key group `g` (every handle covering it) to `out`.
  base::Status Read(uint32_t g, std::vector<Entry>* out) {
    for (const pb::KeyedStateHandle* h : handles_) {
      uint32_t start = 0, end = 0;
      if (!internal::KeyedStateView::Range(*h, &start, &end) || g < start || g > end) continue;
      values_.clear();
      CKPT_RETURN_IF_ERROR(view_.Read(*h, g, &values_));
      for (auto& v : values_) {
        out->push_back({op_.states(static_cast<int>(v.state_index)).name(), std::move(v.key),
                        std::move(v.ns), std::move(v.user_key), std::move(v.value)});
      }
    }
    return base::Status::OK();
  }

 private:
  const pb::OperatorState& op_;
  internal::KeyedStateView view_;
  std::map<std::string, const pb::StateDescriptor*> states_;
  std::vector<const pb::KeyedStateHandle*> handles_;
  std::vector<internal::KeyedValue> values_;
  bool uncomparable_ = false;
};

std::string Json(const pb::TypeDescriptor* type, const std::string& bytes, bool void_is_null) {
  if (type == nullptr || type->kind() == pb::TypeDescriptor::KIND_UNSPECIFIED) {
    if (void_is_null && bytes.empty()) return "null";
    // No declared type (a state only one side declares): show the raw bytes.
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex = "0x";
    for (char c : bytes) {
      hex.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
      hex.push_back(kDigits[static_cast<uint8_t>(c) & 0xf]);
    }
    std::string out;
    base::AppendJsonQuoted(hex, &out);
    return out;
  }
  auto json = format::ValueBytesToJson(*type, bytes);
  if (json.ok()) return *json;
  std::string out;
  base::AppendJsonQuoted("<undecodable " + std::to_string(bytes.size()) + " bytes>", &out);
  return out;
}

const pb::OperatorState* FindState(const pb::CheckpointMetadata& m, const std::string& id_hex) {
  for (const auto& op : m.operators()) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (char c : op.operator_id()) {
      hex.push_back(kDigits[static_cast<uint8_t>(c) >> 4]);
      hex.push_back(kDigits[static_cast<uint8_t>(c) & 0xf]);
    }
    if (hex == id_hex) return &op;
  }
  return nullptr;
}

}  // namespace

base::Result<KeyDiffSummary> internal::DiffKeysOwn(base::Fs& fs, const Snapshot& sa,
                                                   const Snapshot& sb,
                                                   const std::function<void(const KeyDiff&)>& sink,
                                                   const base::Progress& progress) {
  KeyDiffSummary summary;
  for (const auto& pair : internal::PairOperators(sa, sb)) {
    if (pair.a == nullptr || pair.b == nullptr) continue;
    const pb::OperatorState* oa = FindState(RawMetadata(sa), pair.a->id_hex);
    const pb::OperatorState* ob = FindState(RawMetadata(sb), pair.b->id_hex);
    if (oa == nullptr && ob == nullptr) continue;
    static const pb::OperatorState kEmpty;
    Side side_a(fs, sa, oa ? *oa : kEmpty);
    Side side_b(fs, sb, ob ? *ob : kEmpty);
    const std::string name = OperatorLabel(pair.b->name, pair.b->uid, pair.b->id_hex);
    if (side_a.states().empty() && side_b.states().empty()) continue;
    // Every keyed state of this operator, compared or not: "same" is only ever said of a state
    // whose entries were compared.
    std::map<std::string, StateComparison> compared;
    for (const auto* side : {&side_a, &side_b}) {
      for (const auto& [state, d] : side->states()) {
        StateComparison& c = compared[state];
        c.operator_name = name;
        c.state = state;
      }
    }
    auto flush = [&](bool was_compared) {
      for (auto& [state, c] : compared) {
        c.compared = was_compared;
        summary.states.push_back(std::move(c));
      }
    };
    if (side_a.uncomparable() || side_b.uncomparable()) {
      summary.notes.push_back(name + ": native (RocksDB) keyed handles cannot be read by a build "
                                     "without RocksDB; "
                                     "its keyed states were not compared");
      flush(false);
      continue;
    }
    uint32_t max_a = oa ? oa->max_parallelism() : 0;
    uint32_t max_b = ob ? ob->max_parallelism() : 0;
    if (oa && ob && max_a != max_b) {
      summary.notes.push_back(name + ": max parallelism " + std::to_string(max_a) + " vs " +
                              std::to_string(max_b) + ": key groups differ, keys not compared");
      flush(false);
      continue;
    }
    const uint32_t groups = std::max(max_a, max_b);
    // Key groups are walked one by one: a hostile max parallelism (up to 2^32-1 from disk)
    // must not turn into billions of iterations. Valid ones are at most 32768.
    if (groups > format::kUpperBoundMaxParallelism) {
      summary.notes.push_back(name + ": max parallelism " + std::to_string(groups) +
                              " is invalid (above " +
                              std::to_string(format::kUpperBoundMaxParallelism) +
                              "): keys not compared");
      continue;
    }
    std::vector<Entry> ea, eb;
    for (uint32_t g = 0; g < groups; ++g) {
      if (progress.cancelled()) return base::Status::Cancelled("diff --keys");
      ea.clear();
      eb.clear();
      CKPT_RETURN_IF_ERROR(side_a.Read(g, &ea));
      CKPT_RETURN_IF_ERROR(side_b.Read(g, &eb));
      std::sort(ea.begin(), ea.end());
      std::sort(eb.begin(), eb.end());
      auto emit = [&](DiffChange change, const Entry* x, const Entry* y) {
        const Entry& e = y != nullptr ? *y : *x;
        const auto& states = y != nullptr ? side_b.states() : side_a.states();
        auto it = states.find(e.state);
        const pb::StateDescriptor* d = it == states.end() ? nullptr : it->second;
        KeyDiff k;
        k.change = change;
        k.operator_name = name;
        k.operator_id = pair.b->id_hex;
        k.state = e.state;
        k.key_group = g;
        k.key_json = Json(d ? &d->key_type() : nullptr, e.key, false);
        k.namespace_json = Json(d ? &d->namespace_type() : nullptr, e.ns, true);
        if (!e.user_key.empty()) k.user_key_json = Json(d ? &d->user_key_type() : nullptr, e.user_key, false);
        auto value_json = [&](const Entry& v, const Side& side) {
          auto s = side.states().find(v.state);
          return Json(s == side.states().end() ? nullptr : &s->second->value_type(), v.value, true);
        };
        if (x != nullptr) k.value_a_json = value_json(*x, side_a);
        if (y != nullptr) k.value_b_json = value_json(*y, side_b);
        sink(k);
      };
      size_t i = 0, j = 0;
      while (i < ea.size() || j < eb.size()) {
        if (j == eb.size() || (i < ea.size() && ea[i].Identity() < eb[j].Identity())) {
          ++summary.removed;
          ++compared[ea[i].state].removed;
          emit(DiffChange::kRemoved, &ea[i++], nullptr);
        } else if (i == ea.size() || eb[j].Identity() < ea[i].Identity()) {
          ++summary.added;
          ++compared[eb[j].state].added;
          emit(DiffChange::kAdded, nullptr, &eb[j++]);
        } else {
          if (ea[i].value == eb[j].value) {
            ++summary.same;
            ++compared[ea[i].state].same;
          } else {
            ++summary.changed;
            ++compared[ea[i].state].changed;
            emit(DiffChange::kChanged, &ea[i], &eb[j]);
          }
          ++i;
          ++j;
        }
      }
      progress.Report(g + 1, groups, name);
    }
    flush(true);
  }
  return summary;
}

}  // namespace ckpt::ops
