// ScanFlinkOperator: key-group section sizes are the differences of consecutive key-group
// offsets (the last one runs to the end of the stream); a key group whose offset is 0 or equal
// to the next one holds no data.
#include "formats/flink/stats.h"

#include <algorithm>
#include <limits>

#include "formats/flink/dump.h"

namespace ckpt::ops::internal {
namespace {

void AddKeyGroups(const flink::KeyGroupsHandle& kg, std::map<uint32_t, KeyGroupStats>* groups,
                  OperatorStats* out) {
  const int64_t end = kg.delegate.size;
  for (size_t i = 0; i < kg.offsets.size(); ++i) {
    const int64_t start = kg.offsets[i];
    int64_t next = end;
    for (size_t j = i + 1; j < kg.offsets.size(); ++j) {
      if (kg.offsets[j] > start) {
        next = kg.offsets[j];
        break;
      }
    }
    if (start <= 0 || next <= start) continue;
    const auto g = static_cast<uint32_t>(kg.start) + static_cast<uint32_t>(i);
    KeyGroupStats& s = (*groups)[g];
    s.key_group = g;
    s.bytes += static_cast<uint64_t>(next - start);
    out->keyed_logical_bytes += static_cast<uint64_t>(next - start);
  }
}

void AddKeyed(const flink::KeyedHandle& h, std::map<uint32_t, KeyGroupStats>* groups,
              OperatorStats* out) {
  if (h.key_groups) AddKeyGroups(*h.key_groups, groups, out);
  for (const auto& m : h.materialized) AddKeyed(m, groups, out);
}

// TtlUtils.expired: the expiration time (last access + ttl, capped at the largest long for a
// positive last access) is at or before `at`.
bool TtlExpired(int64_t last_access, int64_t ttl_ms, int64_t at) {
  const int64_t ttl =
      last_access > 0 ? std::min(std::numeric_limits<int64_t>::max() - last_access, ttl_ms) : ttl_ms;
  return last_access + ttl <= at;
}

void AddTtlValue(int64_t last_access, uint64_t bytes, std::optional<int64_t> at, int64_t ttl_ms,
                 TtlStats* s) {
  if (s->entries == 0 || last_access < s->min_last_access) s->min_last_access = last_access;
  if (s->entries == 0 || last_access > s->max_last_access) s->max_last_access = last_access;
  ++s->entries;
  s->bytes += bytes;
  if (TtlExpired(last_access, ttl_ms, *at)) {
    ++s->expired_entries;
    s->expired_bytes += bytes;
  }
}

}  // namespace

base::Status ScanFlinkOperator(const flink::Metadata& md, const std::string& id_hex,
                               std::map<uint32_t, KeyGroupStats>* groups, OperatorStats* out) {
  for (const auto& op : md.operators) {
    if (op.IdHex() != id_hex) continue;
    for (const auto& st : op.subtasks) {
      AddKeyed(st.managed_keyed, groups, out);
      AddKeyed(st.raw_keyed, groups, out);
      for (const auto* oh : {&st.managed_operator, &st.raw_operator}) {
        if (!oh->has_value()) continue;
        for (const auto& e : (*oh)->states) {
          for (auto& s : out->states) {
            if (s.name == e.name) s.entries += e.offsets.size();
          }
        }
      }
    }
  }
  return base::Status::OK();
}

base::Status CountFlinkKeyedEntries(base::Fs& fs, const Snapshot& snapshot, const std::string& id_hex,
                                    std::map<uint32_t, KeyGroupStats>* groups, OperatorStats* out,
                                    const base::Progress& progress, uint32_t top_keys,
                                    std::optional<int64_t> expired_at_ms, int64_t ttl_ms) {
  DumpOptions options;
  options.operator_ref = id_hex;
  KeyTally tally(out->states.size(), top_keys);
  FlinkKeySizing sizing;
  sizing.tally = &tally;
  for (const auto& s : out->states) sizing.states.push_back(s.name);
  FlinkTtlScan ttl;
  ttl.value = [&](const std::string& state, int64_t last_access, uint64_t bytes) {
    for (auto& s : out->states) {
      if (s.name == state) AddTtlValue(last_access, bytes, expired_at_ms, ttl_ms, &s.ttl_stats);
    }
  };
  auto n = DumpFlink(fs, snapshot, options, [&](const DumpEntry& e) {
    if (!e.key_group || e.source != "state") return base::Status::OK();
    for (auto& s : out->states) {
      if (s.name == e.state) ++s.entries;
    }
    // Records of the key groups whose sizes the offsets gave (RocksDB instances have none).
    auto g = groups->find(*e.key_group);
    if (g != groups->end()) ++g->second.records;
    return base::Status::OK();
  }, progress, top_keys > 0 ? &sizing : nullptr, expired_at_ms ? &ttl : nullptr);
  if (expired_at_ms) {
    for (auto& s : out->states) s.ttl = ttl.ttl_states.count(s.name) > 0;
    out->ttl_unknown = ttl.unknown;
    if (!n.ok() && n.status().code() == base::StatusCode::kUnimplemented) {
      out->ttl_unknown = n.status().message();
    }
  }
  if (!n.ok() && n.status().code() != base::StatusCode::kUnimplemented &&
      !n.status().IsNotFound()) {
    return n.status();
  }
  if (top_keys == 0) return base::Status::OK();
  if (!n.ok()) sizing.unknown = n.status().message();
  tally.CloseAll();
  auto copy = [](const std::vector<KeyTally::Ranked>& ranked, std::vector<KeySize>* to) {
    for (const auto& r : ranked) to->push_back({r.key, r.key_group, r.bytes, r.entries});
  };
  for (size_t i = 0; i < out->states.size(); ++i) {
    copy(tally.State(i), &out->states[i].largest_keys);
  }
  copy(tally.Operator(), &out->largest_keys);
  out->largest_keys_unknown = sizing.unknown;
  return base::Status::OK();
}

}  // namespace ckpt::ops::internal
